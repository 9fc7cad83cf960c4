import { escapeHtml as e } from './authorization-server.js';

/** The consent step's own pages: a plain form, no script (the CSP allows none). */
export const CONSENT_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'";

const STYLE = `body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#1a1b1e}
h1{font-size:1.4rem}dl{display:grid;grid-template-columns:auto 1fr;gap:.3rem 1rem}dt{color:#555}dd{margin:0;word-break:break-all}
button{font-size:1rem;padding:.5rem 1.2rem;margin-right:.5rem;border-radius:6px;border:1px solid #888;cursor:pointer}
button.primary{background:#1c7ed6;color:#fff;border-color:#1c7ed6}input{font-size:1rem;padding:.4rem;width:100%;box-sizing:border-box}
.error{color:#c92a2a}.note{color:#555;font-size:.9rem}.unverified{color:#a61e4d;font-weight:600}
.redirect{border:2px solid #f08c00;background:#fff9db;padding:.6rem .8rem;border-radius:6px}.redirect strong{font-size:1.15rem;word-break:break-all}`;

function page(title: string, body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${e(title)}</title>${head}<style>${STYLE}</style></head><body>${body}</body></html>`;
}

/**
 * The first look at the consent page without the console's session cookie. That cookie is
 * SameSite=Strict, so a browser that arrived through the client's cross-site redirect does not send
 * it; a navigation that starts on this page does.
 */
export function reloadPage(url: string): string {
  return page(
    'Connecting an app',
    `<p>Checking your sign-in… <a href="${e(url)}">Continue</a></p>`,
    `<meta http-equiv="refresh" content="0;url=${e(url)}">`,
  );
}

/** The member's sign-in, as the console's: a member token. */
export function signInPage(action: string, clientName: string, error?: string): string {
  return page(
    'Sign in to connect an app',
    `<h1>Sign in to connect ${e(clientName)}</h1>
<p>Sign in as a workspace member to decide whether <strong>${e(clientName)}</strong> may use an agent.</p>
${error ? `<p class="error" role="alert">${e(error)}</p>` : ''}
<form method="post" action="${e(action)}"><label for="token">Member token</label>
<input id="token" name="token" type="password" autocomplete="off" required>
<p><button class="primary" type="submit">Sign in</button></p></form>
<p class="note">This is the sign-in of the console; your session is kept for the console too.</p>`,
  );
}

/** What the member approves or declines. */
export interface ConsentView {
  clientName: string;
  clientId: string;
  /**
   * Where the name comes from: chosen by whoever registered the client (`registered`, anyone may
   * register any name), its metadata document at the client id's URL (`document`), or no name (the
   * client id is shown).
   */
  nameSource: 'registered' | 'document' | 'none';
  redirectHost: string;
  agentName: string;
  agentUrl: string;
  memberEmail: string;
  approveAction: string;
  denyAction: string;
  refresh: boolean;
}

/** What the page says of the client's name: a name anyone could have chosen is marked so. */
function nameNote(v: ConsentView): string {
  if (v.nameSource === 'registered')
    return ` <span class="unverified" id="name-unverified">(name chosen by the app itself, not verified)</span> <span class="note">(${e(v.clientId)})</span>`;
  if (v.nameSource === 'document') return ` <span class="note">(named by the document at ${e(v.clientId)})</span>`;
  return '';
}

/** The consent page: who asks, for which agent, what it may do, where the person goes next, and for how long. */
export function consentPage(v: ConsentView): string {
  return page(
    `Connect ${v.clientName}`,
    `<h1>Allow <span id="client-name">${e(v.clientName)}</span> to use the agent ${e(v.agentName)}?</h1>
<p class="redirect" id="redirect-notice">After you decide, you are sent to <strong id="redirect-host">${e(v.redirectHost)}</strong>. Allow only if that is the app you are connecting.</p>
<dl><dt>App</dt><dd>${e(v.clientName)}${nameNote(v)}</dd>
<dt>Sends you back to</dt><dd>${e(v.redirectHost)}</dd>
<dt>Agent</dt><dd>${e(v.agentName)} <span class="note">${e(v.agentUrl)}</span></dd>
<dt>Signed in as</dt><dd>${e(v.memberEmail)}</dd></dl>
<p>If you allow it, the app may <strong>list and call this agent's MCP tools and read the documents the agent exposes to MCP</strong>, on your behalf. Its calls count against the agent's credits and limits and appear in its activity log.
${v.refresh ? 'It stays connected until you revoke it' : 'Its access ends within an hour'}; revoke it at any time on the agent's MCP tab in the console.</p>
<p>Only allow apps you started connecting yourself.</p>
<form method="post" action="${e(v.approveAction)}" style="display:inline"><button class="primary" type="submit" id="approve">Allow</button></form>
<form method="post" action="${e(v.denyAction)}" style="display:inline"><button type="submit" id="deny">Deny</button></form>`,
  );
}

/** A consent step that cannot continue, and what to do. */
export function problemPage(title: string, message: string): string {
  return page(title, `<h1>${e(title)}</h1><p>${e(message)}</p>`);
}
