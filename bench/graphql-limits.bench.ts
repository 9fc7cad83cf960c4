// GraphQL operation limits (src/graphql/limits.ts): how long validation takes on hostile documents
// (graphql's own rules plus operationLimits, in process), what the refused ones cost over HTTP, and
// the largest responses the limits still accept: an introspection alias flood, and activity pages
// whose logged bodies are all at the 64 KiB cap.
//
//   npx tsx bench/graphql-limits.bench.ts
import { getIntrospectionQuery, parse, specifiedRules, validate } from 'graphql';
import { newId } from '../src/domain/ids.js';
import type { ActivityEntry } from '../src/domain/activity/activity.entities.js';
import { MAX_COMPLEXITY, operationLimits } from '../src/graphql/limits.js';
import { buildGraphqlSchema } from '../src/graphql/schema.js';
import { loadConfig } from '../src/infra/config.js';
import { buildService } from '../src/server.js';

const ADMIN = 'bench-admin-token-0123456789';
const fragmentBomb = (n: number) =>
  [
    `{ ...G${n} }`,
    ...Array.from({ length: n }, (_, i) => `fragment G${n - i} on Query { ...G${n - i - 1} ...G${n - i - 1} }`),
    'fragment G0 on Query { __typename }',
  ].join('\n');
const fragmentChain = (n: number) =>
  [
    `{ ...C${n} }`,
    ...Array.from({ length: n }, (_, i) => `fragment C${n - i} on Query { ...C${n - i - 1} }`),
    'fragment C0 on Query { __typename }',
  ].join('\n');
const ms = (t: number) => Math.round(t * 10) / 10;
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// 1. Validation in process, median of 7.
const schema = await buildGraphqlSchema();
const rules = [...specifiedRules, operationLimits()];
const documents: Record<string, string> = {
  'fragment bomb G22': fragmentBomb(22),
  'fragment bomb G23': fragmentBomb(23),
  'fragment bomb G1000': fragmentBomb(1000),
  'fragment chain of 1,800': fragmentChain(1800),
  'standard introspection query': getIntrospectionQuery(),
};
const validation = Object.entries(documents).map(([name, q]) => {
  const doc = parse(q);
  let errors: string[] = [];
  const times = Array.from({ length: 7 }, () => {
    const t = performance.now();
    errors = validate(schema, doc, rules).map((e) => e.message);
    return performance.now() - t;
  });
  return {
    document: name,
    bytes: q.length,
    'validate ms (p50)': ms(median(times)),
    answer: errors.length ? errors[0]!.slice(0, 48) : 'accepted',
  };
});
console.log('Validation, all rules, in process');
console.table(validation);

// 2. Over HTTP, on the embedded database.
const service = await buildService(
  loadConfig({
    DATA_DIR: 'memory',
    SECRETS_KEY: Buffer.alloc(32, 3).toString('base64'),
    ADMIN_TOKEN: ADMIN,
    LOG_LEVEL: 'error',
  }),
  { housekeepingMs: 0 },
);
const { url } = await service.listen(0);
async function post(query: string): Promise<{ status: number; bytes: number; ms: number; body: any }> {
  const t = performance.now();
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}`, connection: 'close' },
    body: JSON.stringify({ query }),
  });
  const text = await res.text();
  const took = performance.now() - t;
  return {
    status: res.status,
    bytes: text.length,
    ms: ms(took),
    body: text.length < 1_000_000 ? JSON.parse(text) : undefined,
  };
}
const fits = (q: string) => validate(schema, parse(q), rules).length === 0;
/** The most aliases of `selection` that the limits accept. */
function mostAliases(selection: (i: number) => string, wrap = (s: string) => `{ ${s} }`): string {
  let k = 1;
  while (fits(wrap(Array.from({ length: k + 1 }, (_, i) => `a${i}: ${selection(i)}`).join(' ')))) k++;
  return wrap(Array.from({ length: k }, (_, i) => `a${i}: ${selection(i)}`).join(' '));
}

const { workspace } = (await post('{ workspace { id } }')).body.data;
const agentId = (await post('mutation { createAgent(input: {name: "bench"}) { id } }')).body.data.createAgent
  .id as string;
const body = { text: 'x'.repeat(64 * 1024 - 20) };
const now = Date.now();
const entries: ActivityEntry[] = Array.from({ length: 200 }, (_, i) => ({
  id: newId('act'),
  workspaceId: workspace.id,
  agentId,
  kind: 'request',
  surface: 'HTTP_API',
  entry: 'ask',
  method: 'POST',
  path: '/ask',
  status: 200,
  requestHeaders: { 'content-type': 'application/json' },
  requestBody: body,
  response: body,
  truncated: false,
  credits: 0,
  durationMs: 1,
  keyId: null,
  oauthClientId: null,
  grantedBy: null,
  runId: null,
  requestId: null,
  error: null,
  logs: null,
  createdAt: new Date(now - i * 1000),
  protocol: false,
  deliveryId: null,
}));
await service.store.repos.activity.insertMany(entries);

const introspectionFlood = mostAliases(
  () => '__schema { types { fields { type { fields { name type { name } args { name type { name } } } } } } }',
);
const activityFlood = mostAliases(
  () => 'activity(first: 200) { nodes { response } }',
  (s) => `{ agent(id: "${agentId}") { ${s} } }`,
);
const http = [];
for (const [name, q] of [
  ['fragment bomb G22 (refused)', fragmentBomb(22)],
  ['fragment bomb G23 (refused)', fragmentBomb(23)],
  ['standard introspection query', getIntrospectionQuery()],
  [
    `introspection flood, ${(introspectionFlood.match(/__schema/g) ?? []).length} aliases (largest accepted)`,
    introspectionFlood,
  ],
  [
    `activity: ${(activityFlood.match(/activity\(/g) ?? []).length} pages of 200 × 64 KiB response (largest accepted)`,
    activityFlood,
  ],
] as const) {
  await post(q); // warm-up
  const r = await post(q);
  http.push({ request: name, status: r.status, 'response bytes': r.bytes, ms: r.ms });
}
console.log(`\nOver HTTP (budget ${MAX_COMPLEXITY}), second of two requests`);
console.table(http);
console.log(`rss after: ${Math.round(process.memoryUsage().rss / 1048576)} MiB`);
await service.close();
