import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// An OAuth sign-in without a browser: what a hosted MCP client and the person at the consent page do,
// step by step over plain HTTP (redirects followed by hand, a small cookie jar), for tests and
// scripts that need an access token of an agent's MCP server (the conformance runner among them).

/** The tokens a finished sign-in leaves the client with. */
export interface ObtainedTokens {
  accessToken: string;
  refreshToken: string | undefined;
  clientId: string;
}

/** Cookies as a client keeps them between requests: by name and path, dropped when expired. */
class CookieJar {
  private readonly cookies = new Map<string, { value: string; path: string }>();

  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((s) => s.trim());
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const attr = (key: string) =>
        attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      const path = attr('path') ?? '/';
      const gone =
        attr('max-age') === '0' || (attr('expires') !== undefined && Date.parse(attr('expires')!) <= Date.now());
      if (gone) this.cookies.delete(`${name} ${path}`);
      else this.cookies.set(`${name} ${path}`, { value: pair.slice(at + 1), path });
    }
  }

  header(url: URL): string {
    const within = (path: string) =>
      url.pathname === path || url.pathname.startsWith(path.endsWith('/') ? path : `${path}/`);
    return [...this.cookies.entries()]
      .filter(([, c]) => within(c.path))
      .map(([key, c]) => `${key.split(' ')[0]}=${c.value}`)
      .join('; ');
  }
}

async function json(res: Response, what: string): Promise<any> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

const base64url = (b: Buffer) => b.toString('base64url');
const unescapeHtml = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** What the person does on a page of the consent step: follow its refresh, sign in, or allow. */
function nextStep(html: string, memberToken: string): { url: string; body?: URLSearchParams } {
  const refresh = /<meta http-equiv="refresh" content="\d+;url=([^"]+)">/i.exec(html);
  if (refresh) return { url: unescapeHtml(refresh[1]!) };
  const forms = [...html.matchAll(/<form method="post" action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/gi)];
  const signIn = forms.find((f) => /name="token"/.test(f[2]!));
  if (signIn) return { url: unescapeHtml(signIn[1]!), body: new URLSearchParams({ token: memberToken }) };
  const allow = forms.find((f) => /id="approve"/.test(f[2]!));
  if (allow) return { url: unescapeHtml(allow[1]!), body: new URLSearchParams() };
  const text = html
    .replace(/<style>[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  throw new Error(`the consent step showed a page without a way on: ${text.slice(0, 300)}`);
}

/**
 * Signs a new public client in to an agent's MCP server as a hosted client and a member do, without
 * a browser: discovery from the MCP URL's 401, dynamic registration, the authorization request with
 * PKCE (S256) and the resource, the member's sign-in with `memberToken` and approval on the consent
 * page, and the code exchange (`opts.scope`: the scope asked for, `mcp` unless given; null asks for
 * none). Throws, naming the step, when one of them fails.
 */
export async function obtainAccessToken(
  baseUrl: string,
  agentId: string,
  memberToken: string,
  opts: { scope?: string | null } = {},
): Promise<ObtainedTokens> {
  const mcpUrl = `${baseUrl}/agents/${encodeURIComponent(agentId)}/mcp`;
  const challenge = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
  });
  await challenge.body?.cancel();
  const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge.headers.get('www-authenticate') ?? '')?.[1];
  if (challenge.status !== 401 || !metadataUrl)
    throw new Error(`the MCP URL answered ${challenge.status} without a resource_metadata challenge`);
  const prm = await json(await fetch(metadataUrl), 'protected-resource metadata');
  const issuer = String(prm.authorization_servers?.[0] ?? '');
  const as = await json(
    await fetch(`${issuer}/.well-known/oauth-authorization-server`),
    'authorization server metadata',
  );
  if (as.issuer !== issuer) throw new Error(`the authorization server says it is ${as.issuer}, not ${issuer}`);
  if (!as.code_challenge_methods_supported?.includes('S256'))
    throw new Error('the authorization server does not offer PKCE S256');

  // The redirect endpoint: it listens, as a native client's would, but the code is read from the
  // Location header that sends the person there.
  const callback = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/plain' }).end('connected'),
  );
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  try {
    const redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    const registered = await json(
      await fetch(as.registration_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'Plain HTTP client',
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        }),
      }),
      'dynamic registration',
    );
    const clientId = String(registered.client_id);
    const verifier = base64url(randomBytes(32));
    const state = base64url(randomBytes(16));
    const authorize = new URL(as.authorization_endpoint);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: base64url(createHash('sha256').update(verifier).digest()),
      code_challenge_method: 'S256',
      resource: prm.resource,
      state,
    }).toString();
    // A client may leave `scope` out (OAuth 2.1, MCP): `opts.scope` null sends none.
    const scope = opts.scope === undefined ? 'mcp' : opts.scope;
    if (scope !== null) authorize.searchParams.set('scope', scope);

    const code = await consent(authorize, redirectUri, new URL(baseUrl).origin, memberToken);
    if (code.get('error'))
      throw new Error(`the authorization was refused: ${code.get('error')}: ${code.get('error_description') ?? ''}`);
    if (code.get('state') !== state) throw new Error('the redirect carried another state');
    if (code.get('iss') !== issuer) throw new Error(`the redirect names issuer ${code.get('iss')}, not ${issuer}`);
    const tokens = await json(
      await fetch(as.token_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: code.get('code') ?? '',
          redirect_uri: redirectUri,
          client_id: clientId,
          code_verifier: verifier,
          resource: prm.resource,
        }),
      }),
      'code exchange',
    );
    return { accessToken: tokens.access_token, refreshToken: tokens.refresh_token, clientId };
  } finally {
    await new Promise<void>((resolve) => callback.close(() => resolve()));
  }
}

/**
 * From the authorization URL to the redirect back to the client: redirects followed by hand with
 * the jar's cookies, the consent step's pages answered as the person would (forms posted with this
 * service's Origin, as a browser sends it). Returns the redirect's query.
 */
async function consent(start: URL, redirectUri: string, origin: string, memberToken: string): Promise<URLSearchParams> {
  const jar = new CookieJar();
  let url = start;
  let body: URLSearchParams | undefined;
  for (let step = 0; step < 20; step++) {
    const headers: Record<string, string> = {};
    const cookie = jar.header(url);
    if (cookie) headers.cookie = cookie;
    if (body) Object.assign(headers, { origin, 'content-type': 'application/x-www-form-urlencoded' });
    const res = await fetch(url, { method: body ? 'POST' : 'GET', headers, body, redirect: 'manual' });
    jar.store(res);
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      const next = new URL(location, url);
      if (next.href.startsWith(`${redirectUri}?`)) return next.searchParams;
      url = next;
      body = undefined;
      continue;
    }
    const html = await res.text();
    if (!res.ok)
      throw new Error(
        `${body ? 'POST' : 'GET'} ${url.pathname}: HTTP ${res.status}: ${html
          .replace(/<[^>]+>/g, ' ')
          .replace(/\s+/g, ' ')
          .slice(0, 300)}`,
      );
    const next = nextStep(html, memberToken);
    url = new URL(next.url, url);
    body = next.body;
  }
  throw new Error('the consent step did not send the person back to the client within 20 steps');
}
