import type Koa from 'koa';
import { escapeHtml } from './home.routes.js';
import { sendHtml } from './page-headers.js';

// The console's live preview of the chat widget. The widget never holds a key: it talks to the
// site's own proxy, which adds one. Here the proxy is the service itself, for the console only: the
// Chat widget tab puts its session's "Try it" key (short-lived, revoked at sign-out) in a cookie
// scoped to this agent's preview path, and requests to `…/chat` under that path go on to the chat
// surface with the key as `X-Agent-Access-Key` — through the real route, its checks and its
// activity log, exactly as a customer's proxy would send them.

/** The cookie holding the preview's Try-it key (set by the console, Path=/console/widget-preview/<agentId>). */
export const TRY_IT_COOKIE = 'aes_try_it';

const PREFIX = '/console/widget-preview/';
const PAGE = /^\/console\/widget-preview\/([^/]{1,200})$/;
const CHAT = /^\/console\/widget-preview\/([^/]{1,200})(\/chat(?:\/[^/]*)?)$/;

/**
 * The preview page's policy: the widget's script from this origin (no inline script), the widget's
 * own `<style>` in its shadow root, requests to this origin, framed only by this origin's pages.
 */
export const WIDGET_PREVIEW_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'self'; base-uri 'none'; form-action 'none'";

/** A query parameter as one short line of text (anything else is left out). */
function param(ctx: Koa.Context, name: string, max = 200): string {
  const v = ctx.query[name];
  return typeof v === 'string'
    ? v
        .replace(/[\u0000-\u001f\u007f]/g, ' ')
        .slice(0, max)
        .trim()
    : '';
}

function previewPage(agentSegment: string, ctx: Koa.Context): string {
  const attrs: [string, string][] = [['data-endpoint', `${PREFIX}${agentSegment}/chat`]];
  for (const [name, attr] of [
    ['title', 'data-title'],
    ['greeting', 'data-greeting'],
    ['accent', 'data-accent-color'],
    ['position', 'data-position'],
  ] as const) {
    const v = param(ctx, name);
    if (v) attrs.push([attr, v]);
  }
  if (param(ctx, 'open') === 'true') attrs.push(['data-open', 'true']);
  const tag = `<script src="/widget.js" ${attrs.map(([k, v]) => `${k}="${escapeHtml(v)}"`).join(' ')} async></script>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Chat widget preview</title>
<link rel="icon" href="data:,">
</head><body style="margin:0;min-height:100vh;font:14px system-ui,sans-serif;color:#495057;background:#f8f9fa">
<main style="padding:16px"><p style="margin:0">A page of your site, with the chat widget. Messages go to the agent through this preview's own proxy.</p></main>
${tag}
</body></html>`;
}

/**
 * `GET /console/widget-preview/{agentId}[?title&greeting&accent&position&open]`: a page with the
 * widget, as a site embeds it (the Chat widget tab frames it); `POST …/{agentId}/chat` and
 * `GET …/{agentId}/chat/{conversationId}`: forwarded to the chat surface with the preview's key.
 */
export function widgetPreviewRoutes(): Koa.Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith(PREFIX)) return next();
    const page = PAGE.exec(ctx.path);
    if (page && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      sendHtml(ctx, previewPage(page[1]!, ctx), WIDGET_PREVIEW_CSP);
      ctx.set('X-Frame-Options', 'SAMEORIGIN');
      ctx.set('Cache-Control', 'no-store');
      return;
    }
    const chat = CHAT.exec(ctx.path);
    if (!chat) return next();
    const key = ctx.cookies.get(TRY_IT_COOKIE);
    delete ctx.req.headers.authorization;
    if (key) ctx.req.headers['x-agent-access-key'] = key;
    else delete ctx.req.headers['x-agent-access-key'];
    ctx.path = `/agents/${chat[1]}${chat[2]}`;
    return next();
  };
}
