/**
 * The widget's style sheet, scoped by its shadow root: the page's CSS cannot reach inside, and
 * nothing here can reach the page. `:host { all: initial }` also stops inherited page styles
 * (fonts, colours, line heights) from leaking in.
 */
export const STYLES = `
:host{all:initial;position:fixed;bottom:20px;z-index:2147483000;--accent:#2563eb;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111827}
:host([data-side=right]){right:20px}
:host([data-side=left]){left:20px}
*{box-sizing:border-box}
[hidden]{display:none!important}
button{font:inherit;cursor:pointer}
.bubble{width:56px;height:56px;border-radius:50%;border:0;background:var(--accent);color:#fff;box-shadow:0 4px 14px rgba(0,0,0,.25);display:grid;place-items:center}
.bubble svg{width:26px;height:26px;fill:currentColor}
.bubble:focus-visible,.panel button:focus-visible,textarea:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.panel{position:absolute;bottom:0;width:min(380px,calc(100vw - 24px));height:min(600px,calc(100vh - 40px));background:#fff;border-radius:14px;box-shadow:0 10px 40px rgba(0,0,0,.3);display:flex;flex-direction:column;overflow:hidden}
:host([data-side=right]) .panel{right:0}
:host([data-side=left]) .panel{left:0}
header{display:flex;align-items:center;gap:8px;padding:12px 14px;background:var(--accent);color:#fff}
h2{flex:1;margin:0;font-size:16px;font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.close{border:0;background:transparent;color:inherit;font-size:22px;line-height:1;width:32px;height:32px;border-radius:6px}
.log{flex:1;overflow-y:auto;padding:14px;display:flex;flex-direction:column;gap:10px;background:#f9fafb}
.msg{max-width:85%;padding:8px 12px;border-radius:12px;overflow-wrap:anywhere;white-space:normal}
.msg.user{align-self:flex-end;background:var(--accent);color:#fff;white-space:pre-wrap}
.msg.assistant{align-self:flex-start;background:#fff;border:1px solid #e5e7eb}
.msg p{margin:0 0 6px}.msg p:last-child{margin-bottom:0}
.msg ul,.msg ol{margin:4px 0;padding-left:20px}
.msg code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f3f4f6;border-radius:4px;padding:1px 4px}
.msg pre{margin:6px 0;padding:8px;background:#f3f4f6;border-radius:6px;overflow-x:auto}
.msg pre code{padding:0;background:none}
.msg a{color:#1d4ed8}
.typing::after{content:"…";animation:blink 1s steps(2) infinite}
@keyframes blink{50%{opacity:.2}}
.status{display:flex;align-items:center;gap:8px;padding:8px 14px;background:#fef2f2;color:#991b1b;font-size:14px;border-top:1px solid #fecaca}
.status span{flex:1}
.status button{border:1px solid #991b1b;background:#fff;color:#991b1b;border-radius:6px;padding:4px 10px}
form{display:flex;gap:8px;padding:10px;border-top:1px solid #e5e7eb;background:#fff}
textarea{flex:1;resize:none;min-height:40px;max-height:120px;padding:9px 10px;border:1px solid #d1d5db;border-radius:8px;font:inherit;color:inherit;background:#fff}
.send{border:0;border-radius:8px;padding:0 16px;background:var(--accent);color:#fff;font-weight:600}
.send:disabled{opacity:.55;cursor:default}
@media (max-width:480px){:host{bottom:12px}:host([data-side=right]){right:12px}:host([data-side=left]){left:12px}
.panel{position:fixed;inset:0;width:100vw;height:100%;border-radius:0}}
`;
