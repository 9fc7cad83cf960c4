import { createHash } from 'node:crypto';
import net from 'node:net';
import { expect } from 'chai';
import { json, type DocServer } from '../helpers/cimd-server.js';
import type { ConsoleHarness } from '../helpers/console-browser.js';
import { agentWithSquareTool, approveInBrowser, startOAuthHarness, TestOAuthClient } from '../helpers/oauth-client.js';
import { inviteNewPerson } from '../helpers/invitations.js';

// Every input of the MCP authorization server is hostile until checked (issue 39): malformed
// registrations, authorization requests, token requests, consent-step posts and bearer tokens are
// each answered with a 4xx and the documented error (never a 5xx), and a refused request writes
// nothing: the authorization server's records and the members' grants are counted before and after.
// Text the client chooses (its name) is stored without breaking the database and shown escaped on
// the consent page, under a CSP that runs no script.

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const LIST = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const VERIFIER = 'verifier-of-the-hostile-test-0123456789-abcdefghijklmnopqrstu';
const CHALLENGE = {
  code_challenge: createHash('sha256').update(VERIFIER).digest('base64url'),
  code_challenge_method: 'S256',
};

describe('e2e: MCP OAuth refuses hostile input', function () {
  this.timeout(180_000);
  let h: ConsoleHarness | null;
  let url: string;
  let origin: string;
  let agent: string;
  let privateAgent: string;
  let mcpOff: string;
  let memberToken: string;
  let client: TestOAuthClient;
  let clientId: string;
  /** What each hostile request was answered with, for the record of the run. */
  const seen: string[] = [];
  let docs: DocServer | undefined;

  before(async function () {
    // Every registration here comes from 127.0.0.1: more than the default hourly allowance.
    ({ h, docs } = await startOAuthHarness('mcp_oauth_hostile', { OAUTH_REGISTRATIONS_PER_ADDRESS_HOUR: '1000' }));
    if (!h) return this.skip();
    url = h.svc.url;
    origin = new URL(url).origin;
    const made = (name: string, visibility = 'WORKSPACE') => agentWithSquareTool(h!, { name, visibility });
    agent = await made('Target');
    privateAgent = await made('Admin only', 'PRIVATE');
    mcpOff = await made('No MCP');
    await h.gql('mutation($a: ID!) { setSurface(agentId: $a, surface: MCP, enabled: false) { id } }', { a: mcpOff });
    const member = (await inviteNewPerson(h.gql, url, { email: 'mo@example.com', name: 'Mo' })).memberId;
    memberToken = (
      await h.gql('mutation($m: ID!) { createMemberToken(memberId: $m, name: "consent") { token } }', { m: member })
    ).createMemberToken.token;
    client = await new TestOAuthClient('Hostile target').start();
    clientId = ((await register(JSON.stringify(client.clientMetadata)).then((r) => r.json())) as any).client_id;
  });

  after(async () => {
    // SHOW_REFUSALS=1 lists what each hostile request was answered with.
    if (process.env.SHOW_REFUSALS && seen.length)
      console.log(`      observed:\n${seen.map((s) => `        ${s}`).join('\n')}`);
    await client?.stop();
    await h?.stop();
    await docs?.close();
  });

  const mcpUrl = (id: string) => `${url}/agents/${id}/mcp`;
  const register = (body: string | Uint8Array, type = 'application/json') =>
    fetch(`${url}/oauth/register`, { method: 'POST', headers: { 'content-type': type }, body });
  const tokenRequest = (body: string | URLSearchParams, headers: Record<string, string> = FORM) =>
    fetch(`${url}/oauth/token`, { method: 'POST', headers, body });
  const authorizeUrl = (
    params: Record<string, string>,
    base: Record<string, string> = {
      response_type: 'code',
      scope: 'mcp',
      resource: mcpUrl(agent),
      client_id: clientId,
      redirect_uri: client.redirectUrl,
      ...CHALLENGE,
    },
  ) => `${url}/oauth/authorize?${new URLSearchParams({ ...base, ...params })}`;
  const authorize = (params: Record<string, string>) => fetch(authorizeUrl(params), { redirect: 'manual' });
  const postMcp = (authorization: string, id = agent) =>
    fetch(mcpUrl(id), { method: 'POST', headers: { ...MCP_HEADERS, authorization }, body: LIST });

  /** Rows of the authorization server's records by model, and the members' grants. */
  const counts = async (): Promise<Record<string, number>> => {
    const db = h!.svc.service.db;
    const rows: { model: string; n: unknown }[] = await db('oauth_records')
      .select('model')
      .count({ n: '*' })
      .groupBy('model');
    const [grants] = await db('mcp_grants').count({ n: '*' });
    return {
      ...Object.fromEntries(rows.map((r) => [r.model, Number(r.n)])),
      grants: Number((grants as { n: unknown }).n),
    };
  };

  /** Sends a hostile request: it is refused with a 4xx, and nothing is stored. */
  async function refused(
    label: string,
    send: () => Promise<Response>,
  ): Promise<{ res: Response; text: string; body: any }> {
    const before = await counts();
    const res = await send();
    const text = await res.text();
    let body: any = null;
    try {
      body = JSON.parse(text);
    } catch {
      // An HTML page (the provider's error page, the consent step's).
    }
    seen.push(`${label}: ${res.status}${body?.error ? ` ${body.error}` : ''}`);
    expect(res.status, `${label}: ${text.slice(0, 300)}`).to.be.within(400, 499);
    expect(await counts(), `${label} stored nothing`).to.deep.equal(before);
    return { res, text, body };
  }

  /** An authorization refused by redirecting the person back to the client with an error. */
  async function sentBack(label: string, params: Record<string, string>, error: string): Promise<URL> {
    const before = await counts();
    const res = await authorize(params);
    expect(res.status, `${label}: ${res.status}`).to.be.within(302, 303);
    const back = new URL(res.headers.get('location')!);
    // A response type other than `code` answers in the fragment (its default response mode).
    const answer = back.hash ? new URLSearchParams(back.hash.slice(1)) : back.searchParams;
    seen.push(
      `${label}: ${res.status} → redirect error=${answer.get('error')}${back.hash ? ' (in the fragment)' : ''}`,
    );
    expect(back.origin + back.pathname, label).to.equal(client.redirectUrl);
    expect(answer.get('error'), `${label}: ${answer.get('error_description')}`).to.equal(error);
    expect(answer.get('code'), label).to.equal(null);
    expect(await counts(), `${label} stored nothing`).to.deep.equal(before);
    return back;
  }

  describe('POST /oauth/register', () => {
    const metadata = (over: Record<string, unknown>) => JSON.stringify({ ...client.clientMetadata, ...over });
    const refusals: [string, () => Promise<Response>, string[]][] = [
      [
        'a body that is not JSON',
        () => register('{"client_name": "half'),
        ['invalid_request', 'invalid_client_metadata'],
      ],
      [
        'a JSON array',
        () => register(JSON.stringify([client.clientMetadata])),
        ['invalid_request', 'invalid_client_metadata'],
      ],
      ['a JSON string', () => register('"client"'), ['invalid_request', 'invalid_client_metadata']],
      [
        'a form body',
        () =>
          register(
            new URLSearchParams({ client_name: 'x', redirect_uris: 'https://app.example.com/cb' }).toString(),
            'application/x-www-form-urlencoded',
          ),
        ['invalid_request', 'invalid_client_metadata'],
      ],
      [
        'redirect_uris missing',
        () => register(JSON.stringify({ client_name: 'No redirect', token_endpoint_auth_method: 'none' })),
        ['invalid_redirect_uri', 'invalid_client_metadata'],
      ],
      [
        'redirect_uris not an array',
        () => register(metadata({ redirect_uris: 'https://app.example.com/cb' })),
        ['invalid_redirect_uri', 'invalid_client_metadata'],
      ],
      [
        'redirect_uris empty',
        () => register(metadata({ redirect_uris: [] })),
        ['invalid_redirect_uri', 'invalid_client_metadata'],
      ],
      [
        'a redirect URI that is not a string',
        () => register(metadata({ redirect_uris: [{ href: 'https://app.example.com/cb' }] })),
        ['invalid_redirect_uri', 'invalid_client_metadata'],
      ],
      [
        'a javascript: redirect URI',
        () => register(metadata({ redirect_uris: ['javascript:alert(1)'] })),
        ['invalid_redirect_uri', 'invalid_client_metadata'],
      ],
      [
        'a data: redirect URI',
        () => register(metadata({ redirect_uris: ['data:text/html,<script>alert(1)</script>'] })),
        ['invalid_redirect_uri', 'invalid_client_metadata'],
      ],
      [
        'a redirect URI with a fragment',
        () => register(metadata({ redirect_uris: ['https://app.example.com/cb#frag'] })),
        ['invalid_redirect_uri', 'invalid_client_metadata'],
      ],
      [
        'a relative redirect URI',
        () => register(metadata({ redirect_uris: ['/callback'] })),
        ['invalid_redirect_uri', 'invalid_client_metadata'],
      ],
      [
        'grant_types with implicit',
        () => register(metadata({ grant_types: ['implicit'] })),
        ['invalid_client_metadata'],
      ],
      [
        'grant_types with client_credentials',
        () => register(metadata({ grant_types: ['authorization_code', 'client_credentials'] })),
        ['invalid_client_metadata'],
      ],
      [
        'grant_types with password',
        () => register(metadata({ grant_types: ['password'] })),
        ['invalid_client_metadata'],
      ],
      [
        'grant_types not an array',
        () => register(metadata({ grant_types: 'authorization_code' })),
        ['invalid_client_metadata'],
      ],
      ['response_types token', () => register(metadata({ response_types: ['token'] })), ['invalid_client_metadata']],
      [
        'token_endpoint_auth_method junk',
        () => register(metadata({ token_endpoint_auth_method: 'junk' })),
        ['invalid_client_metadata'],
      ],
      [
        'token_endpoint_auth_method not a string',
        () => register(metadata({ token_endpoint_auth_method: ['none'] })),
        ['invalid_client_metadata'],
      ],
      [
        'client_name not a string',
        () => register(metadata({ client_name: { first: 'x' } })),
        ['invalid_client_metadata'],
      ],
    ];
    for (const [label, send, errors] of refusals) {
      it(`refuses ${label} (400, ${errors.join(' or ')}), storing nothing`, async () => {
        const { res, body } = await refused(`register: ${label}`, send);
        expect(res.status).to.equal(400);
        expect(body?.error).to.be.oneOf(errors);
      });
    }

    it('refuses a 2 MB body unread (400 invalid_client_metadata: a registration is at most 8 KB), storing nothing', async () => {
      const huge = metadata({ client_name: 'x'.repeat(2 * 1024 * 1024) });
      const { res, body } = await refused('register: a 2 MB body', () => register(huge));
      expect(res.status).to.equal(400);
      expect(body).to.include({ error: 'invalid_client_metadata' });
      expect(body.error_description).to.contain('8192 bytes');
    });

    it('stores a client_name with U+0000 and lone surrogates (as U+FFFD) and reads the client back', async () => {
      const name = 'Nul\u0000 high\uD800 low\uDC00 end';
      const res = await register(metadata({ client_name: name }));
      seen.push(`register: client_name with U+0000 and lone surrogates: ${res.status}`);
      expect(res.status).to.equal(201);
      const made: any = await res.json();
      const row = await h!.svc.service.db('oauth_records').where({ model: 'Client', id: made.client_id }).first();
      const stored = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload).client_name as string;
      expect(stored).to.equal('Nul\uFFFD high\uFFFD low\uFFFD end');
      // The client is usable: an authorization with it goes on to the consent step.
      const auth = await fetch(authorizeUrl({ client_id: made.client_id }), { redirect: 'manual' });
      expect(auth.status, await auth.text()).to.equal(303);
      expect(auth.headers.get('location')).to.match(/^\/oauth\/interaction\//);
    });
  });

  describe('GET /oauth/authorize', () => {
    const pageRefusals: [string, () => Promise<Response>, RegExp][] = [
      ['no parameters', () => fetch(`${url}/oauth/authorize`, { redirect: 'manual' }), /invalid_request|client_id/],
      [
        'no client_id',
        () =>
          fetch(authorizeUrl({}, { response_type: 'code', redirect_uri: 'https://app.example.com/cb', ...CHALLENGE }), {
            redirect: 'manual',
          }),
        /invalid_request|client_id/,
      ],
      [
        'a duplicated client_id',
        () => fetch(`${authorizeUrl({})}&client_id=${encodeURIComponent(clientId)}`, { redirect: 'manual' }),
        /invalid_request|client_id/,
      ],
      ['an unknown client_id', () => authorize({ client_id: 'no-such-client' }), /invalid_client/],
      ['a 10 KB client_id', () => authorize({ client_id: 'c'.repeat(10 * 1024) }), /invalid_client|invalid_request/],
      [
        'a 10 KB metadata-document client_id',
        () => authorize({ client_id: `https://app.example.com/${'c'.repeat(10 * 1024)}` }),
        /invalid_client|invalid_request/,
      ],
      ['a javascript: redirect_uri', () => authorize({ redirect_uri: 'javascript:alert(1)' }), /redirect_uri/],
      ['a client_id holding U+0000', () => authorize({ client_id: 'client\u0000id' }), /invalid_client/],
      [
        'a client_id holding a lone surrogate (URL-encoded as U+FFFD)',
        () => authorize({ client_id: 'client\uD800id' }),
        /invalid_client/,
      ],
    ];
    for (const [label, send, error] of pageRefusals) {
      it(`answers ${label} with an error page (400), never a redirect, storing nothing`, async () => {
        const { res, text } = await refused(`authorize: ${label}`, send);
        expect(res.status).to.equal(400);
        expect(res.headers.get('location')).to.equal(null);
        expect(text).to.match(error);
        expect(res.headers.get('content-security-policy'))
          .to.contain("default-src 'none'")
          .and.not.contain('script-src');
      });
    }

    const redirectRefusals: [string, Record<string, string>, string][] = [
      ['a duplicated scope', { scope: 'mcp' }, 'invalid_request'],
      ['response_type=token', { response_type: 'token' }, 'unsupported_response_type'],
      ['code_challenge_method=plain', { code_challenge_method: 'plain', code_challenge: VERIFIER }, 'invalid_request'],
      ['no code_challenge', { code_challenge: '' }, 'invalid_request'],
      ['a resource on another origin', { resource: `https://evil.example.com/agents/${agent}/mcp` }, 'invalid_target'],
      ['a resource that is not a URL', { resource: 'not a url' }, 'invalid_target'],
      ['a resource naming an agent that does not exist', { resource: '' }, 'invalid_target'],
      ['a resource whose agent has its MCP server off', { resource: '' }, 'invalid_target'],
      ['a resource with a query', { resource: '' }, 'invalid_target'],
    ];
    for (const [label, params, error] of redirectRefusals) {
      it(`sends ${label} back to the client with ${error}, storing nothing`, async () => {
        const p = { ...params };
        if (label.includes('does not exist')) p.resource = `${url}/agents/agt_nope/mcp`;
        if (label.includes('MCP server off')) p.resource = mcpUrl(mcpOff);
        if (label.includes('with a query')) p.resource = `${mcpUrl(agent)}?x=1`;
        if (label.includes('duplicated scope')) {
          const before = await counts();
          const res = await fetch(`${authorizeUrl({})}&scope=mcp`, { redirect: 'manual' });
          const where = res.headers.get('location');
          seen.push(
            `authorize: ${label}: ${res.status}${where ? ` → redirect error=${new URL(where, url).searchParams.get('error')}` : ''}`,
          );
          expect(res.status).to.be.within(302, 400);
          expect(where && new URL(where, url).searchParams.get('error')).to.equal(error);
          expect(await counts()).to.deep.equal(before);
          return;
        }
        await sentBack(`authorize: ${label}`, p, error);
      });
    }
  });

  describe('POST /oauth/token', () => {
    const refusals: [string, () => Promise<Response>, string[]][] = [
      [
        'a junk grant_type',
        () => tokenRequest(new URLSearchParams({ grant_type: 'junk', client_id: clientId })),
        ['unsupported_grant_type'],
      ],
      ['no grant_type', () => tokenRequest(new URLSearchParams({ client_id: clientId })), ['invalid_request']],
      [
        'client_credentials',
        () => tokenRequest(new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId })),
        ['unsupported_grant_type', 'unauthorized_client'],
      ],
      [
        'an unknown code',
        () =>
          tokenRequest(
            new URLSearchParams({
              grant_type: 'authorization_code',
              code: 'no-such-code',
              client_id: clientId,
              redirect_uri: client.redirectUrl,
              code_verifier: VERIFIER,
            }),
          ),
        ['invalid_grant'],
      ],
      [
        'an unknown refresh token',
        () =>
          tokenRequest(
            new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'r'.repeat(600), client_id: clientId }),
          ),
        ['invalid_grant'],
      ],
      [
        'a client_id holding U+0000',
        () =>
          tokenRequest(
            new URLSearchParams({ grant_type: 'authorization_code', code: 'x', client_id: 'client\u0000id' }),
          ),
        ['invalid_client'],
      ],
      [
        'revocation by a client_id holding U+0000',
        () =>
          fetch(`${url}/oauth/revoke`, {
            method: 'POST',
            headers: FORM,
            body: new URLSearchParams({ token: 'x', client_id: 'client\u0000id' }),
          }),
        ['invalid_client'],
      ],
      [
        'an unknown client',
        () =>
          tokenRequest(
            new URLSearchParams({ grant_type: 'authorization_code', code: 'x', client_id: 'no-such-client' }),
          ),
        ['invalid_client'],
      ],
      [
        'a JSON body',
        () =>
          tokenRequest(JSON.stringify({ grant_type: 'authorization_code', code: 'x', client_id: clientId }), {
            'content-type': 'application/json',
          }),
        ['invalid_request'],
      ],
      [
        'a text body',
        () => tokenRequest('grant_type=authorization_code', { 'content-type': 'text/plain' }),
        ['invalid_request'],
      ],
      [
        'a duplicated grant_type',
        () =>
          tokenRequest(
            `grant_type=authorization_code&grant_type=refresh_token&client_id=${encodeURIComponent(clientId)}`,
          ),
        ['invalid_request'],
      ],
      [
        'a 2 MB form',
        () =>
          tokenRequest(
            new URLSearchParams({
              grant_type: 'authorization_code',
              code: 'c'.repeat(2 * 1024 * 1024),
              client_id: clientId,
            }),
          ),
        ['invalid_request'],
      ],
    ];
    for (const [label, send, errors] of refusals) {
      it(`refuses ${label} (4xx, ${errors.join(' or ')}), storing nothing`, async () => {
        const { res, body } = await refused(`token: ${label}`, send);
        if (res.status !== 413) expect(body?.error, label).to.be.oneOf(errors);
      });
    }

    it('refuses a code used a second time (invalid_grant) and revokes what its first use issued (RFC 6749 §4.1.2)', async () => {
      client.authorizationUrl = new URL(authorizeUrl({}));
      const code = (await approveInBrowser(h!.page, client, h!.adminToken)).get('code')!;
      const exchange = () =>
        tokenRequest(
          new URLSearchParams({
            grant_type: 'authorization_code',
            code,
            client_id: clientId,
            redirect_uri: client.redirectUrl,
            code_verifier: VERIFIER,
            resource: mcpUrl(agent),
          }),
        );
      const first = await exchange();
      expect(first.status).to.equal(200);
      const tokens: any = await first.json();
      expect((await postMcp(`Bearer ${tokens.access_token}`)).status).to.equal(200);
      const grantsBefore = (await h!.svc.service.store.repos.mcpGrants.listByAgent(agent)).filter(
        (g) => g.clientId === clientId,
      ).length;
      expect(grantsBefore).to.equal(1);

      const replay = await exchange();
      const body: any = await replay.json();
      seen.push(`token: a code replayed after success: ${replay.status} ${body.error}`);
      expect(replay.status).to.equal(400);
      expect(body.error).to.equal('invalid_grant');
      expect(body.access_token).to.equal(undefined);
      expect((await postMcp(`Bearer ${tokens.access_token}`)).status, "the first use's access token").to.equal(401);
      const refresh = await tokenRequest(
        new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId }),
      );
      expect(refresh.status, "the first use's refresh token").to.equal(400);
      expect(
        (await h!.svc.service.store.repos.mcpGrants.listByAgent(agent)).some((g) => g.clientId === clientId),
        'the grant ends',
      ).to.equal(false);
    });
  });

  describe('the consent step', () => {
    /** An authorization request begun without a browser: its interaction's page and cookies. */
    async function begin(resource = mcpUrl(agent), id = clientId): Promise<{ path: string; cookie: string }> {
      const res = await fetch(authorizeUrl({ resource, client_id: id }), { redirect: 'manual' });
      expect(res.status, await res.text()).to.equal(303);
      const path = res.headers.get('location')!;
      expect(path).to.match(/^\/oauth\/interaction\/[\w-]+$/);
      return {
        path,
        cookie: res.headers
          .getSetCookie()
          .map((c) => c.split(';')[0])
          .join('; '),
      };
    }
    /** Signs in on the consent step with a member token; the cookies then hold the console session. */
    async function signedIn(start: { path: string; cookie: string }, token: string): Promise<string> {
      const res = await fetch(`${url}${start.path}/signin`, {
        method: 'POST',
        headers: { ...FORM, cookie: start.cookie, origin },
        body: new URLSearchParams({ token }),
        redirect: 'manual',
      });
      expect(res.status, await res.text()).to.equal(303);
      const session = res.headers
        .getSetCookie()
        .find((c) => c.startsWith('aes_session='))!
        .split(';')[0];
      return `${start.cookie}; ${session}`;
    }

    it('an unknown interaction is a page saying it expired (400)', async () => {
      const { res, text } = await refused('consent: GET an unknown interaction', () =>
        fetch(`${url}/oauth/interaction/no-such-uid`),
      );
      expect(res.status).to.equal(400);
      expect(text).to.contain('expired');
      for (const step of ['confirm', 'deny']) {
        const post = await refused(`consent: POST ${step} of an unknown interaction`, () =>
          fetch(`${url}/oauth/interaction/no-such-uid/${step}`, { method: 'POST', headers: { origin } }),
        );
        expect(post.res.status).to.equal(400);
      }
    });

    it("an interaction's cookie does not open another interaction, nor resume one it does not belong to (400)", async () => {
      const first = await begin();
      const second = await begin();
      const cookie = await signedIn(first, h!.adminToken);
      for (const step of ['confirm', 'deny']) {
        const { res, text } = await refused(`consent: POST ${step} of another interaction with this one's cookie`, () =>
          fetch(`${url}${second.path}/${step}`, { method: 'POST', headers: { cookie, origin }, redirect: 'manual' }),
        );
        expect(res.status).to.equal(400);
        expect(text).to.contain('expired');
      }
      const uid = second.path.split('/').pop()!;
      const { res } = await refused('authorize: resume an interaction without its cookies', () =>
        fetch(`${url}/oauth/authorize/${uid}`, { redirect: 'manual' }),
      );
      expect(res.status).to.equal(400);
    });

    it('odd interaction ids and agent ids in paths are answered 4xx', async () => {
      for (const path of [
        '/oauth/interaction/%E0%A4%A',
        '/oauth/interaction/%00',
        `/oauth/interaction/${'u'.repeat(10_000)}`,
        '/oauth/interaction/x/signin',
      ]) {
        const { res } = await refused(`consent: GET ${path.slice(0, 40)}`, () => fetch(`${url}${path}`));
        expect(res.status, path.slice(0, 40)).to.be.oneOf([400, 404, 405]);
      }
      for (const id of ['%E0%A4%A', '%00', 'a'.repeat(10_000), '..%2F..%2Fgraphql']) {
        const { res } = await refused(`metadata: protected resource of agent ${id.slice(0, 20)}`, () =>
          fetch(`${url}/.well-known/oauth-protected-resource/agents/${id}/mcp`),
        );
        expect(res.status, id.slice(0, 20)).to.equal(404);
      }
    });

    it('confirm, deny and sign-in without an Origin header, or from another origin, are refused (403) and grant nothing', async () => {
      const start = await begin();
      const cookie = await signedIn(start, h!.adminToken);
      for (const step of ['confirm', 'deny', 'signin']) {
        for (const [how, headers] of [
          ['no Origin', {}],
          ['another Origin', { origin: 'https://evil.example.com' }],
          ['Origin null', { origin: 'null' }],
        ] as const) {
          const { res, text } = await refused(`consent: POST ${step} with ${how}`, () =>
            fetch(`${url}${start.path}/${step}`, {
              method: 'POST',
              headers: { ...FORM, cookie, ...headers },
              body: step === 'signin' ? new URLSearchParams({ token: h!.adminToken }) : '',
              redirect: 'manual',
            }),
          );
          expect(res.status).to.equal(403);
          expect(text).to.contain('Request refused');
        }
      }
    });

    it('a wrong member token is answered 401 with the sign-in page again, and no session', async () => {
      const start = await begin();
      for (const token of ['wrong-token', 'mt_' + 'x'.repeat(40), '', 'x'.repeat(9000), 'nul\u0000token']) {
        const { res, text } = await refused(`consent: sign in with a wrong token (${token.length} chars)`, () =>
          fetch(`${url}${start.path}/signin`, {
            method: 'POST',
            headers: { ...FORM, cookie: start.cookie, origin },
            body: new URLSearchParams({ token }),
            redirect: 'manual',
          }),
        );
        expect(res.status, token.slice(0, 20)).to.be.oneOf([401, 413]);
        if (res.status === 401) expect(text).to.contain('Member token');
        expect(
          res.headers.getSetCookie().some((c) => c.startsWith('aes_session=')),
          'a session',
        ).to.equal(false);
      }
    });

    it('a member who cannot see the agent (private to its creator) gets a refusal page on the consent page and on confirm, and no grant', async () => {
      const start = await begin(mcpUrl(privateAgent));
      const cookie = await signedIn(start, memberToken);
      const page = await refused('consent: GET the consent page as a member who cannot see the agent', () =>
        fetch(`${url}${start.path}`, { headers: { cookie } }),
      );
      expect(page.res.status).to.be.oneOf([403, 404]);
      expect(page.text).to.contain('cannot be connected').and.not.contain('id="approve"');
      const confirm = await refused('consent: POST confirm as a member who cannot see the agent', () =>
        fetch(`${url}${start.path}/confirm`, { method: 'POST', headers: { cookie, origin }, redirect: 'manual' }),
      );
      expect(confirm.res.status).to.be.oneOf([403, 404]);
      expect(confirm.text).to.contain('cannot be connected');
    });

    it('a metadata document whose client_name holds U+0000 is approved without a 500: the grant keeps U+FFFD', async function () {
      if (!docs) return this.skip();
      const id = `${docs.origin}/oauth/nul-client.json`;
      docs.handler = json({
        client_id: id,
        client_name: 'Doc\u0000name',
        redirect_uris: [client.redirectUrl],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
      });
      const start = await begin(mcpUrl(agent), id);
      const cookie = await signedIn(start, h!.adminToken);
      const page = await fetch(`${url}${start.path}`, { headers: { cookie } });
      expect(page.status).to.equal(200);
      expect(await page.text()).to.contain('Doc\uFFFDname');
      const before = await counts();
      const confirm = await fetch(`${url}${start.path}/confirm`, {
        method: 'POST',
        headers: { cookie, origin },
        redirect: 'manual',
      });
      seen.push(`consent: confirm of a metadata-document client whose client_name holds U+0000: ${confirm.status}`);
      expect(confirm.status, await confirm.text()).to.equal(303);
      const grant = (await h!.svc.service.store.repos.mcpGrants.listByAgent(agent)).find((g) => g.clientId === id);
      expect(grant?.clientName).to.equal('Doc\uFFFDname');
      expect(await counts()).to.deep.include({ Grant: (before.Grant ?? 0) + 1, grants: before.grants + 1 });
    });

    it('shows a client name with markup escaped, under a CSP without script-src; a name with U+0000 renders too', async () => {
      for (const [name, shown] of [
        ['<script>alert(1)</script>', '&#60;script&#62;alert(1)&#60;/script&#62;'],
        ['Nul\u0000"quoted" & \uD800', 'Nul\uFFFD&#34;quoted&#34; &#38; \uFFFD'],
      ] as const) {
        const odd = await new TestOAuthClient(name).start();
        try {
          const reg = await register(JSON.stringify(odd.clientMetadata));
          expect(reg.status).to.equal(201);
          const id = ((await reg.json()) as any).client_id;
          const before = await fetch(authorizeUrl({ client_id: id, redirect_uri: odd.redirectUrl }), {
            redirect: 'manual',
          });
          const path = before.headers.get('location')!;
          const cookie = await signedIn(
            {
              path,
              cookie: before.headers
                .getSetCookie()
                .map((c) => c.split(';')[0])
                .join('; '),
            },
            h!.adminToken,
          );
          const res = await fetch(`${url}${path}`, { headers: { cookie } });
          const html = await res.text();
          seen.push(`consent: page for client_name ${JSON.stringify(name)}: ${res.status}`);
          expect(res.status, html.slice(0, 300)).to.equal(200);
          expect(html).to.contain(shown).and.contain('id="approve"');
          expect(html).to.not.contain('<script');
          const csp = res.headers.get('content-security-policy')!;
          expect(csp).to.contain("default-src 'none'").and.not.contain('script-src');
        } finally {
          await odd.stop();
        }
      }
    });
  });

  describe('the MCP URL with a bad bearer token', () => {
    const expectChallenge = (res: Response, label: string) => {
      expect(res.status, label).to.equal(401);
      const challenge = res.headers.get('www-authenticate') ?? '';
      expect(challenge, label)
        .to.contain(`resource_metadata="${url}/.well-known/oauth-protected-resource/agents/${agent}/mcp"`)
        .and.contain('error="invalid_token"');
    };

    it('refuses junk of 600 characters, a member token and a workspace key with 401 and the challenge, storing nothing', async () => {
      const mt = memberToken;
      expect(mt).to.match(/^mt_/);
      for (const [label, value] of [
        ['junk of 600 characters', `Bearer ${'j'.repeat(600)}`],
        ['junk of 8 KB', `Bearer ${'j'.repeat(8 * 1024)}`],
        ['a member token', `Bearer ${mt}`],
        ['the admin token', `Bearer ${h!.adminToken}`],
        ['a token with spaces', 'Bearer a b c'],
      ] as const) {
        const { res } = await refused(`MCP: Bearer ${label}`, () => postMcp(value));
        expectChallenge(res, label);
      }
    });

    it('refuses a bearer token holding U+0000 with a 4xx, never a 5xx', async () => {
      // fetch refuses to send such a header: the request is written by hand.
      const raw = await new Promise<string>((resolve, reject) => {
        const { hostname, port } = new URL(url);
        const socket = net.connect(Number(port), hostname, () => {
          socket.write(
            `POST /agents/${agent}/mcp HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nAuthorization: Bearer abc\u0000def\r\nContent-Length: ${LIST.length}\r\nConnection: close\r\n\r\n${LIST}`,
          );
        });
        let data = '';
        socket.on('data', (d) => (data += d.toString('latin1')));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
      seen.push(`MCP: Bearer + U+0000: ${status}`);
      expect(status, raw.slice(0, 300)).to.be.within(400, 499);
    });
  });
});
