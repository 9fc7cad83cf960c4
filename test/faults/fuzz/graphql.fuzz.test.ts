import fc from 'fast-check';
import {
  headerChar,
  anyMethod,
  contentType,
  extraHeaders,
  applyExtra,
  noNul,
  jsonLeaf,
  isoDate,
  junkBody,
  mixed,
} from './arbitraries.js';
import { isObj, parseJson, type Reply, type Req } from './fuzz-answers.js';
import { ADMIN_TOKEN, describeFuzz, json } from './fuzz-service.js';
import type { Written } from './fuzz-tables.js';

// The fuzz of the GraphQL management API (the rules every surface's fuzz checks: fuzz-service.ts).

describeFuzz('faults: fuzzing the GraphQL management API', (target) => {
  const { keys } = target;
  const gqlId = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('P', 'Q', 'R') },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.string({ maxLength: 12 }),
        fc.constantFrom('agt_doesnotexist', '', 'x'.repeat(300), 'a\u0000b'),
      ),
    },
  );
  const messageInput = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record(
        {
          direction: fc.constantFrom('INBOUND', 'OUTBOUND'),
          channel: fc.constantFrom('EMAIL', 'SMS'),
          from: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).map((s) => noNul(s) || 'a@example.test'),
          to: fc.constantFrom('b@example.test', '+15550100'),
          subject: fc.option(fc.string({ maxLength: 20 }).map(noNul), { nil: undefined }),
          body: fc.string({ unit: 'grapheme', maxLength: 60 }).map(noNul),
          sentAt: fc.option(isoDate, { nil: undefined }),
        },
        { requiredKeys: ['direction', 'channel', 'from', 'to', 'body'] },
      ),
    },
    {
      weight: 1,
      arbitrary: fc.record(
        {
          direction: jsonLeaf,
          channel: jsonLeaf,
          from: jsonLeaf,
          to: jsonLeaf,
          body: jsonLeaf,
          sentAt: fc.oneof(jsonLeaf, fc.constantFrom('2024-13-45', 'yesterday')),
        },
        { requiredKeys: [] },
      ),
    },
  );
  const ops: fc.Arbitrary<{ query: string; variables?: unknown; operationName?: unknown }> = fc.oneof(
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          '{ viewer { id } }',
          '{ agents { id name } }',
          '{ workspace { id name } }',
          '{ secrets { name kind } }',
          '{ models { name } }',
          '{ __typename }',
          'query Q { viewer { id } }',
        )
        .map((query) => ({ query })),
    },
    {
      weight: 2,
      arbitrary: gqlId.map((a) => ({
        query: 'query($a: ID!) { agent(id: $a) { id name httpEndpoints { id path } documents { id name } } }',
        variables: { a },
      })),
    },
    {
      weight: 3,
      arbitrary: fc.tuple(gqlId, messageInput).map(([a, i]) => ({
        query: 'mutation($a: ID!, $i: RecordMessageInput!) { recordMessage(agentId: $a, input: $i) { id } }',
        variables: { a, i },
      })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.oneof(
            fc.string({ minLength: 1, maxLength: 20 }).map(noNul),
            fc.constantFrom('fuzz-signing', '', 'x'.repeat(300)),
          ),
          fc.oneof(fc.constantFrom('GENERIC', 'WEBHOOK_SIGNING_SECRET', 'MODEL_API_KEY'), jsonLeaf),
          fc.oneof(fc.string({ maxLength: 30 }).map(noNul), jsonLeaf),
        )
        .map(([n, k, v]) => ({
          query:
            'mutation($n: String!, $k: SecretKind!, $v: String!) { createSecret(name: $n, kind: $k, value: $v) { name } }',
          variables: { n, k, v },
        })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom(
            'mutation($id: ID!) { deleteDocument(id: $id) }',
            'mutation($id: ID!) { removeHttpEndpoint(id: $id) }',
            'mutation($id: ID!) { revokeApiKey(id: $id) }',
            'mutation($id: ID!) { deleteAgent(id: $id) }',
            'mutation($id: ID!) { updateAgent(id: $id, input: { name: "renamed" }) { id } }',
            'mutation($id: ID!) { unexposeDocument(agentId: $id, documentId: $id) }',
            'mutation($id: ID!) { revokeMcpGrant(agentId: $id, grantId: $id) }',
          ),
          fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('agt_doesnotexist', 'doc_nope', '', 5, null)),
        )
        .map(([query, id]) => ({ query, variables: { id } })),
    },
    {
      weight: 3,
      arbitrary: fc
        .oneof(
          fc.string({ maxLength: 60 }),
          fc.constantFrom(
            '{',
            'query {',
            '{ viewer { id }',
            'mutation { deleteAgent }',
            '{ nope }',
            '{ viewer { id ...F } } fragment F on Member { ...F }',
            '{ agents { id agents { id } } }',
            'subscription { x }',
            'query($a: ID!) { agent(id: $a) { id } }',
            '{ __schema { types { name fields { name type { name ofType { name ofType { name ofType { name } } } } } } } }',
            `{ ${Array.from({ length: 300 }, (_, i) => `a${i}: agents { id documents { id } }`).join(' ')} }`,
            `{ ${'agent(id: "x") { team { '.repeat(12)}id${' } }'.repeat(12)} }`,
            '{ viewer { id } } '.repeat(4000),
            'query A { viewer { id } } query B { viewer { id } }',
          ),
        )
        .map((query) => ({ query })),
    },
    {
      // Paging arguments and cursors out of range, directives with odd variables.
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.oneof(
            fc.integer(),
            fc.constantFrom(0, -1, 2 ** 31 - 1, 1e9, 201, 1001),
            fc.double(),
            fc.constant(null),
            fc.string({ maxLength: 5 }),
          ),
          fc.oneof(
            fc.string({ maxLength: 30 }),
            fc.constantFrom(
              '',
              'eyJ9',
              'MA==',
              Buffer.from('{"at":"x","id":1}').toString('base64url'),
              Buffer.from('[9e999,"a"]').toString('base64url'),
            ),
            fc.constant(null),
          ),
          fc.oneof(jsonLeaf, fc.constantFrom('HTTP_API', 'MCP', 'DONE', 'FAILED')),
          fc.constantFrom(
            'query($n: Int!, $c: String, $s: Surface) { agent(id: "P") { activity(first: $n, after: $c, surface: $s) { nodes { id status } endCursor } } }',
            'query($c: String, $s: DateTimeISO) { agent(id: "P") { activity(first: 5, status: $c, entry: $c, since: $s, until: $s) { nodes { id status } } } }',
            'query($n: Int!, $c: ID!) { agent(id: "P") { activityEntry(id: $c) { id requestBody } usageBySurface(days: $n) { day surface runs } } }',
            'query($c: String) { agent(id: "P") { modelInUse(modelOverride: $c) { reference source provider problem } } }',
            'query($n: Int!) { agent(id: "P") { usage(days: $n) { day credits } } workspace { usage(days: $n) { day } } }',
            'query($n: Int!, $c: String, $s: WebhookDeliveryStatus) { webhookDeliveries(agentId: "P", first: $n, after: $c, status: $s) { nodes { id status } endCursor } }',
            'query($b: Boolean!) { viewer { id @skip(if: $b) role @include(if: $b) } }',
            'query($n: Int) { viewer { id @deprecated } agents @unknown(x: $n) { id } }',
            'query($c: String) { agent(id: $c) { id } }',
          ),
        )
        .map(([n, c, s, q]) => ({ query: q.replace(/"P"/g, '"$P"'), variables: { n, c, s, b: n } })),
    },
    {
      // The console's and the CLI's operations: manifests (plan, apply with a digest no plan gave,
      // export), a database document's records, and the console-only Try it key (a bearer token is
      // refused). None of them may write here: an apply without its plan's digest is refused.
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.oneof(
            fc.string({ maxLength: 80 }).map(noNul),
            fc.constantFrom(
              'agents: []',
              'version: 1\nagents:\n  - name: fuzz\n    nope: 1',
              'version: 1\nagents:\n  - name: "P"\n    httpEndpoints:\n      - path: a\n      - path: a',
              '- [',
              'version: 1\nagents: {}',
              '&a [*a]',
              `version: 1\nagents:\n${'  - name: x\n'.repeat(200)}`,
            ),
          ),
          fc.oneof(fc.string({ maxLength: 70 }), fc.constantFrom('', 'sha256:0', 'x'.repeat(64))),
          fc.oneof(
            jsonLeaf,
            fc.constantFrom(
              { title: 'a' },
              { title: { gt: 1 } },
              { id: { in: [] } },
              { nope: 1 },
              { title: { regex: '.*' } },
            ),
          ),
          fc.oneof(fc.integer(), fc.constantFrom(0, -1, 201, 50), fc.constant(null)),
          fc.constantFrom(
            'query($y: String!) { planManifest(yaml: $y) { digest hasChanges changes { action path } missing { kind name } } }',
            'mutation($y: String!, $d: String!) { applyManifest(yaml: $y, planDigest: $d) { changed } }',
            'query($y: String!, $d: String!) { planManifest(yaml: $y) { digest } exportAgents(ids: [$d]) }',
            'query { exportAgents(withRecords: true) }',
            'query($f: JSONObject, $n: Int!, $d: String) { documentRecords(agentId: "P", documentId: "DB", filter: $f, first: $n, after: $d) { nodes { id } endCursor totalCount } }',
            'query($f: JSONObject, $d: ID!) { documentRecords(agentId: "P", documentId: $d, filter: $f) { nodes { id } } }',
            'mutation($d: ID!) { createTryItKey(agentId: $d) { key } }',
            'mutation { createTryItKey(agentId: "P") { key } }',
          ),
        )
        .map(([y, d, f, n, q]) => ({
          query: q.replace(/"P"/g, '"$P"').replace(/"DB"/g, '"$DB"'),
          variables: { y, d, f, n },
        })),
    },
    {
      weight: 1,
      arbitrary: fc
        .record(
          { query: fc.oneof(jsonLeaf, fc.constant('{ viewer { id } }')), variables: jsonLeaf, operationName: jsonLeaf },
          { requiredKeys: [] },
        )
        .map((v) => v as any),
    },
  );
  const gqlRequest = fc.record({
    method: fc.oneof(
      { weight: 8, arbitrary: fc.constant('POST') },
      { weight: 2, arbitrary: fc.constant('GET') },
      { weight: 1, arbitrary: anyMethod },
    ),
    path: fc.oneof(
      { weight: 10, arbitrary: fc.constant('/graphql') },
      { weight: 1, arbitrary: fc.constantFrom('/graphql/', '/GRAPHQL', '/graphql%00', '/graphql/..', '/graphql;x') },
    ),
    token: fc.oneof(
      { weight: 8, arbitrary: fc.constant('admin') },
      { weight: 2, arbitrary: fc.constantFrom('none', 'random', 'agent', 'lowercase', 'ws') },
    ),
    random: fc.string({ unit: headerChar, maxLength: 60 }),
    type: fc.oneof({ weight: 8, arbitrary: fc.constant('application/json') }, { weight: 2, arbitrary: contentType }),
    preflight: fc.boolean(),
    op: ops,
    batch: fc.oneof({ weight: 12, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    junk: fc.option(junkBody, { nil: undefined, freq: 10 }),
    extra: extraHeaders,
  });
  function gqlReq(x: any): Req {
    const h: Record<string, string | string[]> = {};
    if (x.token === 'admin') h.authorization = `Bearer ${ADMIN_TOKEN}`;
    else if (x.token === 'random') h.authorization = `Bearer ${x.random}`;
    else if (x.token === 'agent') h.authorization = `Bearer ${keys.P}`;
    else if (x.token === 'ws') h.authorization = `Bearer ${keys.ws}`;
    else if (x.token === 'lowercase') h.authorization = `bearer ${ADMIN_TOKEN}`;
    if (x.preflight) h['apollo-require-preflight'] = 'true';
    const { accept: _a, ...extra } = x.extra;
    applyExtra(h, extra);
    const resolveIds = (v: unknown): unknown =>
      v === 'P'
        ? target.ids.P
        : v === 'Q'
          ? target.ids.Q
          : v === 'R'
            ? target.ids.R
            : isObj(v)
              ? Object.fromEntries(Object.entries(v).map(([k, w]) => [k, resolveIds(w)]))
              : v;
    const op = {
      ...x.op,
      ...(typeof x.op.query === 'string'
        ? { query: x.op.query.replace(/\$P\b/g, target.ids.P).replace(/\$DB\b/g, target.doc.db) }
        : {}),
      ...(x.op.variables !== undefined ? { variables: resolveIds(x.op.variables) } : {}),
    };
    if (x.method === 'GET' || x.method === 'HEAD') {
      const qs = new URLSearchParams();
      if (typeof op.query === 'string') qs.set('query', op.query.slice(0, 4000));
      if (op.variables !== undefined) qs.set('variables', JSON.stringify(op.variables));
      return { method: x.method, path: `${x.path}?${qs.toString()}`, headers: h };
    }
    const body = x.junk ?? json(x.batch ? [op, op] : op);
    h['content-type'] = x.type;
    return { method: x.method, path: x.path, headers: h, body };
  }
  function gqlWritten(r: Reply): Written {
    const body = parseJson(r.text) as any;
    const data = isObj(body) && isObj(body.data) ? body.data : {};
    const w: Written = {};
    if (isObj(data.recordMessage) && typeof data.recordMessage.id === 'string') w.message = data.recordMessage.id;
    if (isObj(data.createSecret) && typeof data.createSecret.name === 'string') w.secret = data.createSecret.name;
    return w;
  }
  const cleanGql = fc
    .tuple(
      gqlRequest,
      fc.oneof(
        {
          weight: 1,
          arbitrary: fc.constantFrom('{ viewer { id } }', '{ agents { id name } }').map((query) => ({ query })),
        },
        { weight: 2, arbitrary: ops },
      ),
    )
    .map(([x, op]) => ({
      ...x,
      method: 'POST',
      path: '/graphql',
      token: 'admin',
      type: 'application/json',
      op,
      batch: false,
      junk: undefined,
      extra: {},
    }));

  return {
    surface: 'graphql',
    arb: mixed(gqlRequest, cleanGql),
    build: gqlReq,
    written: () => gqlWritten,
    valid: () => ({
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: json({
        query:
          'mutation($a: ID!) { recordMessage(agentId: $a, input: { direction: INBOUND, channel: EMAIL, from: "a@example.test", to: "b@example.test", body: "after the fuzz" }) { id } }',
        variables: { a: target.ids.P },
      }),
    }),
    reaches: ['messages'],
  };
});
