import { expect } from 'chai';
import { getIntrospectionQuery } from 'graphql';
import { createAgent, errorCode, gql, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';

/** The reproduction (903 bytes for n = 22): `{ ...Gn }` where each fragment spreads the previous one twice (2^n `__typename`). */
const fragmentBomb = (n: number) =>
  [
    `query { ...G${n} }`,
    ...Array.from({ length: n }, (_, i) => `fragment G${n - i} on Query { ...G${n - i - 1} ...G${n - i - 1} }`),
    'fragment G0 on Query { __typename }',
  ].join('\n');

describe('GraphQL transport: auth, limits, errors, batching', () => {
  let ws: TestWorkspace;
  before(async () => {
    ws = await newWorkspace();
  });

  it('answers 401 UNAUTHENTICATED without a token, with a malformed header, or with an unknown token', async () => {
    for (const headers of [
      {},
      { authorization: 'Basic abc' },
      { authorization: 'Bearer mt_notarealtokenatallnotarealtoken' },
    ] as Record<string, string>[]) {
      const res = await fetch(`${h().url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query: '{ viewer { id } }' }),
      });
      expect(res.status).to.equal(401);
      const body = (await res.json()) as any;
      expect(body.errors[0].extensions.code).to.equal('UNAUTHENTICATED');
      expect(body.data).to.equal(undefined);
    }
  });

  it('accepts the bootstrap ADMIN_TOKEN as the admin of the default workspace', async () => {
    const d = await gqlOk('bootstrap-admin-token-for-tests', '{ viewer { role email } workspace { name } }');
    expect(d.viewer.role).to.equal('ADMIN');
    expect(d.workspace.name).to.equal('Default workspace');
  });

  it('refuses an operation selecting more than 1000 fields with a clear message', async () => {
    const fields = Array.from({ length: 1001 }, (_, i) => `a${i}: id`).join(' ');
    const r = await gql(ws.adminToken, `{ agents { ${fields} } }`);
    expect(r.status).to.equal(400);
    expect(r.errors![0]!.message).to.match(/more than 1000 fields/);
    expect(errorCode(r)).to.equal('GRAPHQL_VALIDATION_FAILED');
  });

  it('refuses the fragment bomb (G0..G22, and one level more) in validation: 400 and no data', async () => {
    for (const n of [22, 23]) {
      const r = await gql(ws.adminToken, fragmentBomb(n));
      expect(r.status).to.equal(400);
      expect(errorCode(r)).to.equal('GRAPHQL_VALIDATION_FAILED');
      expect(r.errors!.map((e) => e.message)).to.have.length(1);
      expect(r.errors![0]!.message).to.match(/^Query may return more than 1000 fields/);
      expect(r.data).to.equal(undefined);
    }
  });

  it('counts a list by its page size: 200 activity entries of five fields are refused before they run', async () => {
    const agentId = await createAgent(ws.adminToken, { name: 'paged' });
    const page = (n: number) =>
      `query($a: ID!) { agent(id: $a) { activity(first: ${n}) { nodes { id kind surface status credits } } } }`;
    const r = await gql(ws.adminToken, page(200), { a: agentId });
    expect(r.status).to.equal(400);
    expect(errorCode(r)).to.equal('GRAPHQL_VALIDATION_FAILED');
    expect(r.data).to.equal(undefined);
    expect((await gqlOk(ws.adminToken, page(199), { a: agentId })).agent.activity.nodes).to.deep.equal([]);
  });

  it("answers a member's standard introspection query and refuses introspection one level deeper", async () => {
    const member = await ws.addMember();
    const d = await gqlOk(member.token, getIntrospectionQuery());
    expect(d.__schema.queryType.name).to.equal('Query');
    expect(d.__schema.types.map((t: { name: string }) => t.name)).to.include.members(['Agent', 'Model']);
    const deep = `{ __type(name: "Query") { fields { type { ${'ofType { '.repeat(12)}name${' }'.repeat(12)} } } } }`;
    const r = await gql(member.token, deep);
    expect(r.status).to.equal(400);
    expect(r.errors![0]!.message).to.equal('Introspection query is nested 16 levels deep; the limit is 15');
  });

  it('refuses a document of more than 15,000 tokens as a syntax error rather than failing with 500', async () => {
    // A chain of 6,000 fragments is deep enough to exhaust the stack of GraphQL's own validation.
    const chain = [
      '{ ...C6000 }',
      ...Array.from({ length: 6000 }, (_, i) => `fragment C${6000 - i} on Query { ...C${5999 - i} }`),
      'fragment C0 on Query { __typename }',
    ];
    const r = await gql(ws.adminToken, chain.join('\n'));
    expect(r.status).to.equal(400);
    expect(errorCode(r)).to.equal('GRAPHQL_PARSE_FAILED');
    expect(r.errors![0]!.message).to.match(/more tha[nt] 15000 tokens/);
  });

  it('never returns a stack trace, and reports malformed JSON as 400', async () => {
    const r = await gql(ws.adminToken, `mutation { updateAgent(id: "agt_x", input: {name: "y"}) { id } }`);
    // The whole answer: the domain error's message and code, and nothing else (no stacktrace extension).
    expect(r).to.deep.equal({
      status: 200,
      data: null,
      errors: [
        {
          message: "Agent 'agt_x' not found",
          locations: [{ line: 1, column: 12 }],
          path: ['updateAgent'],
          extensions: { code: 'NOT_FOUND' },
        },
      ],
    });
    expect(JSON.stringify(r.errors)).to.not.match(/stacktrace|at .*\.ts:/);
    const res = await fetch(`${h().url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ws.adminToken}` },
      body: '{"query": ',
    });
    expect(res.status).to.equal(400);
    const body = (await res.json()) as any;
    expect(Object.keys(body)).to.deep.equal(['error']);
    expect(body.error).to.match(
      /^Malformed JSON body at line 1, column 11 \(character 11\): expected a JSON value, but the body ends there\./,
    );
  });

  it('names the position of a JSON body that does not parse, and the shell quoting that usually causes it', async () => {
    const post = (body: string) =>
      fetch(`${h().url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ws.adminToken}` },
        body,
      });
    // What `curl -d "{\"query\": …}"` sends when the shell leaves the backslashes in (PowerShell, or double escaping).
    const escaped = await post('{\\"query\\": \\"{ viewer { id } }\\"}');
    expect(escaped.status).to.equal(400);
    const e = (await escaped.json()) as any;
    expect(Object.keys(e)).to.deep.equal(['error']);
    expect(e.error).to.match(
      /^Malformed JSON body at line 1, column 2 \(character 2\): expected a property name in double quotes, found a backslash\. /,
    );
    expect(e.error)
      .to.match(/shell/)
      .and.match(/single quotes/);
    const single = (await (await post("{'query': '{ viewer { id } }'}")).json()) as any;
    expect(single.error).to.match(
      /column 2 .*found a single quote\. JSON strings and property names take double quotes/,
    );
  });

  it('answers a POST that is not JSON with "send Content-Type: application/json", and keeps the CSRF protection', async () => {
    const query = JSON.stringify({ query: '{ viewer { id } }' });
    const auth = { authorization: `Bearer ${ws.adminToken}` };
    const cases: [Record<string, string>, RegExp][] = [
      [{}, /this request has no Content-Type/],
      [{ 'content-type': 'text/plain;charset=UTF-8' }, /this request's Content-Type is text\/plain/],
      [{ 'content-type': 'application/x-www-form-urlencoded' }, /Content-Type is application\/x-www-form-urlencoded/],
      [{ 'content-type': 'multipart/form-data; boundary=x' }, /Content-Type is multipart\/form-data/],
      // A preflight header does not make a form body GraphQL.
      [{ 'content-type': 'text/plain', 'apollo-require-preflight': 'true' }, /Content-Type is text\/plain/],
    ];
    for (const [headers, detail] of cases) {
      // A Uint8Array body makes fetch send no Content-Type of its own.
      const res = await fetch(`${h().url}/graphql`, {
        method: 'POST',
        headers: { ...auth, ...headers },
        body: new TextEncoder().encode(query),
      });
      expect(res.status, JSON.stringify(headers)).to.equal(400);
      const body = (await res.json()) as any;
      expect(body.errors).to.have.length(1);
      expect(body.errors[0].extensions.code).to.equal('BAD_REQUEST');
      expect(body.errors[0].message)
        .to.match(/^Send Content-Type: application\/json \(/)
        .and.match(detail);
      expect(body.errors[0].message).to.not.match(/CSRF|Cross-Site/i);
      expect(body.data).to.equal(undefined);
    }
    // A GET query still needs a preflight header (what a cross-site form or link cannot send).
    const get = (headers: Record<string, string>, qs = `?query=${encodeURIComponent('{ viewer { id } }')}`) =>
      fetch(`${h().url}/graphql${qs}`, { headers: { ...auth, ...headers } });
    const simple = await get({});
    expect(simple.status).to.equal(400);
    const refused = (await simple.json()) as any;
    expect(refused.errors[0].extensions.code).to.equal('BAD_REQUEST');
    expect(refused.errors[0].message).to.match(
      /^A GET query needs the header apollo-require-preflight: true .*Content-Type: application\/json/,
    );
    const preflighted = await get({ 'apollo-require-preflight': 'true' });
    expect(preflighted.status).to.equal(200);
    expect(((await preflighted.json()) as any).data.viewer.id).to.be.a('string');
    // A GET without a query that is not a browser asking for the page.
    for (const accept of ['application/json', '*/*']) {
      const res = await get({ accept, 'apollo-require-preflight': 'true' }, '');
      expect(res.status, accept).to.equal(400);
      const body = (await res.json()) as any;
      expect(body.errors[0].extensions.code).to.equal('BAD_REQUEST');
      expect(body.errors[0].message).to.match(
        /^GET \/graphql without a query parameter: send GraphQL requests as POST \/graphql with Content-Type: application\/json/,
      );
    }
  });

  it('refuses a request whose Accept takes no JSON answer with 406 before it runs: a mutation writes nothing', async () => {
    for (const accept of ['text/html', ', ', 'application/xml;q=1, text/plain']) {
      const name = `never-${Math.random().toString(36).slice(2, 10)}`;
      const res = await fetch(`${h().url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${ws.adminToken}` },
        body: JSON.stringify({
          query: 'mutation($n: String!) { createSecret(name: $n, kind: GENERIC, value: "v") { name } }',
          variables: { n: name },
        }),
      });
      expect(res.status, accept).to.equal(406);
      const body = (await res.json()) as any;
      expect(body.errors[0].extensions.code).to.equal('BAD_REQUEST');
      expect(body.errors[0].message).to.match(/send Accept: application\/json/);
      const d = await gqlOk(ws.adminToken, '{ secrets { name } }');
      expect(
        d.secrets.map((x: { name: string }) => x.name),
        accept,
      ).to.not.include(name);
    }
    // Either answer type, a wildcard or no Accept at all still runs.
    for (const accept of ['application/graphql-response+json', 'application/*', '*/*', '']) {
      const res = await fetch(`${h().url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(accept ? { accept } : {}),
          authorization: `Bearer ${ws.adminToken}`,
        },
        body: JSON.stringify({ query: '{ viewer { id } }' }),
      });
      expect(res.status, accept).to.equal(200);
    }
  });

  it('refuses bodies over 1 MiB with 413', async () => {
    const res = await fetch(`${h().url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ws.adminToken}` },
      body: JSON.stringify({ query: '{ viewer { id } }', variables: { pad: 'x'.repeat(1_100_000) } }),
    });
    expect(res.status).to.equal(413);
  });

  it('loads nested agent lists with a fixed number of queries, whatever the number of agents', async () => {
    const fresh = await newWorkspace();
    const addAgents = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const id = await createAgent(fresh.adminToken, { name: `batch ${i}` });
        await gqlOk(
          fresh.adminToken,
          `mutation($id: ID!) { addHttpEndpoint(agentId: $id, input: {path: "p", handler: {prompt: "x"}}) { id } createAgentApiKey(agentId: $id, name: "k") { key } addMcpTool(agentId: $id, input: {name: "t", description: "d", handler: {script: "return 1"}}) { id } }`,
          { id },
        );
      }
    };
    const query =
      '{ agents { id httpEndpoints { path } apiKeys { prefix } mcpTools { name } webhooks { integration } documents { id } documentExposures { id } } }';
    const countQueries = async () => {
      let n = 0;
      // Only the statements of the tables this query reads count: the queues' workers, the schedule
      // loop, housekeeping and the caches use the same database in the background at any moment.
      const read =
        /^select .* from "(member_tokens|members|agents|http_endpoints|api_keys|mcp_tools|webhooks|documents|document_exposures)"/;
      const onQuery = (q: { sql: string }) => void (read.test(q.sql) && n++);
      h().db.on('query', onQuery);
      try {
        const d = await gqlOk(fresh.adminToken, query);
        return { n, agents: d.agents.length };
      } finally {
        h().db.off('query', onQuery);
      }
    };
    await addAgents(3);
    const small = await countQueries();
    await addAgents(7);
    const large = await countQueries();
    expect(small.agents).to.equal(3);
    expect(large.agents).to.equal(10);
    expect(large.n).to.equal(small.n);
    expect(large.n).to.be.at.most(10);
  });
});
