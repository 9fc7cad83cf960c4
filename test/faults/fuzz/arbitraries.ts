import fc from 'fast-check';
import { CONTENT_TYPES } from '../../helpers/content-types.js';
import { MIB, PLATFORM, type FuzzTarget } from './fuzz-service.js';

// Generators every surface's fuzz draws from: paths, query strings, headers, keys, bodies.

/** Printable ASCII allowed raw in a request target, without the separators `/ ? #`. */
export const rawPathChar = fc
  .integer({ min: 0x21, max: 0x7e })
  .filter((c) => ![0x2f, 0x3f, 0x23].includes(c))
  .map((c) => String.fromCharCode(c));
/** What node:http lets through in a header value: printable ASCII and obs-text. */
export const headerChar = fc
  .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }))
  .map((c) => String.fromCharCode(c));
export const headerValue = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: headerChar, maxLength: 60 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 2000 }).map((n) => 'h'.repeat(n)) },
);
export const segment = fc.oneof(
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
      'x;y',
      '*',
      ':id',
      '%20',
      '~',
      'data',
      'api',
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }).map(encodeURIComponent) },
  { weight: 2, arbitrary: fc.string({ unit: rawPathChar, maxLength: 10 }) },
  { weight: 1, arbitrary: fc.integer({ min: 300, max: 1500 }).map((n) => 'L'.repeat(n)) },
);
export const segments = fc.oneof(
  { weight: 12, arbitrary: fc.array(segment, { maxLength: 4 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 50, max: 600 }), fc.constantFrom('a', '..', '.', '%2F', ''))
      .map(([n, x]) => Array<string>(n).fill(x)),
  },
);
export const queryToken = fc.oneof(
  fc.constantFrom(
    'limit',
    'offset',
    'page',
    'pageSize',
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
    'constructor',
    'true',
    '%00',
    '99999999999999999999',
    'NaN',
    'Infinity',
    '-0',
    '0x10',
  ),
  fc.string({ unit: rawPathChar, maxLength: 8 }),
);
export const queryString = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.option(
      fc
        .array(fc.tuple(queryToken, queryToken), { maxLength: 4 })
        .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`),
      { nil: '' },
    ),
  },
  // Many parameters, or one repeated (an array where a string is expected).
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 100, max: 700 }), fc.boolean())
      .map(([n, same]) => `?${Array.from({ length: n }, (_, i) => (same ? 'limit=1' : `p${i}=${i}`)).join('&')}`),
  },
);
export const anyMethod = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS');
export const contentType = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom<string>(...CONTENT_TYPES, ''),
  },
  { weight: 1, arbitrary: headerValue },
);
/** Extra headers: odd values of ordinary ones, a duplicated one (node sends each value as its own line). */
export const someExtraHeaders = fc.record(
  {
    origin: fc.constantFrom(PLATFORM, 'https://evil.example.test', 'null'),
    accept: fc.constantFrom(
      'text/event-stream',
      'application/json',
      '*/*',
      'application/json, text/event-stream',
      'text/html',
      '',
    ),
    junk: fc.array(
      fc.tuple(
        fc.constantFrom(
          'x-forwarded-for',
          'x-request-id',
          'cookie',
          'x-run-id',
          'user-agent',
          'accept-language',
          'content-encoding',
          'x-custom',
          'forwarded',
          'if-none-match',
          'range',
          'accept-encoding',
        ),
        headerValue,
      ),
      { maxLength: 2 },
    ),
    duplicate: fc.tuple(
      fc.constantFrom(
        'x-agent-access-key',
        'authorization',
        'content-type',
        'accept',
        'x-visitor-id',
        'x-github-delivery',
        'x-custom',
        'cookie',
      ),
      fc.array(fc.string({ unit: headerChar, maxLength: 20 }), { minLength: 2, maxLength: 3 }),
    ),
  },
  { requiredKeys: [] },
);
export const extraHeaders = fc.oneof(
  { weight: 3, arbitrary: fc.constant({}) },
  { weight: 2, arbitrary: someExtraHeaders },
);
export type Extra = { origin?: string; accept?: string; junk?: [string, string][]; duplicate?: [string, string[]] };
export function applyExtra(h: Record<string, string | string[]>, x: Extra): void {
  if (x.origin) h.origin = x.origin;
  if (x.accept !== undefined) h.accept = x.accept;
  for (const [k, v] of x.junk ?? []) h[k] = v;
  if (x.duplicate) {
    const [k, vs] = x.duplicate;
    h[k] = h[k] === undefined ? vs : [...(Array.isArray(h[k]) ? h[k] : [h[k] as string]), ...vs];
  }
}

/** The key of an agent surface request. */
export type KeyChoice = 'P' | 'Q' | 'ws' | 'wsNoScope' | 'revoked' | 'none' | 'random';
export const keyPlan = fc.record({
  choice: fc.oneof(
    { weight: 10, arbitrary: fc.constant<KeyChoice>('P') },
    { weight: 1, arbitrary: fc.constant<KeyChoice>('ws') },
    { weight: 3, arbitrary: fc.constantFrom<KeyChoice>('Q', 'wsNoScope', 'revoked', 'none', 'random') },
  ),
  form: fc.constantFrom(
    'x-agent-access-key',
    'x-agent-access-key',
    'bearer',
    'lowercase-bearer',
    'basic',
    'both-mismatched',
  ),
  random: fc.string({ unit: headerChar, maxLength: 60 }),
});
export type KeyPlan = { choice: KeyChoice; form: string; random: string };
/** The headers of a key plan; 'P' is the addressed agent's own key (R's for R). */
export function keyHeaders(keys: FuzzTarget['keys'], k: KeyPlan, agentSymbol = 'P'): Record<string, string> {
  if (k.choice === 'none') return {};
  const value = k.choice === 'random' ? k.random : k.choice === 'P' && agentSymbol === 'R' ? keys.R : keys[k.choice];
  switch (k.form) {
    case 'bearer':
      return { authorization: `Bearer ${value}` };
    case 'lowercase-bearer':
      return { authorization: `bearer ${value}` };
    case 'basic':
      return { authorization: `Basic ${Buffer.from(`user:${value}`).toString('base64')}` };
    case 'both-mismatched':
      return { 'x-agent-access-key': value, authorization: `Bearer ${k.random}` };
    default:
      return { 'x-agent-access-key': value };
  }
}
export const agentSeg = fc.oneof(
  { weight: 12, arbitrary: fc.constant('P') },
  { weight: 2, arbitrary: fc.constant('R') },
  { weight: 1, arbitrary: fc.constant('Q') },
  { weight: 2, arbitrary: segment },
);

export const noNul = (s: string) => s.replace(/\u0000/g, '');
export const jsonLeaf = fc.jsonValue({ stringUnit: 'grapheme', maxDepth: 2 });
export const isoDate = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());
/** Bodies that are not what any surface expects. */
export const junkBody = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 80 }).map((s) => Buffer.from(s)) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 60 }).map((a) => Buffer.from(a)) },
  {
    weight: 3,
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
        '{"constructor": {"prototype": {"x": 1}}}',
        '[]',
        '0',
        'true',
        '{"message": "\\ud800"}',
        '{"a": 1e999}',
        '{"a": -0}',
        '\u0000',
      )
      .map((s) => Buffer.from(s)),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.jsonValue({ maxDepth: 3 }), fc.nat()).map(([v, cut]) => {
      const s = JSON.stringify(v) ?? 'null';
      return Buffer.from(s.slice(0, cut % (s.length + 1)));
    }),
  },
  { weight: 1, arbitrary: fc.integer({ min: 65, max: 3000 }).map((n) => Buffer.from('['.repeat(n) + ']'.repeat(n))) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 65, max: 500 }).map((n) => Buffer.from('{"a":'.repeat(n) + '1' + '}'.repeat(n))),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 200_000, max: Math.round(1.2 * MIB) }), fc.constantFrom('raw', 'json'))
      .map(([n, k]) =>
        Buffer.from(k === 'raw' ? 'x'.repeat(n) : JSON.stringify({ message: 'y'.repeat(n), items: [{ title: 'z' }] })),
      ),
  },
);
export const json = (v: unknown) => Buffer.from(JSON.stringify(v) ?? 'null');

// ---- well-formed requests mixed in, so that some succeed and write ------------------------------
export const validKey = fc.constantFrom<KeyPlan>(
  { choice: 'P', form: 'x-agent-access-key', random: '' },
  { choice: 'P', form: 'bearer', random: '' },
  { choice: 'ws', form: 'bearer', random: '' },
);
export const clean = { agent: 'P', query: '', type: 'application/json', extra: {} };
/** Fuzzed requests, well-formed ones, and (on the keyed surfaces) well-formed ones at R, refused by admission. */
export const mixed = (fuzzed: fc.Arbitrary<any>, cleanArb: fc.Arbitrary<any>, atR = false) =>
  fc.oneof(
    { weight: 6, arbitrary: fuzzed },
    { weight: 4, arbitrary: cleanArb },
    {
      weight: atR ? 1 : 0,
      arbitrary: cleanArb.map((x) => ({
        ...x,
        agent: 'R',
        key: { choice: 'P', form: 'x-agent-access-key', random: '' },
      })),
    },
  );
