import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A real OpenID Connect provider (oidc-provider) on 127.0.0.1 for single sign-on tests: one
// confidential client, the people in `users` (any password; the login is the subject), and
// `email_verified` as each person says. The listener starts at once (its issuer URL goes into the
// service's configuration); the provider itself is made when a test names the redirect URI it
// allows (`use`), so that runs which never sign in by SSO never load it.

export interface OidcUser {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface TestOidc {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** OIDC_* variables of a service that signs in here. */
  env: Record<string, string>;
  /** The people who may sign in, by subject (the login typed on the provider's page). */
  users: Map<string, OidcUser>;
  /** Makes the provider (once) with its client allowed to return to `redirectUri`. */
  use(redirectUri: string): Promise<void>;
  /** While down, every request to the provider fails (the connection is destroyed). */
  down: boolean;
  stop(): Promise<void>;
}

// The provider's development pages import a web font from the internet; tests reach only loopback,
// so that import is blanked (same length: Content-Length stays right).
const FONT_IMPORT = /@import url\(https?:[^)]*\);/g;

export async function startTestOidc(): Promise<TestOidc> {
  let handler: http.RequestListener | undefined;
  const server = http.createServer((req, res) => {
    if (oidc.down) return void req.socket.destroy();
    if (!handler) {
      res.writeHead(503).end('provider not started: call use(redirectUri)');
      return;
    }
    blankFontImports(res);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'aes-console';
  const clientSecret = 'test-oidc-client-secret-0123456789';
  const oidc: TestOidc = {
    issuer,
    clientId,
    clientSecret,
    env: { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret, OIDC_NAME: 'Test IdP' },
    users: new Map(),
    down: false,
    async use(redirectUri) {
      if (handler) return;
      const { default: Provider } = await quietly(() => import('oidc-provider'));
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const users = oidc.users;
      const provider = await quietly(
        async () =>
          new Provider(issuer, {
            clients: [
              {
                client_id: clientId,
                client_secret: clientSecret,
                redirect_uris: [redirectUri],
                grant_types: ['authorization_code'],
                response_types: ['code'],
                token_endpoint_auth_method: 'client_secret_post',
              },
            ],
            jwks: {
              keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test', use: 'sig', alg: 'RS256' } as never],
            },
            cookies: { keys: ['test-oidc-cookie-key-0123456789'] },
            claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
            features: { devInteractions: { enabled: true } },
            ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
            async findAccount(_ctx, sub) {
              const user = users.get(sub);
              if (!user) return undefined;
              return { accountId: sub, claims: async () => ({ sub, ...user }) };
            },
          }),
      );
      handler = provider.callback() as http.RequestListener;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return oidc;
}

/** Runs `fn` without oidc-provider's warnings about its development defaults (they are the point here). */
async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const warn = console.warn;
  const info = console.info;
  const keep =
    (f: typeof console.warn) =>
    (...args: unknown[]) =>
      String(args[0]).startsWith('oidc-provider') ? undefined : f(...args);
  console.warn = keep(warn);
  console.info = keep(info);
  try {
    return await fn();
  } finally {
    console.warn = warn;
    console.info = info;
  }
}

function blankFontImports(res: http.ServerResponse): void {
  const end = res.end.bind(res) as (...args: unknown[]) => http.ServerResponse;
  (res as { end: unknown }).end = (chunk?: unknown, ...rest: unknown[]) => {
    const blank = (s: string) => s.replace(FONT_IMPORT, (m) => ' '.repeat(m.length));
    if (typeof chunk === 'string') chunk = blank(chunk);
    else if (Buffer.isBuffer(chunk)) chunk = Buffer.from(blank(chunk.toString('latin1')), 'latin1');
    return end(chunk, ...rest);
  };
}

/** A cookie jar for fetch: one per browser (names are unique enough across the two servers here). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }

  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const gone = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (gone) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** GET or POST without following redirects, sending and storing cookies. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: this.header() },
    });
    this.store(res);
    return res;
  }
}

/** The result of a sign-in at the test provider: the service's last answer and its Location. */
export interface SsoOutcome {
  status: number;
  location: string | null;
  body: string;
  jar: CookieJar;
}

/**
 * Runs single sign-on as a browser would: `/console/sso/start` on the service, the provider's login
 * and consent forms (as `login`), back to the callback. Stops at the service's answer to the
 * callback (or earlier, at any answer from the service that is no redirect to the provider).
 */
export async function ssoSignIn(
  serviceUrl: string,
  login: string,
  opts: { query?: string; jar?: CookieJar; tamper?: (callbackUrl: URL) => void } = {},
): Promise<SsoOutcome> {
  const jar = opts.jar ?? new CookieJar();
  let res = await jar.fetch(`${serviceUrl}/console/sso/start${opts.query ? `?${opts.query}` : ''}`, {
    headers: { accept: 'text/html' },
  });
  let url = `${serviceUrl}/console/sso/start`;
  for (let step = 0; step < 20; step++) {
    const location = res.headers.get('location');
    const next = location ? new URL(location, url) : null;
    // The service's answers end the run, except its redirect to the provider (from /start).
    const toProvider = res.status === 302 && next !== null && !next.href.startsWith(serviceUrl);
    if (url.startsWith(serviceUrl) && !toProvider) return { status: res.status, location, body: await res.text(), jar };
    if (next) {
      if (next.href.startsWith(`${serviceUrl}/console/sso/callback`)) opts.tamper?.(next);
      url = next.href;
      res = await jar.fetch(url, { headers: { accept: 'text/html' } });
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`no form at ${url} (${res.status}): ${html.slice(0, 300)}`);
    const fields = new URLSearchParams();
    for (const m of html.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g))
      fields.set(m[1]!, m[2]!);
    if (/name="login"/.test(html)) {
      fields.set('login', login);
      fields.set('password', 'any password');
    }
    url = new URL(action.replace(/&amp;/g, '&'), url).href;
    res = await jar.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: fields.toString(),
    });
  }
  throw new Error('single sign-on did not finish in 20 steps');
}
