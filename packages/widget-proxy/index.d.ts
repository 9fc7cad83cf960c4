import type { IncomingMessage, ServerResponse } from 'node:http';

/** Per-visitor limit on POSTs (messages); history GETs are not counted. */
export interface RateLimitOptions {
  /** Messages a visitor may send per window. */
  max: number;
  /** The window's length in milliseconds. */
  windowMs: number;
}

export interface ChatProxyOptions {
  /** The service's base URL (http or https), e.g. `http://localhost:3000`. */
  serviceUrl: string;
  /** The agent the widget talks to. */
  agentId: string;
  /** An agent key (`ak_…`) or workspace key (`wk_…`). Sent to the service only, never to the browser. */
  apiKey: string;
  /** The path the widget posts to (its `data-endpoint`), as the browser sees it. Default `/chat`. */
  path?: string;
  /**
   * Signs the visitor cookie; at least 32 characters. Without it a random secret is made per
   * process, so every visitor becomes a new one (and loses their conversations) on restart.
   */
  cookieSecret?: string;
  /** Default `aes_visitor`. */
  cookieName?: string;
  /** `'auto'` (default): Secure when the request came over TLS or with `X-Forwarded-Proto: https`. */
  secureCookie?: boolean | 'auto';
  /** Default `{ max: 30, windowMs: 60_000 }`; `false` turns the limit off. */
  rateLimit?: RateLimitOptions | false;
  /** The largest request body in bytes. Default 65,536. */
  maxBodyBytes?: number;
  /** Told about failures the browser only sees as a 502 or a cut stream. Default: nothing. */
  onError?: (error: unknown) => void;
}

/** What Express hands a middleware (structurally; no dependency on Express's types). */
export interface ExpressLikeRequest extends IncomingMessage {
  originalUrl?: string;
  body?: unknown;
}

/** What Koa hands a middleware (structurally; no dependency on Koa's types). */
export interface KoaLikeContext {
  req: IncomingMessage;
  res: ServerResponse;
  originalUrl: string;
  request: { body?: unknown };
  respond?: boolean;
}

export interface ChatProxy {
  /**
   * Node `http`: answers `POST <path>` and `GET <path>/{conversationId}` (and 404/405 under
   * `<path>`), resolving `true`; resolves `false` without touching `res` for any other path.
   * Never rejects.
   */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** Express middleware (`app.use(proxy.express)`): answers the proxy's paths, `next()` for the rest. */
  express(req: ExpressLikeRequest, res: ServerResponse, next: (err?: unknown) => void): void;
  /** Koa middleware (`app.use(proxy.koa)`): answers the proxy's paths with `ctx.respond = false`, `await next()` for the rest. */
  koa(ctx: KoaLikeContext, next: () => Promise<unknown>): Promise<void>;
}

/** Creates the proxy. Throws a TypeError for a missing or invalid option (never naming the key). */
export function createChatProxy(options: ChatProxyOptions): ChatProxy;
