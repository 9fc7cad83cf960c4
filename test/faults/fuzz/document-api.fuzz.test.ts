import fc from 'fast-check';
import {
  type KeyPlan,
  segment,
  segments,
  queryString,
  anyMethod,
  contentType,
  extraHeaders,
  applyExtra,
  keyPlan,
  agentSeg,
  noNul,
  jsonLeaf,
  isoDate,
  junkBody,
  validKey,
  clean,
  keyHeaders as headersOfKey,
  mixed,
} from './arbitraries.js';
import { isObj, parseJson, type Reply, type Req } from './fuzz-answers.js';
import { BLOCKED, describeFuzz, json } from './fuzz-service.js';
import type { Written } from './fuzz-tables.js';

// The fuzz of the Document API (the rules every surface's fuzz checks: fuzz-service.ts).

describeFuzz('faults: fuzzing the Document API', (target) => {
  const { keys, doc, ledger, agentOf } = target;
  const keyHeaders = (k: KeyPlan, agentSymbol?: string) => headersOfKey(keys, k, agentSymbol);
  const validItem = fc.record(
    {
      title: fc.string({ unit: 'grapheme', maxLength: 20 }).map(noNul),
      n: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }),
      flag: fc.option(fc.boolean(), { nil: null }),
      at: fc.option(isoDate, { nil: null }),
      meta: jsonLeaf,
      id: fc.string({ maxLength: 8 }),
    },
    { requiredKeys: ['title'] },
  );
  const invalidItem = fc.oneof(
    validItem.map(({ title: _t, ...rest }) => rest),
    validItem.map((v) => ({ ...v, title: null })),
    fc.tuple(validItem, fc.constantFrom('1', 'NaN', true, [], {})).map(([v, n]) => ({ ...v, n })),
    fc.tuple(validItem, fc.constantFrom('yesterday', '2024-13-45', 20240101, '')).map(([v, at]) => ({ ...v, at })),
    fc
      .tuple(
        validItem,
        fc
          .string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 8 })
          .filter((k) => !['title', 'n', 'flag', 'at', 'meta', 'id'].includes(k)),
      )
      .map(([v, k]) => ({ ...v, [k]: 1 })),
    fc.constantFrom('not an object', 5, null, true, [], [{ title: 'nested' }], { title: 'a\u0000b' }),
  );
  const items = fc.array(
    fc.oneof(
      { weight: 5, arbitrary: validItem as fc.Arbitrary<unknown> },
      { weight: 1, arbitrary: invalidItem as fc.Arbitrary<unknown> },
    ),
    { maxLength: 12 },
  );
  const filter = fc.oneof(
    fc.dictionary(
      fc.constantFrom('title', 'n', 'flag', 'id', 'nope', 'meta'),
      fc.oneof(jsonLeaf, fc.array(jsonLeaf, { maxLength: 3 })),
      { maxKeys: 2 },
    ),
    jsonLeaf,
  );
  const docBody = fc.oneof(
    { weight: 4, arbitrary: items.map((i) => ({ items: i })) },
    { weight: 2, arbitrary: fc.record({ filter, limit: jsonLeaf, offset: jsonLeaf }, { requiredKeys: [] }) },
    {
      weight: 2,
      arbitrary: fc.record(
        { filter, set: fc.oneof(validItem, jsonLeaf), all: fc.oneof(fc.boolean(), jsonLeaf) },
        { requiredKeys: [] },
      ),
    },
    {
      weight: 1,
      arbitrary: fc.record(
        {
          content: fc.oneof(fc.string({ unit: 'grapheme' }).map(noNul), jsonLeaf),
          name: jsonLeaf,
          description: fc.string().map(noNul),
        },
        { requiredKeys: [] },
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        { text: BLOCKED },
        { items: [{ title: BLOCKED }] },
        { filter: { title: 'nothing-matches' }, all: true },
        { filter: { title: 'x' }, set: { flag: true } },
        { content: 'x'.repeat(5000) },
      ),
    },
    { weight: 2, arbitrary: fc.jsonValue({ stringUnit: 'grapheme', maxDepth: 3 }) },
  );
  const docRequest = fc.record({
    method: fc.oneof(
      { weight: 5, arbitrary: fc.constant('POST') },
      { weight: 1, arbitrary: fc.constant('PUT') },
      { weight: 2, arbitrary: anyMethod },
    ),
    agent: agentSeg,
    doc: fc.oneof(
      { weight: 6, arbitrary: fc.constant('db') },
      { weight: 2, arbitrary: fc.constantFrom('txt', 'ro', 'notes', 'hooklog') },
      { weight: 2, arbitrary: segment },
    ),
    tail: fc.oneof(
      { weight: 3, arbitrary: fc.constant('') },
      {
        weight: 7,
        arbitrary: fc.constantFrom('query', 'insert', 'insert', 'update', 'delete').map((op) => `/data/${op}`),
      },
      { weight: 1, arbitrary: segments.map((s) => (s.length ? `/${s.join('/')}` : '/')) },
      { weight: 1, arbitrary: segment.map((s) => `/data/${s}`) },
    ),
    query: queryString,
    key: keyPlan,
    type: fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: contentType }),
    extra: extraHeaders,
    body: fc.oneof(
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 7, arbitrary: docBody.map(json) },
      { weight: 2, arbitrary: junkBody },
    ),
  });
  const docIdOf = (d: string, a: string) =>
    a === 'R' && d === 'db' ? target.ids.dbR : d in doc ? doc[d as keyof typeof doc] : d;
  function docReq(x: any): Req {
    const h: Record<string, string | string[]> = { ...keyHeaders(x.key, x.agent) };
    if (x.body !== undefined) h['content-type'] = x.type;
    applyExtra(h, x.extra);
    return {
      method: x.method,
      path: `/agents/${agentOf(x.agent)}/documents/${docIdOf(x.doc, x.agent)}${x.tail}${x.query}`,
      headers: h,
      body: x.body,
    };
  }
  /** What a 2xx of the Document API says it wrote, read from the answer (the request only names the operation). */
  function docWritten(req: Req) {
    return (r: Reply): Written => {
      const body = parseJson(r.text) as any;
      const m = /^\/agents\/[^/]+\/documents\/([^/?]+)(\/data\/(insert|update|delete))?(?:\?|$)/.exec(req.path);
      if (!m || !isObj(body)) return {};
      let documentId: string;
      try {
        documentId = decodeURIComponent(m[1]!);
      } catch {
        return {};
      }
      const reqBody = parseJson(req.body?.toString('utf8') ?? '') as any;
      if (req.method === 'PUT' && !m[2]) {
        ledger.documents.set(documentId, { name: body.name, description: body.description, content: body.content });
        return { documentRow: documentId };
      }
      if (req.method !== 'POST') return {};
      if (m[3] === 'insert')
        return {
          addRecords: { doc: documentId, ids: (body.records ?? []).map((x: any) => x.id), records: body.records ?? [] },
        };
      if (m[3] === 'update')
        return {
          changeRecords: {
            doc: documentId,
            count: body.updated,
            fields: isObj(reqBody?.set) ? Object.keys(reqBody.set) : [],
          },
        };
      if (m[3] === 'delete') return { removeRecords: { doc: documentId, count: body.deleted } };
      return {};
    };
  }
  const cleanDocBody = fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .array(validItem, { minLength: 1, maxLength: 8 })
        .map((i) => ({ tail: '/data/insert', body: { items: i } })),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({ title: fc.string({ maxLength: 3 }) }, { requiredKeys: [] })
        .map((f) => ({ tail: '/data/query', body: { filter: f, limit: 5 } })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.string({ maxLength: 2 }), fc.boolean())
        .map(([t, flag]) => ({ tail: '/data/update', body: { filter: { title: t }, set: { flag } } })),
    },
    {
      weight: 1,
      arbitrary: fc.string({ maxLength: 2 }).map((t) => ({ tail: '/data/delete', body: { filter: { title: t } } })),
    },
  );
  const cleanDoc = fc
    .tuple(docRequest, validKey, cleanDocBody, fc.constantFrom('db', 'db', 'db', 'txt'))
    .map(([x, key, v, d]) =>
      d === 'txt'
        ? { ...x, ...clean, key, doc: d, method: 'PUT', tail: '', body: json({ content: `text ${v.tail}` }) }
        : { ...x, ...clean, key, doc: d, method: 'POST', tail: v.tail, body: json(v.body) },
    );

  return {
    surface: 'doc',
    arb: mixed(docRequest, cleanDoc, true),
    build: docReq,
    written: docWritten,
    valid: () => ({
      method: 'POST',
      path: `/agents/${target.ids.P}/documents/${doc.db}/data/insert`,
      headers: { 'x-agent-access-key': keys.P, 'content-type': 'application/json' },
      body: json({ items: [{ title: 'after the fuzz' }] }),
    }),
    reaches: ['records', 'limited'],
  };
});
