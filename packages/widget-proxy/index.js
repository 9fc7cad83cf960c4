// @ts-check
/**
 * @agent-exposure/widget-proxy — the server side of the chat widget.
 *
 * The widget in the browser POSTs `{message, conversationId}` to a path of the customer's own site
 * and GETs `<path>/{conversationId}` for the history. This helper answers those two paths by
 * calling the service's chat endpoints with the agent key, which therefore never reaches the
 * browser. It forwards nothing of the browser's request but the two body fields and the choice
 * between an event stream and one JSON answer, names the visitor from a signed cookie, limits each
 * visitor's rate, and streams the answer through as it is written.
 *
 * Zero dependencies: Node ≥ 20 (global fetch, AbortController, node:crypto).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A conversation id the service can have issued; anything else is 404 here, without a call. */
const CONVERSATION_ID = /^[A-Za-z0-9_-]{1,200}$/;
/** A visitor id this helper issued: 18 random bytes in base64url (144 bits). */
const VISITOR_ID_BYTES = 18;
const VISITOR_ID = /^[A-Za-z0-9_-]{24}$/;
/** The signature of a visitor id: HMAC-SHA256 in base64url. */
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;
const COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;
/** RFC 6265 cookie-name characters (an HTTP token). */
const COOKIE_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** The most visitors the rate limiter remembers; older windows are forgotten first. */
const MAX_TRACKED_VISITORS = 10_000;
const MIN_SECRET_LENGTH = 32;

const DEFAULTS = {
  path: '/chat',
  cookieName: 'aes_visitor',
  secureCookie: /** @type {'auto'} */ ('auto'),
  rateLimit: { max: 30, windowMs: 60_000 },
  maxBodyBytes: 65_536,
};

/**
 * @typedef {object} RateLimitOptions
 * @property {number} max POSTs a visitor may send per window.
 * @property {number} windowMs The window's length in milliseconds.
 */

/**
 * @typedef {object} ChatProxyOptions
 * @property {string} serviceUrl The service's base URL (http or https), e.g. `http://localhost:3000`.
 * @property {string} agentId The agent the widget talks to.
 * @property {string} apiKey An agent key (`ak_…`) or workspace key (`wk_…`); sent to the service only.
 * @property {string} [path] The path the widget posts to (its `data-endpoint`), as the browser sees it. Default `/chat`.
 * @property {string} [cookieSecret] At least 32 characters. Without it a random secret is made per process, so visitors change on every restart.
 * @property {string} [cookieName] Default `aes_visitor`.
 * @property {boolean | 'auto'} [secureCookie] `'auto'` (default): Secure when the request came over TLS or with `X-Forwarded-Proto: https`.
 * @property {RateLimitOptions | false} [rateLimit] Per visitor, POSTs only. Default 30 per minute; `false` turns it off.
 * @property {number} [maxBodyBytes] The largest request body. Default 65,536.
 * @property {(error: unknown) => void} [onError] Told about failures the browser only sees as 502 or a cut stream (the service unreachable, a broken stream). Default: nothing.
 */

/**
 * A request as the three frameworks hand it over: Node's IncomingMessage, plus what Express adds.
 * @typedef {import('node:http').IncomingMessage & { originalUrl?: string, body?: unknown }} ProxyRequest
 */

/**
 * @typedef {object} KoaContext
 * @property {import('node:http').IncomingMessage} req
 * @property {import('node:http').ServerResponse} res
 * @property {string} originalUrl
 * @property {{ body?: unknown }} request
 * @property {boolean} [respond]
 */

/**
 * @typedef {object} ChatProxy
 * @property {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Promise<boolean>} handle
 *   Answers a request for the proxy's paths and resolves `true`; resolves `false` without touching `res` for any other path.
 * @property {(req: ProxyRequest, res: import('node:http').ServerResponse, next: (err?: unknown) => void) => void} express
 *   Express middleware: answers the proxy's paths, calls `next()` for the others.
 * @property {(ctx: KoaContext, next: () => Promise<unknown>) => Promise<void>} koa
 *   Koa middleware: answers the proxy's paths (with `ctx.respond = false`), awaits `next()` for the others.
 */

/**
 * @typedef {object} Config
 * @property {string} chatUrl
 * @property {string} apiKey
 * @property {string} path
 * @property {Buffer} secret
 * @property {string} cookieName
 * @property {boolean | 'auto'} secureCookie
 * @property {RateLimiter | null} limiter
 * @property {number} maxBodyBytes
 * @property {(error: unknown) => void} onError
 */

let warnedAboutSecret = false;

/**
 * Creates the proxy. Throws a TypeError for a missing or invalid option (the message never
 * contains the key).
 * @param {ChatProxyOptions} options
 * @returns {ChatProxy}
 */
export function createChatProxy(options) {
  const config = resolveOptions(options);
  /** @param {ProxyRequest} req @param {import('node:http').ServerResponse} res @param {string | undefined} url @param {unknown} parsed */
  const serve = (req, res, url, parsed) => handleRequest(config, req, res, url ?? req.url ?? '/', parsed);
  return {
    handle: (req, res) =>
      serve(req, res, /** @type {ProxyRequest} */ (req).originalUrl, /** @type {ProxyRequest} */ (req).body),
    express: (req, res, next) => {
      serve(req, res, req.originalUrl, req.body).then((handled) => {
        if (!handled) next();
      }, next);
    },
    koa: async (ctx, next) => {
      if (!route(ctx.originalUrl, config.path)) return void (await next());
      ctx.respond = false;
      await serve(ctx.req, ctx.res, ctx.originalUrl, ctx.request.body);
    },
  };
}

/** @param {ChatProxyOptions} options @returns {Config} */
function resolveOptions(options) {
  if (!options || typeof options !== 'object')
    throw new TypeError('createChatProxy: pass {serviceUrl, agentId, apiKey}');
  const serviceUrl = parseServiceUrl(options.serviceUrl);
  if (typeof options.agentId !== 'string' || !options.agentId.trim())
    throw new TypeError('createChatProxy: agentId is required');
  if (typeof options.apiKey !== 'string' || !/^[\x21-\x7e]+$/.test(options.apiKey)) {
    throw new TypeError(
      'createChatProxy: apiKey is required (an agent key ak_… or a workspace key wk_…, printable ASCII)',
    );
  }
  const path = parsePath(options.path ?? DEFAULTS.path);
  const cookieName = options.cookieName ?? DEFAULTS.cookieName;
  if (typeof cookieName !== 'string' || !COOKIE_NAME.test(cookieName))
    throw new TypeError('createChatProxy: cookieName must be a cookie token (letters, digits, ._-…)');
  const secureCookie = options.secureCookie ?? DEFAULTS.secureCookie;
  if (secureCookie !== true && secureCookie !== false && secureCookie !== 'auto')
    throw new TypeError("createChatProxy: secureCookie must be true, false or 'auto'");
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULTS.maxBodyBytes;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1)
    throw new TypeError('createChatProxy: maxBodyBytes must be a positive integer');
  const rateLimit = options.rateLimit ?? DEFAULTS.rateLimit;
  if (rateLimit !== false) {
    if (
      !rateLimit ||
      !Number.isSafeInteger(rateLimit.max) ||
      rateLimit.max < 1 ||
      !Number.isSafeInteger(rateLimit.windowMs) ||
      rateLimit.windowMs < 1
    ) {
      throw new TypeError('createChatProxy: rateLimit must be false or {max, windowMs} with positive integers');
    }
  }
  if (options.onError !== undefined && typeof options.onError !== 'function')
    throw new TypeError('createChatProxy: onError must be a function');
  return {
    chatUrl: `${serviceUrl}/agents/${encodeURIComponent(options.agentId.trim())}/chat`,
    apiKey: options.apiKey,
    path,
    secret: cookieSecretOf(options.cookieSecret),
    cookieName,
    secureCookie,
    limiter: rateLimit === false ? null : createRateLimiter(rateLimit.max, rateLimit.windowMs),
    maxBodyBytes,
    onError: options.onError ?? (() => {}),
  };
}

/** @param {unknown} value @returns {string} the URL without a trailing slash */
function parseServiceUrl(value) {
  if (typeof value !== 'string') throw new TypeError('createChatProxy: serviceUrl is required (http or https)');
  let url;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError('createChatProxy: serviceUrl must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError('createChatProxy: serviceUrl must be an http(s) URL');
  if (url.username || url.password || url.search || url.hash)
    throw new TypeError('createChatProxy: serviceUrl must have no credentials, query or fragment');
  return url.href.replace(/\/+$/, '');
}

/** @param {unknown} value @returns {string} */
function parsePath(value) {
  if (typeof value !== 'string' || !/^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+\/?$/.test(value)) {
    throw new TypeError("createChatProxy: path must be an absolute path other than '/', e.g. '/chat'");
  }
  return value.replace(/\/$/, '');
}

/** @param {unknown} value @returns {Buffer} */
function cookieSecretOf(value) {
  if (value === undefined || value === '') {
    if (!warnedAboutSecret) {
      warnedAboutSecret = true;
      process.emitWarning(
        'widget-proxy: no cookieSecret given; using a random one, so every visitor becomes a new visitor (and loses their conversations) when this process restarts',
        'WidgetProxyWarning',
      );
    }
    return randomBytes(32);
  }
  if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH)
    throw new TypeError(`createChatProxy: cookieSecret must be at least ${MIN_SECRET_LENGTH} characters`);
  return Buffer.from(value, 'utf8');
}

// ---------------------------------------------------------------------------------------------
// Routing

/**
 * What a request URL names: the chat (`<path>`), a conversation (`<path>/{id}`), something under
 * the path that can name nothing (404), or `null` for a path that is not the proxy's. The path is
 * compared as sent, not decoded, so no escape can make two paths look alike.
 * @param {string} url
 * @param {string} base
 * @returns {{ kind: 'chat' } | { kind: 'history', conversationId: string } | { kind: 'unknown' } | null}
 */
function route(url, base) {
  const pathname = url.split(/[?#]/, 1)[0] ?? '';
  if (pathname === base) return { kind: 'chat' };
  if (!pathname.startsWith(`${base}/`)) return null;
  const rest = pathname.slice(base.length + 1);
  return CONVERSATION_ID.test(rest) ? { kind: 'history', conversationId: rest } : { kind: 'unknown' };
}

/**
 * @param {Config} config
 * @param {ProxyRequest} req
 * @param {import('node:http').ServerResponse} res
 * @param {string} url
 * @param {unknown} parsed A body a parser already read, if any.
 * @returns {Promise<boolean>}
 */
async function handleRequest(config, req, res, url, parsed) {
  const target = route(url, config.path);
  if (!target) return false;
  // The browser going away ends the upstream call, so the service stops the run and frees its slot.
  const upstream = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) upstream.abort();
  });
  try {
    await answer(config, target, req, res, parsed, upstream.signal);
  } catch (err) {
    // Nothing may escape: the caller's server would crash or answer with its own error page.
    if (!upstream.signal.aborted) config.onError(err);
    if (!res.headersSent && !res.destroyed) sendJson(res, 500, { error: 'The chat proxy failed' });
    else res.destroy();
  }
  return true;
}

/**
 * @param {Config} config
 * @param {NonNullable<ReturnType<typeof route>>} target
 * @param {ProxyRequest} req
 * @param {import('node:http').ServerResponse} res
 * @param {unknown} parsed
 * @param {AbortSignal} signal
 * @returns {Promise<void>}
 */
async function answer(config, target, req, res, parsed, signal) {
  if (target.kind === 'unknown') return sendJson(res, 404, { error: 'Not found' });
  const method = (req.method ?? 'GET').toUpperCase();
  if (target.kind === 'chat') {
    if (method !== 'POST')
      return sendJson(res, 405, { error: `Method ${method} is not allowed here: POST a message` }, { allow: 'POST' });
    return postMessage(config, req, res, parsed, signal);
  }
  if (method !== 'GET')
    return sendJson(
      res,
      405,
      { error: `Method ${method} is not allowed here: GET the conversation` },
      { allow: 'GET' },
    );
  const visitor = visitorOf(config, req, res);
  return forward(config, res, {
    method: 'GET',
    url: `${config.chatUrl}/${target.conversationId}`,
    accept: 'application/json',
    visitor,
    signal,
  });
}

/**
 * `POST <path>`: body (415/413/400) → visitor → rate limit (429) → the service.
 * @param {Config} config
 * @param {ProxyRequest} req
 * @param {import('node:http').ServerResponse} res
 * @param {unknown} parsed
 * @param {AbortSignal} signal
 */
async function postMessage(config, req, res, parsed, signal) {
  const body = await readBody(req, parsed, config.maxBodyBytes);
  if ('error' in body)
    return sendJson(res, body.status, { error: body.error }, body.status === 413 ? { connection: 'close' } : {});
  const fields = chatFields(body.value);
  if ('error' in fields) return sendJson(res, 400, { error: fields.error });
  const visitor = visitorOf(config, req, res);
  const retryAfter = config.limiter?.hit(visitor, Date.now()) ?? 0;
  if (retryAfter > 0) {
    return sendJson(
      res,
      429,
      { error: `Too many messages; try again in ${retryAfter} s` },
      { 'retry-after': String(retryAfter) },
    );
  }
  const accept = wantsJson(req.headers.accept) ? 'application/json' : 'text/event-stream';
  await forward(config, res, {
    method: 'POST',
    url: config.chatUrl,
    accept,
    visitor,
    body: JSON.stringify(fields),
    signal,
  });
}

/** Same rule as the service: JSON only when asked for and no event stream is acceptable. @param {string | undefined} accept */
function wantsJson(accept) {
  return /\bapplication\/json\b/i.test(accept ?? '') && !/\btext\/event-stream\b/i.test(accept ?? '');
}

/**
 * The only fields the service gets: `message` and, when set, `conversationId`. The widget sends
 * `conversationId: null` for a new conversation; the service wants it absent.
 * @param {unknown} value
 * @returns {{ message: string, conversationId?: string } | { error: string }}
 */
function chatFields(value) {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return { error: 'Send a JSON object {"message": "…", "conversationId": "…"}' };
  const { message, conversationId } = /** @type {Record<string, unknown>} */ (value);
  if (typeof message !== 'string') return { error: "'message' must be a string" };
  if (conversationId === undefined || conversationId === null || conversationId === '') return { message };
  if (typeof conversationId !== 'string') return { error: "'conversationId' must be a string" };
  return { message, conversationId };
}

// ---------------------------------------------------------------------------------------------
// The request body

/**
 * The JSON body: the one a body parser already read (Express `req.body`, Koa `ctx.request.body`),
 * else read here. Only application/json (or `+json`) is taken, also from a parser: a cross-site
 * HTML form cannot send it, and a page's script can only with the CORS preflight this proxy never
 * answers.
 * @param {ProxyRequest} req
 * @param {unknown} parsed
 * @param {number} limit
 * @returns {Promise<{ value: unknown } | { status: number, error: string }>}
 */
async function readBody(req, parsed, limit) {
  const type =
    String(req.headers['content-type'] ?? '')
      .split(';', 1)[0]
      ?.trim()
      .toLowerCase() ?? '';
  if (type !== 'application/json' && !type.endsWith('+json'))
    return { status: 415, error: 'Send the message as application/json' };
  const tooLarge = { status: 413, error: `The message is too large (limit ${limit} bytes)` };
  if (parsed !== undefined && req.readableEnded) {
    if (typeof parsed === 'string' || Buffer.isBuffer(parsed)) return parseJson(Buffer.from(parsed), limit);
    // Measured on the fields that would be forwarded, so a deep or huge other field cannot cost a serialisation.
    const fields = chatFields(parsed);
    if (!('error' in fields) && Buffer.byteLength(JSON.stringify(fields)) > limit) return tooLarge;
    return { value: parsed };
  }
  const encoding = String(req.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  if (encoding !== 'identity') return { status: 415, error: 'Send the message uncompressed' };
  if (Number(req.headers['content-length'] ?? 0) > limit) return tooLarge;
  const raw = await readRaw(req, limit);
  return raw ? parseJson(raw, limit) : tooLarge;
}

/** @param {Buffer} raw @param {number} limit @returns {{ value: unknown } | { status: number, error: string }} */
function parseJson(raw, limit) {
  if (raw.length > limit) return { status: 413, error: `The message is too large (limit ${limit} bytes)` };
  try {
    return { value: JSON.parse(raw.toString('utf8')) };
  } catch {
    return { status: 400, error: 'The body is not valid JSON' };
  }
}

/**
 * Reads at most `limit` bytes; resolves `null` past it, leaving the rest unread (the 413 answer
 * closes the connection) rather than destroying the socket before that answer is written.
 * @param {import('node:http').IncomingMessage} req
 * @param {number} limit
 * @returns {Promise<Buffer | null>}
 */
function readRaw(req, limit) {
  return new Promise((resolve, reject) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let total = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    /** @param {Buffer} chunk */
    const onData = (chunk) => {
      total += chunk.length;
      if (total > limit) {
        stop();
        req.pause();
        resolve(null);
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    /** @param {Error} err */
    const onError = (err) => {
      stop();
      reject(err);
    };
    const onClose = () => onError(new Error('The client closed the request before sending its body'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

// ---------------------------------------------------------------------------------------------
// The visitor cookie

/** @param {Buffer} secret @param {string} id */
function sign(secret, id) {
  return createHmac('sha256', secret).update(id).digest('base64url');
}

/**
 * The visitor named by a well-signed cookie, or a new one (then Set-Cookie is added to `res`).
 * @param {Config} config
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 * @returns {string}
 */
function visitorOf(config, req, res) {
  for (const value of cookieValues(req.headers.cookie, config.cookieName)) {
    const dot = value.indexOf('.');
    const id = value.slice(0, dot);
    const signature = value.slice(dot + 1);
    if (dot < 0 || !VISITOR_ID.test(id) || !SIGNATURE.test(signature)) continue;
    if (timingSafeEqual(Buffer.from(signature), Buffer.from(sign(config.secret, id)))) return id;
  }
  const id = randomBytes(VISITOR_ID_BYTES).toString('base64url');
  const secure = config.secureCookie === 'auto' ? cameOverTls(req) : config.secureCookie;
  const cookie = `${config.cookieName}=${id}.${sign(config.secret, id)}; Path=${config.path}; Max-Age=${COOKIE_MAX_AGE_SECONDS}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  const earlier = res.getHeader('set-cookie');
  res.setHeader('set-cookie', [
    ...(Array.isArray(earlier) ? earlier : earlier === undefined ? [] : [String(earlier)]),
    cookie,
  ]);
  return id;
}

/** Every value of the named cookie (a browser may send several, e.g. for different paths). @param {string | undefined} header @param {string} name */
function cookieValues(header, name) {
  if (!header) return [];
  return header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair.startsWith(`${name}=`))
    .map((pair) => pair.slice(name.length + 1));
}

/** @param {import('node:http').IncomingMessage} req */
function cameOverTls(req) {
  if (/** @type {import('node:tls').TLSSocket} */ (req.socket)?.encrypted) return true;
  const proto = req.headers['x-forwarded-proto'];
  return (
    String(Array.isArray(proto) ? proto[0] : (proto ?? ''))
      .split(',', 1)[0]
      ?.trim()
      .toLowerCase() === 'https'
  );
}

// ---------------------------------------------------------------------------------------------
// Rate limit

/**
 * @typedef {object} RateLimiter
 * @property {(key: string, now: number) => number} hit Counts a request: 0 when allowed, else the seconds until the window resets.
 */

/**
 * A fixed window per visitor. Entries are re-inserted when their window restarts, so the Map's
 * order is the order of window starts: expired entries sit at its front and are swept from there,
 * and at MAX_TRACKED_VISITORS the oldest live ones are forgotten too (memory stays bounded).
 * @param {number} max
 * @param {number} windowMs
 * @returns {RateLimiter}
 */
function createRateLimiter(max, windowMs) {
  /** @type {Map<string, { count: number, resetAt: number }>} */
  const windows = new Map();
  const sweep = (/** @type {number} */ now) => {
    for (const [key, w] of windows) {
      if (w.resetAt > now && windows.size < MAX_TRACKED_VISITORS) break;
      windows.delete(key);
    }
  };
  return {
    hit(key, now) {
      let w = windows.get(key);
      if (!w || w.resetAt <= now) {
        windows.delete(key);
        sweep(now);
        w = { count: 0, resetAt: now + windowMs };
        windows.set(key, w);
      }
      if (w.count >= max) return Math.max(1, Math.ceil((w.resetAt - now) / 1000));
      w.count++;
      return 0;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The call to the service

/**
 * Calls the service and relays its answer: its status, only content-type, retry-after and
 * cache-control of its headers, and the body chunk by chunk as it arrives.
 * @param {Config} config
 * @param {import('node:http').ServerResponse} res
 * @param {{ method: 'GET' | 'POST', url: string, accept: string, visitor: string, body?: string, signal: AbortSignal }} call
 */
async function forward(config, res, call) {
  /** @type {Record<string, string>} */
  const headers = {
    accept: call.accept,
    'accept-encoding': 'identity',
    'x-agent-access-key': config.apiKey,
    'x-visitor-id': call.visitor,
  };
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  /** @type {Response} */
  let upstream;
  try {
    // No redirects: following one would send the key to wherever it points.
    upstream = await fetch(call.url, {
      method: call.method,
      headers,
      body: call.body,
      signal: call.signal,
      redirect: 'error',
    });
  } catch (err) {
    if (call.signal.aborted) return;
    config.onError(err);
    return sendJson(res, 502, { error: 'The assistant is unreachable' });
  }
  if (res.destroyed) return void (await upstream.body?.cancel().catch(() => {}));
  const type = upstream.headers.get('content-type') ?? 'application/json';
  const stream = /^text\/event-stream\b/i.test(type);
  /** @type {Record<string, string>} */
  const out = {
    'content-type': type,
    'cache-control': stream ? 'no-cache' : (upstream.headers.get('cache-control') ?? 'no-store'),
    'x-accel-buffering': 'no',
  };
  const retryAfter = upstream.headers.get('retry-after');
  if (retryAfter !== null) out['retry-after'] = retryAfter;
  res.writeHead(upstream.status, out);
  res.flushHeaders();
  if (!upstream.body) return void res.end();
  const reader = upstream.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await drained(res);
    }
    res.end();
  } catch (err) {
    if (!call.signal.aborted) config.onError(err);
    res.destroy();
  } finally {
    reader.releaseLock();
  }
}

/** Waits until `res` can take more, or is gone. @param {import('node:http').ServerResponse} res */
function drained(res) {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve(undefined);
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {{ error: string }} body
 * @param {Record<string, string>} [headers]
 */
function sendJson(res, status, body, headers = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}
