import { expect } from 'chai';
import fc from 'fast-check';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { CONTENT_TYPES } from '../helpers/content-types.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';

// Property-based robustness of the HTTP API and the Document API of a service listening in the test process: random
// methods, paths (percent-escapes, malformed ones, dot segments, unicode), headers, content types
// and bodies never produce a 5xx; every 4xx is a JSON `{"error": string}`; and inserts are atomic —
// the database document ends with exactly the records that successful responses reported.
//
// Requests go through node:http (not fetch) so paths reach the server byte for byte: the WHATWG URL
// parser of fetch would resolve `..` and re-encode escapes before sending.
//
// JSON strings here never contain U+0000: PostgreSQL cannot store it, so a write holding it is a 400
// (its own test in http-api-document-api.test.ts), which would make the insert ledger depend on the generator.

const ADMIN_TOKEN = 'surfaces-prop-admin-token-0123'; // 30 characters
const PLATFORM = 'https://app.example.test';
const MIB = 1024 * 1024;
const BLOCKED = 'zq-blocked-qz';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

describe('e2e property: random requests at the HTTP API and the Document API', function () {
  this.timeout(300_000);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  let svc: E2eService;
  let base: URL;
  let P: string, Q: string;
  let keyP: string, keyQ: string, wsKey: string;
  const doc = { db: '', txt: '', ro: '' };
  /** What successful responses said happened to the `db` document. */
  const ledger = { inserted: 0, deleted: 0 };

  function send(method: string, p: string, headers: Record<string, string>, body?: Buffer): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const h: Record<string, string> = { ...headers };
      if (body !== undefined) h['content-length'] = String(body.length);
      const req = http.request({ host: base.hostname, port: base.port, method, path: p, headers: h, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      });
      req.setTimeout(30_000, () => req.destroy(new Error(`timeout: ${method} ${p}`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  async function gql(query: string, variables: Record<string, unknown> = {}): Promise<any> {
    const r = await send(
      'POST',
      '/graphql',
      { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      Buffer.from(JSON.stringify({ query, variables })),
    );
    const body = JSON.parse(r.text) as { data?: any; errors?: unknown[] };
    if (body.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
    return body.data;
  }

  async function countDb(): Promise<number> {
    const r = await send('GET', `/agents/${P}/documents/${doc.db}?limit=1`, { 'x-agent-access-key': keyP });
    expect(r.status, r.text).to.equal(200);
    return JSON.parse(r.text).data.totalCount as number;
  }

  /** The invariant every response must satisfy. */
  function checkReply(method: string, p: string, r: Reply): void {
    const where = `${method} ${p} → ${r.status} ${r.text.slice(0, 300)}`;
    expect(r.status, where).to.be.below(500);
    if (r.status >= 400 && method !== 'HEAD') {
      expect(r.headers['content-type'] ?? '', where).to.match(/^application\/json/);
      let parsed: any;
      expect(() => (parsed = JSON.parse(r.text)), where).to.not.throw();
      expect(parsed, where).to.be.an('object');
      expect(parsed.error, where).to.be.a('string').and.not.equal('');
    }
  }

  before(async function () {
    svc = await startE2eService('surf_prop', { adminToken: ADMIN_TOKEN, platformOrigin: PLATFORM });
    base = new URL(svc.url);
    const mk = async (name: string) =>
      (
        await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
          i: { name, defaultModel: 'fake-model' },
        })
      ).createAgent.id as string;
    [P, Q] = [await mk('Property target'), await mk('Other agent')];
    const key = async (a: string) =>
      (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key } }', { a })).createAgentApiKey
        .key as string;
    [keyP, keyQ] = [await key(P), await key(Q)];
    wsKey = (await gql('mutation { createWorkspaceApiKey(name: "ws") { key } }')).createWorkspaceApiKey.key;

    // Script endpoints that cannot throw, and one prompt endpoint (the fake model echoes).
    const script = 'return { params: request.params, query: request.query, method: request.method, body: input };';
    const add = (input: Record<string, unknown>) =>
      gql('mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
        a: P,
        i: input,
      });
    await add({ path: 'echo', handler: { script } });
    await add({ path: 'items/{id}', methods: ['GET', 'POST', 'PUT'], handler: { script } });
    await add({ path: 'items/{id}/parts/{part}', methods: ['PATCH', 'DELETE'], handler: { script } });
    await add({ path: 'ask', methods: ['GET', 'POST'], handler: { prompt: 'Answer briefly.' } });

    const fields = [
      { name: 'title', type: 'STRING', required: true },
      { name: 'n', type: 'NUMBER' },
      { name: 'flag', type: 'BOOLEAN' },
      { name: 'at', type: 'DATETIME' },
      { name: 'meta', type: 'JSON' },
    ];
    const create = async (input: Record<string, unknown>) =>
      (
        await gql('mutation($a: ID!, $i: DocumentInput!) { createDocument(agentId: $a, input: $i) { id } }', {
          a: P,
          i: input,
        })
      ).createDocument.id as string;
    doc.db = await create({ name: 'Records', kind: 'DATABASE', fields });
    doc.txt = await create({ name: 'Text', kind: 'TEXT', content: 'text' });
    doc.ro = await create({ name: 'Read only', kind: 'DATABASE', fields });
    const expose = (d: string, read: boolean, write: boolean) =>
      gql(
        'mutation($a: ID!, $d: ID!, $r: Boolean, $w: Boolean) { exposeDocument(agentId: $a, documentId: $d, read: $r, write: $w) { id } }',
        { a: P, d, r: read, w: write },
      );
    await expose(doc.db, true, true);
    await expose(doc.txt, true, true);
    await expose(doc.ro, true, false);
    await gql(
      'mutation($a: ID!) { setGuardrails(agentId: $a, input: { blockedInputPatterns: ["zq-blocked-qz"] }) { id } }',
      { a: P },
    );
  });

  after(async () => {
    agent.destroy();
    await svc?.stop();
  });

  // ---- arbitraries ------------------------------------------------------------------------------

  const fromChars = (chars: string) => fc.constantFrom(...chars.split(''));
  /** Printable ASCII allowed raw in a request target, without the separators `/ ? #`. */
  const rawPathChar = fc
    .integer({ min: 0x21, max: 0x7e })
    .filter((c) => ![0x2f, 0x3f, 0x23].includes(c))
    .map((c) => String.fromCharCode(c));
  /** What node:http lets through in a header value: tab, printable ASCII and obs-text. */
  const headerChar = fc
    .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }))
    .map((c) => String.fromCharCode(c));
  const headerValue = fc.string({ unit: headerChar, maxLength: 80 });

  const segment = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '..',
        '.',
        '',
        '%',
        '%E0%A4%A',
        '%E0%A4',
        '%zz',
        '%2F',
        '%2e%2e',
        '%00',
        '%C0%AF',
        '%FF',
        '%F0%9F%98%80',
        '%7Bid%7D',
        '{id}',
        'echo',
        'items',
        'parts',
        'ask',
        'data',
        'query',
        'insert',
        'update',
        'delete',
        'x;y',
        '*',
        ':id',
      ),
    },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }).map(encodeURIComponent) },
    { weight: 2, arbitrary: fc.string({ unit: rawPathChar, maxLength: 10 }) },
  );
  const segments = fc.array(segment, { maxLength: 4 });
  const httpSegments: fc.Arbitrary<string[]> = fc.oneof(
    fc.constantFrom<string[]>(
      ['echo'],
      ['ask'],
      ['items', '7'],
      ['items', 'caf%C3%A9'],
      ['items', 'a', 'parts', 'b'],
      ['items', '%E0%A4%A'],
      ['echo', '..'],
      ['items', '..', 'echo'],
    ),
    fc.tuple(fc.constantFrom('echo', 'items', 'ask'), segments).map(([h, t]) => [h, ...t]),
    segments,
  );
  const agentSeg = fc.oneof(
    { weight: 12, arbitrary: fc.constant('P') },
    { weight: 1, arbitrary: fc.constant('Q') },
    { weight: 2, arbitrary: segment },
  );
  const docSeg = fc.oneof(
    { weight: 6, arbitrary: fc.constant('db') },
    { weight: 2, arbitrary: fc.constantFrom('txt', 'ro') },
    { weight: 2, arbitrary: segment },
  );
  const docTail = fc.oneof(
    { weight: 3, arbitrary: fc.constant('') },
    { weight: 6, arbitrary: fc.constantFrom('query', 'insert', 'update', 'delete').map((op) => `/data/${op}`) },
    { weight: 2, arbitrary: segments.map((s) => (s.length ? `/${s.join('/')}` : '/')) },
    { weight: 1, arbitrary: segment.map((s) => `/data/${s}`) },
  );
  const queryToken = fc.oneof(
    fc.constantFrom(
      'limit',
      'offset',
      'q',
      '-1',
      '0',
      '5',
      '1001',
      'abc',
      '',
      '1e3',
      '%E0%A4%A',
      '%',
      'a[b]',
      '__proto__',
    ),
    fc.string({ unit: rawPathChar, maxLength: 8 }),
  );
  const queryString = fc.option(
    fc
      .array(fc.tuple(queryToken, queryToken), { maxLength: 4 })
      .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`),
    { nil: '' },
  );

  type Target =
    { surface: 'http'; agent: string; segs: string[] } | { surface: 'doc'; agent: string; doc: string; tail: string };
  const target: fc.Arbitrary<Target> = fc.oneof(
    fc.record({ surface: fc.constant('http' as const), agent: agentSeg, segs: httpSegments }),
    fc.record({ surface: fc.constant('doc' as const), agent: agentSeg, doc: docSeg, tail: docTail }),
  );

  const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS');

  type KeyChoice = 'none' | 'P' | 'Q' | 'ws' | 'random';
  const keyHeaders = fc.record({
    choice: fc.constantFrom<KeyChoice>('P', 'P', 'P', 'P', 'none', 'Q', 'ws', 'random'),
    form: fc.constantFrom('x-agent-access-key', 'bearer', 'both-mismatched'),
    random: headerValue,
  });
  const contentType = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom<string>(...CONTENT_TYPES),
    },
    { weight: 1, arbitrary: headerValue },
  );
  const extraHeaders = fc.record({
    origin: fc.option(fc.constantFrom(PLATFORM, 'https://evil.example.test', 'null'), { nil: undefined }),
    acrm: fc.option(fc.constantFrom('GET', 'POST', 'PUT'), { nil: undefined }),
    accept: fc.option(fc.constantFrom('text/event-stream', 'application/json', '*/*'), { nil: undefined }),
    junkName: fc.option(
      fc.constantFrom(
        'x-forwarded-for',
        'x-request-id',
        'cookie',
        'content-encoding',
        'transfer-encoding-x',
        'x-run-id',
      ),
      { nil: undefined },
    ),
    junkValue: headerValue,
  });

  const isoDate = fc
    .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true })
    .map((d) => d.toISOString());
  const jsonLeaf = fc.jsonValue({ stringUnit: 'grapheme', maxDepth: 2 });
  /** A record the `db` document accepts. */
  const validItem = fc.record(
    {
      title: fc.string({ unit: 'grapheme', maxLength: 20 }),
      n: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }),
      flag: fc.option(fc.boolean(), { nil: null }),
      at: fc.option(isoDate, { nil: null }),
      meta: jsonLeaf,
      id: fc.string({ maxLength: 8 }), // ignored: ids are assigned by the service
    },
    { requiredKeys: ['title'] },
  );
  /** A record the `db` document must refuse. */
  const invalidItem = fc.oneof(
    validItem.map(({ title: _t, ...rest }) => rest),
    validItem.map((v) => ({ ...v, title: null })),
    fc
      .tuple(validItem, fc.oneof(fc.integer(), fc.boolean(), fc.constant([]), fc.constant({})))
      .map(([v, t]) => ({ ...v, title: t })),
    fc.tuple(validItem, fc.constantFrom('1', 'NaN', true, [], {})).map(([v, n]) => ({ ...v, n })),
    fc.tuple(validItem, fc.constantFrom('yes', 0, 1, 'true')).map(([v, flag]) => ({ ...v, flag })),
    fc
      .tuple(validItem, fc.constantFrom('yesterday', '2024-13-45', '2024-02-30T25:00:00Z', 20240101, ''))
      .map(([v, at]) => ({ ...v, at })),
    fc
      .tuple(
        validItem,
        fc
          .string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 8 })
          .filter((k) => !['title', 'n', 'flag', 'at', 'meta', 'id'].includes(k)),
      )
      .map(([v, k]) => ({ ...v, [k]: 1 })),
    fc.constantFrom('not an object', 5, null, true, [], [{ title: 'nested' }]),
  );
  const mixedItems = fc.array(
    fc.oneof(
      { weight: 4, arbitrary: validItem.map((v) => ({ ok: true, v: v as unknown })) },
      { weight: 1, arbitrary: invalidItem.map((v) => ({ ok: false, v: v as unknown })) },
    ),
    { maxLength: 25 },
  );

  const jsonBody = fc.oneof(
    { weight: 4, arbitrary: fc.jsonValue({ stringUnit: 'grapheme', maxDepth: 4 }) },
    { weight: 3, arbitrary: mixedItems.map((items) => ({ items: items.map((i) => i.v) })) },
    {
      weight: 2,
      arbitrary: fc.record(
        {
          filter: fc.oneof(
            fc.dictionary(fc.constantFrom('title', 'n', 'flag', 'id', 'nope'), jsonLeaf, { maxKeys: 2 }),
            jsonLeaf,
          ),
          set: fc.oneof(validItem, jsonLeaf),
          all: fc.oneof(fc.boolean(), jsonLeaf),
        },
        { requiredKeys: [] },
      ),
    },
    {
      weight: 1,
      arbitrary: fc.record(
        { content: fc.oneof(fc.string({ unit: 'grapheme' }), jsonLeaf), name: jsonLeaf, description: fc.string() },
        { requiredKeys: [] },
      ),
    },
    { weight: 1, arbitrary: fc.record({ limit: jsonLeaf, offset: jsonLeaf, filter: jsonLeaf }, { requiredKeys: [] }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        { text: BLOCKED },
        { items: [{ title: BLOCKED }] },
        { filter: {}, all: true },
        { filter: { title: 'x' }, set: { flag: true } },
      ),
    },
  );
  const body = fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 8, arbitrary: jsonBody.map((v) => Buffer.from(JSON.stringify(v) ?? 'null')) },
    {
      weight: 2,
      arbitrary: fc.string({ unit: 'binary', maxLength: 60 }).map((s) => Buffer.from(s.replace(/\u0000/g, ''))),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '{',
          '{"items": [',
          '[1,]',
          '{"a":1}{"b":2}',
          'null',
          '""',
          '\uFEFF{}',
          '{"__proto__": {"polluted": 1}}',
        )
        .map((s) => Buffer.from(s)),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 200_000, max: Math.round(1.3 * MIB) }), fc.constantFrom('title', 'content', 'raw'))
        .map(([n, shape]) =>
          Buffer.from(
            shape === 'raw'
              ? 'x'.repeat(n)
              : shape === 'title'
                ? JSON.stringify({ items: [{ title: 'x'.repeat(n) }] })
                : JSON.stringify({ content: 'y'.repeat(n) }),
          ),
        ),
    },
  );

  function buildPath(t: Target): string {
    const a = t.agent === 'P' ? P : t.agent === 'Q' ? Q : t.agent;
    if (t.surface === 'http') return `/agents/${a}/api/${t.segs.join('/')}`;
    const d = t.doc === 'db' || t.doc === 'txt' || t.doc === 'ro' ? doc[t.doc] : t.doc;
    return `/agents/${a}/documents/${d}${t.tail}`;
  }

  function buildHeaders(
    k: { choice: KeyChoice; form: string; random: string },
    ct: string,
    hasBody: boolean,
    x: { origin?: string; acrm?: string; accept?: string; junkName?: string; junkValue: string },
  ): Record<string, string> {
    const value = { none: '', P: keyP, Q: keyQ, ws: wsKey, random: k.random }[k.choice];
    const h: Record<string, string> = {};
    if (k.choice !== 'none') {
      if (k.form === 'x-agent-access-key') h['x-agent-access-key'] = value;
      else if (k.form === 'bearer') h.authorization = `Bearer ${value}`;
      else {
        h['x-agent-access-key'] = value;
        h.authorization = `Bearer ${k.random}`;
      }
    }
    if (hasBody) h['content-type'] = ct;
    if (x.origin) h.origin = x.origin;
    if (x.acrm) h['access-control-request-method'] = x.acrm;
    if (x.accept) h.accept = x.accept;
    if (x.junkName) h[x.junkName] = x.junkValue;
    return h;
  }

  it('never answers 5xx; every 4xx is JSON with a string error', async () => {
    let sent = 0;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        method,
        target,
        queryString,
        keyHeaders,
        contentType,
        extraHeaders,
        body,
        async (m, t, q, k, ct, x, b) => {
          const p = buildPath(t) + q;
          const r = await send(m, p, buildHeaders(k, ct, b !== undefined, x), b);
          sent++;
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          checkReply(m, p, r);
          if (r.status === 200 && t.surface === 'doc' && t.agent === 'P' && t.doc === 'db' && m === 'POST') {
            const json = JSON.parse(r.text);
            if (typeof json.inserted === 'number') ledger.inserted += json.inserted;
            if (typeof json.deleted === 'number') ledger.deleted += json.deleted;
          }
        },
      ),
      { numRuns: 300 },
    );
    // The generators reach past the key check: successes and the deeper refusals all occur.
    expect(sent).to.equal(300);
    for (const s of [200, 400, 401, 404])
      expect(statuses.get(s) ?? 0, `status ${s} in ${JSON.stringify([...statuses])}`).to.be.above(0);
  });

  it('an insert is all or nothing: mixed valid and invalid items insert nothing', async () => {
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(mixedItems, fc.constantFrom('x-agent-access-key', 'bearer'), async (items, form) => {
        const before = await countDb();
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          ...(form === 'bearer' ? { authorization: `Bearer ${keyP}` } : { 'x-agent-access-key': keyP }),
        };
        const r = await send(
          'POST',
          `/agents/${P}/documents/${doc.db}/data/insert`,
          headers,
          Buffer.from(JSON.stringify({ items: items.map((i) => i.v) })),
        );
        checkReply('POST', 'insert', r);
        const json = JSON.parse(r.text);
        const allValid = items.length > 0 && items.every((i) => i.ok);
        if (allValid) {
          expect(r.status, r.text).to.equal(200);
          expect(json.inserted).to.equal(items.length);
          expect(json.records.map((rec: any) => rec.title)).to.deep.equal(
            items.map((i) => (i.v as { title: string }).title),
          );
          expect(new Set(json.records.map((rec: any) => rec.id)).size).to.equal(items.length);
          ledger.inserted += json.inserted;
          accepted++;
        } else {
          expect(r.status, r.text).to.equal(400);
          refused++;
        }
        expect(await countDb()).to.equal(before + (allValid ? items.length : 0));
      }),
      { numRuns: 150 },
    );
    expect(accepted).to.be.above(0);
    expect(refused).to.be.above(0);
  });

  it('the database document holds exactly what the successful responses reported', async () => {
    expect(ledger.inserted).to.be.above(0);
    expect(await countDb()).to.equal(ledger.inserted - ledger.deleted);
  });
});
