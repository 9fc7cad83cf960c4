import fc from 'fast-check';
import {
  type KeyPlan,
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
  junkBody,
  validKey,
  clean,
  keyHeaders as headersOfKey,
  mixed,
} from './arbitraries.js';
import { isObj, parseJson, sseEvents, isEventStream, type Reply, type Req } from './fuzz-answers.js';
import { BLOCKED, describeFuzz, json } from './fuzz-service.js';
import type { Written } from './fuzz-tables.js';

// The fuzz of the HTTP API (the rules every surface's fuzz checks: fuzz-service.ts).

describeFuzz('faults: fuzzing the HTTP API', (target) => {
  const { keys, doc, agentOf } = target;
  const keyHeaders = (k: KeyPlan, agentSymbol?: string) => headersOfKey(keys, k, agentSymbol);
  const httpSegments: fc.Arbitrary<string[]> = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom<string[]>(
        ['echo'],
        ['ask'],
        ['notes'],
        ['notes'],
        ['items', '7'],
        ['items', 'caf%C3%A9'],
        ['items', 'a', 'parts', 'b'],
        ['items', '%E0%A4%A'],
        ['echo', '..'],
        ['items', '..', 'echo'],
        ['notes%2F'],
        ['Echo'],
      ),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom('echo', 'items', 'ask', 'notes'), segments).map(([h, t]) => [h, ...t]),
    },
    { weight: 1, arbitrary: segments },
  );
  const noteBody = fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .string({ unit: 'grapheme', minLength: 1, maxLength: 30 })
        .map((t) => ({ title: noNul(t) || 'note' })),
    },
    { weight: 1, arbitrary: fc.record({ title: jsonLeaf, extra: jsonLeaf }, { requiredKeys: [] }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom({ title: BLOCKED }, { title: 'a\u0000b' }, { title: 'x'.repeat(5000) }, { title: '' }),
    },
  );
  const httpRequest = fc.record({
    method: fc.oneof({ weight: 4, arbitrary: fc.constant('POST') }, { weight: 3, arbitrary: anyMethod }),
    agent: agentSeg,
    segs: httpSegments,
    query: queryString,
    key: keyPlan,
    type: fc.oneof({ weight: 5, arbitrary: fc.constant('application/json') }, { weight: 2, arbitrary: contentType }),
    extra: extraHeaders,
    body: fc.oneof(
      { weight: 2, arbitrary: fc.constant(undefined) },
      { weight: 4, arbitrary: noteBody.map(json) },
      { weight: 3, arbitrary: fc.jsonValue({ stringUnit: 'grapheme', maxDepth: 4 }).map(json) },
      { weight: 2, arbitrary: junkBody },
    ),
  });
  function httpReq(x: any): Req {
    const h: Record<string, string | string[]> = { ...keyHeaders(x.key, x.agent) };
    if (x.body !== undefined) h['content-type'] = x.type;
    applyExtra(h, x.extra);
    return {
      method: x.method,
      path: `/agents/${agentOf(x.agent)}/api/${x.segs.join('/')}${x.query}`,
      headers: h,
      body: x.body,
    };
  }
  /** The notes the `notes` endpoint reports it inserted. */
  function httpWritten(req: Req) {
    return (r: Reply): Written => {
      const out = isEventStream(r)
        ? sseEvents(r.text).find((e) => e.event === 'done')?.data?.output
        : (parseJson(r.text) as any)?.output;
      if (isObj(out) && Array.isArray(out.inserted) && out.inserted.length)
        return { addRecords: { doc: doc.notes, ids: out.inserted } };
      void req;
      return {};
    };
  }
  const cleanHttp = fc
    .tuple(
      httpRequest,
      validKey,
      fc.oneof(
        { weight: 3, arbitrary: noteBody.map((b) => ({ method: 'POST', segs: ['notes'], body: json(b) })) },
        {
          weight: 2,
          arbitrary: fc.jsonValue({ maxDepth: 2 }).map((b) => ({ method: 'POST', segs: ['echo'], body: json(b) })),
        },
        {
          weight: 1,
          arbitrary: fc
            .string({ maxLength: 8 })
            .map((id) => ({ method: 'GET', segs: ['items', encodeURIComponent(id) || '1'], body: undefined })),
        },
        {
          weight: 1,
          arbitrary: fc
            .string({ unit: 'grapheme', maxLength: 30 })
            .map((text) => ({ method: 'POST', segs: ['ask'], body: json({ text: noNul(text) }) })),
        },
      ),
    )
    .map(([x, key, v]) => ({ ...x, ...clean, key, ...v }));

  return {
    surface: 'http',
    arb: mixed(httpRequest, cleanHttp, true),
    build: httpReq,
    written: httpWritten,
    valid: () => ({
      method: 'POST',
      path: `/agents/${target.ids.P}/api/notes`,
      headers: { 'x-agent-access-key': keys.P, 'content-type': 'application/json' },
      body: json({ title: 'after the fuzz' }),
    }),
    reaches: ['records', 'limited'],
  };
});
