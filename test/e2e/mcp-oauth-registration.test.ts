import { expect } from 'chai';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';

// Anonymous dynamic registration is bounded (issue 49, items 1 and 15): one registration's
// metadata (name, redirect URIs, body), the clients it may register (public, https redirects except
// on loopback), how many an address may register in an hour and how many unapproved clients are
// kept. Each refusal is a 4xx with a JSON body a client reads (RFC 7591 `invalid_client_metadata`,
// or 429 with Retry-After), and a refused registration stores no client.

describe('e2e: MCP OAuth registration bounds', function () {
  this.timeout(90_000);
  let svc: E2eService;

  before(async () => {
    svc = await startE2eService('mcp_oauth_registration', {
      env: { OAUTH_UNAPPROVED_CLIENTS_MAX: '4', OAUTH_REGISTRATIONS_PER_ADDRESS_HOUR: '6' },
    });
  });

  after(async () => {
    await svc?.stop();
  });

  const register = (metadata: Record<string, unknown>) =>
    fetch(`${svc.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token_endpoint_auth_method: 'none', ...metadata }),
    });
  const clients = async () =>
    Number(
      ((await svc.service.db('oauth_records').where({ model: 'Client' }).count({ n: '*' })) as { n: unknown }[])[0]!.n,
    );
  const redirect = 'https://app.example.com/callback';

  const refusals: [string, Record<string, unknown>, RegExp][] = [
    [
      'a client_name of 201 characters',
      { client_name: 'n'.repeat(201), redirect_uris: [redirect] },
      /client_name must be at most 200 characters/,
    ],
    [
      '11 redirect URIs',
      { redirect_uris: Array.from({ length: 11 }, (_, i) => `${redirect}/${i}`) },
      /at most 10 URIs/,
    ],
    [
      'a redirect URI of 2,049 characters',
      { redirect_uris: [`${redirect}/${'p'.repeat(2049 - redirect.length - 1)}`] },
      /at most 2048 characters/,
    ],
    [
      'a body over 8 KB',
      { redirect_uris: [redirect], client_uri: `https://app.example.com/${'q'.repeat(8200)}` },
      /at most 8192 bytes/,
    ],
    [
      'an http redirect URI to another host',
      { redirect_uris: ['http://app.example.com/callback'] },
      /http only on a loopback host/,
    ],
    [
      'an http redirect URI to a private address',
      { redirect_uris: ['http://10.0.0.5/callback'] },
      /http only on a loopback host/,
    ],
    [
      'token_endpoint_auth_method private_key_jwt',
      { redirect_uris: [redirect], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [] } },
      /must be none/,
    ],
    [
      'token_endpoint_auth_method client_secret_basic',
      { redirect_uris: [redirect], token_endpoint_auth_method: 'client_secret_basic' },
      /must be none/,
    ],
    [
      'token_endpoint_auth_method client_secret_post',
      { redirect_uris: [redirect], token_endpoint_auth_method: 'client_secret_post' },
      /must be none/,
    ],
  ];
  for (const [label, metadata, description] of refusals) {
    it(`refuses ${label} with 400 invalid_client_metadata, storing no client`, async () => {
      const before = await clients();
      const res = await register(metadata);
      expect(res.status).to.equal(400);
      const body: any = await res.json();
      expect(body.error).to.equal('invalid_client_metadata');
      expect(body.error_description).to.match(description);
      expect(await clients()).to.equal(before);
    });
  }

  it('refuses a body over 8 KB sent without Content-Length (chunked) with 400 invalid_client_metadata, storing no client', async () => {
    const before = await clients();
    const text = JSON.stringify({
      redirect_uris: [redirect],
      token_endpoint_auth_method: 'none',
      client_uri: `https://app.example.com/${'q'.repeat(9000)}`,
    });
    const body = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(text));
        c.close();
      },
    });
    const res = await fetch(`${svc.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).to.equal(400);
    const answer: any = await res.json();
    expect(answer).to.include({ error: 'invalid_client_metadata' });
    expect(answer.error_description).to.contain('8192 bytes');
    expect(await clients()).to.equal(before);
  });

  it('registers the largest client it allows and http redirects on loopback; past the cap on unapproved clients 429 with Retry-After, again once the oldest age out', async () => {
    const accepted = [
      {
        client_name: 'n'.repeat(200),
        redirect_uris: Array.from({ length: 3 }, (_, i) => `${redirect}/${i}/${'p'.repeat(2000)}`),
      },
      { redirect_uris: ['http://localhost:7777/callback'] },
      { redirect_uris: ['http://127.0.0.1:7777/callback'] },
      { redirect_uris: ['http://[::1]:7777/callback'], token_endpoint_auth_method: undefined },
    ];
    for (const m of accepted) {
      const res = await register(m);
      expect(res.status, await res.clone().text()).to.equal(201);
      expect(await res.json()).to.include({ token_endpoint_auth_method: 'none' });
    }
    const full = await register({ redirect_uris: [redirect] });
    expect(full.status).to.equal(429);
    const retry = Number(full.headers.get('retry-after'));
    expect(retry).to.be.within(3590, 3600);
    expect(await full.json()).to.include({ error: 'temporarily_unavailable', reason: 'unapproved_clients' });
    expect(await clients()).to.equal(4);
    // An hour later the unapproved clients are pruned to make room.
    await svc.service
      .db('oauth_records')
      .where({ model: 'Client' })
      .update({
        payload: svc.service.db.raw(`jsonb_set(payload, '{client_id_issued_at}', to_jsonb(?::bigint))`, [
          Math.floor(Date.now() / 1000) - 3601,
        ]),
      });
    const again = await register({ redirect_uris: [redirect] });
    expect(again.status).to.equal(201);
    expect(await clients()).to.equal(1);
  });

  it('past the per-address limit 429 with Retry-After until the hour ends, counted in the database', async () => {
    // Six registrations this hour so far (five admitted, one past the cap); the seventh is refused.
    const res = await register({ redirect_uris: [redirect] });
    expect(res.status).to.equal(429);
    const retry = Number(res.headers.get('retry-after'));
    expect(retry).to.be.within(1, 3600);
    expect(await res.json()).to.include({ error: 'temporarily_unavailable', reason: 'address_rate' });
    const [row] = await svc.service.db('oauth_registration_counts').select('address', 'n');
    expect(row).to.deep.include({ address: '127.0.0.1' });
    expect(Number(row.n)).to.equal(7);
  });

  it("the consent page marks a registered client's name as unverified and shows where the person is sent, prominently, escaped, without script", async () => {
    // This hour's registrations from 127.0.0.1 are spent (above): a new hour, as far as the count goes.
    await svc.service.db('oauth_registration_counts').delete();
    const agent = (await svc.gql('mutation { createAgent(input: { name: "Consent" }) { id } }')).createAgent
      .id as string;
    const redirectUri = 'https://evil.example.net/cb';
    const reg = await fetch(`${svc.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Claude <b>official</b>',
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(reg.status, await reg.clone().text()).to.equal(201);
    const clientId = ((await reg.json()) as any).client_id as string;
    const authorize = new URL(`${svc.url}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      resource: `${svc.url}/agents/${agent}/mcp`,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString();
    const started = await fetch(authorize, { redirect: 'manual' });
    const path = started.headers.get('location')!;
    const cookie = started.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const origin = new URL(svc.url).origin;
    const signIn = await fetch(`${svc.url}${path}/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin },
      body: new URLSearchParams({ token: svc.adminToken }),
      redirect: 'manual',
    });
    expect(signIn.status).to.equal(303);
    const session = signIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('aes_session='))!
      .split(';')[0];
    const res = await fetch(`${svc.url}${path}`, { headers: { cookie: `${cookie}; ${session}` } });
    const html = await res.text();
    expect(res.status).to.equal(200);
    expect(html).to.contain('<span id="client-name">Claude &#60;b&#62;official&#60;/b&#62;</span>');
    expect(html).to.match(/id="name-unverified">\(name chosen by the app itself, not verified\)/);
    expect(html).to.match(
      /<p class="redirect" id="redirect-notice">After you decide, you are sent to <strong id="redirect-host">evil\.example\.net<\/strong>/,
    );
    expect(html).to.not.contain('<script').and.not.contain('<b>');
    expect(res.headers.get('content-security-policy'))
      .to.contain("frame-ancestors 'none'")
      .and.not.contain('script-src');
  });
});
