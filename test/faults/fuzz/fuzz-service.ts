import { expect } from 'chai';
import fc from 'fast-check';
import http from 'node:http';
import type { Knex } from 'knex';
import { startE2eService, type E2eService } from '../../helpers/surface-service.js';
import { errorBodyProblem, inBandFailure, rpcMessages, type Reply, type Req, type Surface } from './fuzz-answers.js';
import {
  book,
  compareWithLedger,
  emptyLedger,
  explain,
  TableWatch,
  unlistedTables,
  type Ledger,
  type Snapshot,
  type Written,
} from './fuzz-tables.js';

// Fault suite, fuzzing part (issue 17): generated requests at one surface of an agent P — each
// `*.fuzz.test.ts` next to this file is one surface: HTTP API, Document API, MCP, chat, webhooks,
// Workspace API, the GraphQL management API. A private agent Q and an agent R without credits (its
// runs are refused by admission, 429) take some. Requests carry generated methods, paths
// (percent-escapes, malformed escapes, dot segments, unicode, very long), headers (content types,
// bogus credentials, huge and duplicated values), query strings and bodies (random bytes, truncated,
// deep and huge JSON, JSON of the wrong shape, JSON-RPC with wrong params, GraphQL documents with
// random operations and variables, chat messages of odd shapes), mixed with well-formed requests
// that succeed and write. Each surface file asserts:
//
// - no status ≥ 500 but the documented 503, which carries Retry-After (and no internal error
//   answered in-band: a JSON-RPC -32603, a GraphQL INTERNAL_SERVER_ERROR, a stream's "The run failed");
// - every 4xx has the error body of its surface (DESIGN §6/§7): `{"error": string}` (+ `reason` on a
//   429) on the agent surfaces, exactly `{"error": string}` on the Workspace API, that or a JSON-RPC
//   error on MCP, an `errors` array on GraphQL;
// - no partial write: after every request the domain tables differ from before by exactly what the
//   answer says was written (nothing for a refusal); the database ends holding exactly the ledger of
//   what answers reported (records, conversations and their turns, webhook deliveries and their runs,
//   messages, secrets) — nothing more, nothing less;
// - afterwards /healthz and /readyz answer 200 and one valid call to the surface succeeds.
//
// Requests go one at a time through node:http (not fetch), so paths reach the server byte for byte,
// duplicate headers are sent as separate lines, and the database can be compared between two
// requests. The seed is fixed and printed (surface i runs with seed + i; a failure prints fast-check's
// seed and path, and the request); FUZZ_SEED=<n> runs another, FUZZ_RUNS=<n> changes the number of
// requests per surface, FUZZ_SURVEY=1 lists every problem instead of stopping at the first. The
// summary line is printed at the end of each surface:
//   fuzz: sent N, accepted A (2xx), refused R (4xx), unavailable U (503), server errors E, partial writes P, lost L

export const SEED = Number(process.env.FUZZ_SEED ?? 170417);
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
export const ADMIN_TOKEN = 'fault-fuzz-admin-token-0123456789';
export const PLATFORM = 'https://app.example.test';
export const BLOCKED = 'zq-blocked-qz';
export const SIGNING = 'fuzz-signing-secret';
export const MIB = 1024 * 1024;
/** FUZZ_SURVEY=1: note every problem and go on, instead of stopping (and shrinking) at the first. */
const SURVEY = process.env.FUZZ_SURVEY === '1';

/** The target a surface is fuzzed against; filled in before the first request. */
export interface FuzzTarget {
  ids: { P: string; Q: string; R: string; dbR: string };
  keys: { P: string; Q: string; R: string; ws: string; revoked: string; wsNoScope: string };
  doc: { db: string; txt: string; ro: string; notes: string; hooklog: string };
  ledger: Ledger;
  /** An agent symbol ('P', 'Q', 'R') as its id; anything else as is. */
  agentOf(a: string): string;
}

/** What the fuzz of a surface must have reached: a write of these kinds, a refusal by admission. */
export type Reach = 'records' | 'conversations' | 'deliveries' | 'messages' | 'limited';

export interface SurfacePlan {
  surface: Surface;
  arb: fc.Arbitrary<any>;
  build: (x: any) => Req;
  /** What a 2xx says it wrote (asked only of a 2xx). */
  written: (req: Req) => (r: Reply) => Written;
  /** One well-formed request that succeeds once the fuzz is over. */
  valid: () => Req;
  reaches: Reach[];
}

/** The seed offset of each surface (the order the fuzz ran them in when it was one file). */
const SEED_OFFSET: Record<Surface, number> = { http: 0, doc: 1, mcp: 2, chat: 3, webhook: 4, workspace: 5, graphql: 6 };

/** The agents, keys, documents and entries the fuzz aims at, created through GraphQL. */
async function createTarget(
  gql: (query: string, variables?: Record<string, unknown>) => Promise<any>,
): Promise<Omit<FuzzTarget, 'ledger' | 'agentOf'>> {
  const keys = { P: '', Q: '', R: '', ws: '', revoked: '', wsNoScope: '' };
  const doc = { db: '', txt: '', ro: '', notes: '', hooklog: '' };
  const mk = async (input: Record<string, unknown>) =>
    (await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', { i: input })).createAgent
      .id as string;
  const P = await mk({
    name: 'Fuzz target',
    instructions: 'Answer briefly.',
    defaultModel: 'fake-model',
    allowWorkspaceKeys: true,
  });
  const Q = await mk({ name: 'Private other', defaultModel: 'fake-model', visibility: 'PRIVATE' });
  const R = await mk({ name: 'Out of credits', defaultModel: 'fake-model' });
  const agentKey = async (a: string) =>
    (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key apiKey { id } } }', { a }))
      .createAgentApiKey;
  keys.P = (await agentKey(P)).key;
  keys.Q = (await agentKey(Q)).key;
  keys.R = (await agentKey(R)).key;
  const revoked = await agentKey(P);
  keys.revoked = revoked.key;
  await gql('mutation($id: ID!) { revokeApiKey(id: $id) }', { id: revoked.apiKey.id });
  keys.ws = (
    await gql('mutation { createWorkspaceApiKey(name: "ws", scopes: [WORKSPACE_READ]) { key } }')
  ).createWorkspaceApiKey.key;
  keys.wsNoScope = (
    await gql('mutation { createWorkspaceApiKey(name: "ws-none", scopes: []) { key } }')
  ).createWorkspaceApiKey.key;

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
  doc.notes = await create({
    name: 'Notes',
    kind: 'DATABASE',
    fields: [{ name: 'title', type: 'STRING', required: true }],
  });
  doc.hooklog = await create({
    name: 'Webhook runs',
    kind: 'DATABASE',
    fields: [
      { name: 'deliveryId', type: 'STRING', required: true },
      { name: 'attempt', type: 'NUMBER', required: true },
    ],
  });
  const expose = (d: string, read: boolean, write: boolean) =>
    gql(
      'mutation($a: ID!, $d: ID!, $r: Boolean, $w: Boolean) { exposeDocument(agentId: $a, documentId: $d, read: $r, write: $w) { id } }',
      { a: P, d, r: read, w: write },
    );
  await expose(doc.db, true, true);
  await expose(doc.txt, true, true);
  await expose(doc.ro, true, false);
  await expose(doc.notes, true, false);
  await gql(
    'mutation($a: ID!) { setGuardrails(agentId: $a, input: { blockedInputPatterns: ["zq-blocked-qz"], maxInputChars: 4000 }) { id } }',
    { a: P },
  );

  // HTTP API: script endpoints that cannot throw, one that writes a note, one prompt endpoint (the fake model echoes).
  const echo = 'return { params: request.params, query: request.query, method: request.method, body: input };';
  // Writes one note when the body has a string title; the ids it inserted are its output.
  const note =
    `const title = input && typeof input === 'object' && typeof input.title === 'string' ? input.title : null;` +
    ` if (title === null) return { inserted: [] };` +
    ` try { const r = await documents.insert(${JSON.stringify(doc.notes)}, [{ title }]); return { inserted: r.records.map((x) => x.id) }; }` +
    ` catch (e) { return { inserted: [], refused: String(e && e.message) }; }`;
  const add = (input: Record<string, unknown>) =>
    gql('mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
      a: P,
      i: input,
    });
  await add({ path: 'echo', handler: { script: echo } });
  await add({ path: 'items/{id}', methods: ['GET', 'POST', 'PUT'], handler: { script: echo } });
  await add({ path: 'items/{id}/parts/{part}', methods: ['PATCH', 'DELETE'], handler: { script: echo } });
  await add({ path: 'ask', methods: ['GET', 'POST'], handler: { prompt: 'Answer briefly.' } });
  await add({ path: 'notes', methods: ['POST'], handler: { script: note } });

  // MCP: the same three handlers as tools.
  const tool = (input: Record<string, unknown>) =>
    gql('mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', { a: P, i: input });
  await tool({ name: 'echo', description: 'Echoes its input', handler: { script: 'return { echoed: input };' } });
  await tool({
    name: 'note',
    description: 'Writes a note',
    handler: { script: note },
    inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
  });
  await tool({ name: 'ask', description: 'Asks the agent', handler: { prompt: 'Answer briefly.' } });

  // R: the same entries, no credits.
  await gql('mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
    a: R,
    i: { path: 'echo', handler: { script: echo } },
  });
  await gql('mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
    a: R,
    i: { path: 'ask', methods: ['GET', 'POST'], handler: { prompt: 'Answer briefly.' } },
  });
  await gql('mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
    a: R,
    i: { name: 'echo', description: 'Echoes', handler: { script: 'return input;' } },
  });
  await gql('mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
    a: R,
    i: { name: 'ask', description: 'Asks', handler: { prompt: 'Answer briefly.' } },
  });
  const dbR = (
    await gql('mutation($a: ID!, $i: DocumentInput!) { createDocument(agentId: $a, input: $i) { id } }', {
      a: R,
      i: { name: 'Records', kind: 'DATABASE', fields },
    })
  ).createDocument.id;
  await gql(
    'mutation($a: ID!, $d: ID!) { exposeDocument(agentId: $a, documentId: $d, read: true, write: true) { id } }',
    { a: R, d: dbR },
  );
  await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 0) { id } }', { a: R });

  // Webhooks: one unsigned integration, one signed with HMAC-SHA256; each run records itself in hooklog.
  await gql(
    'mutation($v: String!) { createSecret(name: "fuzz-signing", kind: WEBHOOK_SIGNING_SECRET, value: $v) { name } }',
    { v: SIGNING },
  );
  const hookScript = `await documents.insert(${JSON.stringify(doc.hooklog)}, [{ deliveryId: request.delivery.id, attempt: request.delivery.attempt }]); return { ok: true };`;
  const hook = (input: Record<string, unknown>) =>
    gql('mutation($a: ID!, $i: WebhookInput!) { addWebhook(agentId: $a, input: $i) { id } }', { a: P, i: input });
  await hook({ integration: 'open', handler: { script: hookScript } });
  await hook({
    integration: 'signed',
    handler: { script: hookScript },
    signature: { scheme: 'HMAC_SHA256', secretName: 'fuzz-signing' },
  });
  return { ids: { P, Q, R, dbR }, keys, doc };
}

/**
 * Fuzzes one surface of a service of its own: `plan` gets the target (filled in before the first
 * request) and returns the generators; the tests check every answer and the database after it.
 */
export function describeFuzz(title: string, plan: (target: FuzzTarget) => SurfacePlan): void {
  describe(title, function () {
    this.timeout(300_000);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
    let svc: E2eService | undefined;
    let db: Knex;
    let base: URL;
    let watch: TableWatch;
    let initial: Snapshot = new Map();
    const started = Date.now();
    const ledger = emptyLedger();
    const target: FuzzTarget = {
      ids: { P: '', Q: '', R: '', dbR: '' },
      keys: { P: '', Q: '', R: '', ws: '', revoked: '', wsNoScope: '' },
      doc: { db: '', txt: '', ro: '', notes: '', hooklog: '' },
      ledger,
      agentOf: (a) => (a === 'P' ? target.ids.P : a === 'Q' ? target.ids.Q : a === 'R' ? target.ids.R : a),
    };
    const p = plan(target);
    const tally = { sent: 0, accepted: 0, refused: 0, unavailable: 0, serverErrors: 0, partial: 0, lost: 0 };
    const bySurface = new Map<Surface, Map<number, number>>();
    const problems: string[] = [];
    let closedOnOversized = 0;

    function send(r: Req): Promise<Reply> {
      return new Promise((resolve, reject) => {
        const headers: Record<string, string | string[]> = { ...r.headers };
        if (r.body !== undefined) headers['content-length'] = String(r.body.length);
        let answered: Reply | undefined;
        const req = http.request(
          { host: base.hostname, port: base.port, method: r.method, path: r.path, headers, agent },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve(
                (answered = {
                  status: res.statusCode!,
                  headers: res.headers,
                  text: Buffer.concat(chunks).toString('utf8'),
                }),
              ),
            );
            res.on('error', reject);
          },
        );
        req.setTimeout(30_000, () =>
          req.destroy(new Error(`no answer within 30 s (a hang): ${r.method} ${r.path.slice(0, 200)}`)),
        );
        req.on('error', (err: NodeJS.ErrnoException) => {
          // The server answered (a 413 it closes the connection after) before the body was all written.
          if (answered) return;
          // Or its 413 was lost to the reset of a connection it closed on an unread body over the
          // limit — 1 MiB, 64 KiB for the webhook receiver's unsigned integration — (the client was
          // still sending): a refusal too, whose answer the client cannot read.
          const limit = r.path.includes('/webhook/') ? 64 * 1024 : MIB;
          if ((r.body?.length ?? 0) > limit && ['ECONNRESET', 'EPIPE'].includes(err.code ?? '')) {
            closedOnOversized++;
            return resolve({
              status: 413,
              headers: { 'content-type': 'application/json' },
              text: JSON.stringify({ error: `Request body is too large (the connection was reset: ${err.code})` }),
            });
          }
          reject(err);
        });
        req.end(r.body);
      });
    }

    async function gql(query: string, variables: Record<string, unknown> = {}): Promise<any> {
      const r = await send({
        method: 'POST',
        path: '/graphql',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
        body: Buffer.from(JSON.stringify({ query, variables })),
      });
      const body = JSON.parse(r.text) as { data?: any; errors?: unknown[] };
      if (body.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
      return body.data;
    }

    /**
     * Counts one answer, checks its status and error body, and checks the database against what the
     * answer says it wrote (`written` reads the answer; it is asked only of a 2xx).
     */
    async function observe(s: Surface, req: Req, r: Reply, written: (r: Reply) => Written = () => ({})): Promise<void> {
      tally.sent++;
      const statuses = bySurface.get(s) ?? new Map<number, number>();
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      bySurface.set(s, statuses);
      const where = `${s}: ${req.method} ${req.path.slice(0, 300)} ${JSON.stringify(req.headers).slice(0, 300)} body ${req.body === undefined ? '-' : JSON.stringify(req.body.subarray(0, 200).toString('utf8'))} → ${r.status} ${r.text.slice(0, 400)}`;
      const failures: string[] = [];
      const inBand = inBandFailure(s, req, r);
      if (r.status === 503) {
        tally.unavailable++;
        if (!/^\d+$/.test(String(r.headers['retry-after']))) failures.push('503 without Retry-After');
      } else if (r.status >= 500 || inBand) {
        tally.serverErrors++;
        failures.push(inBand ?? `status ${r.status}`);
      } else if (r.status >= 400) {
        tally.refused++;
        if (req.method !== 'HEAD') {
          const p = errorBodyProblem(s, r);
          if (p) failures.push(`error body: ${p}`);
        }
      } else {
        tally.accepted++;
      }
      const w = r.status >= 200 && r.status < 300 && !inBand ? written(r) : {};
      if (w.problem) failures.push(w.problem);
      const diff = await watch.changes();
      const { unexplained, missing } = explain(diff, w);
      book(ledger, w, diff);
      if (unexplained.length) {
        tally.partial += unexplained.length;
        failures.push(`partial write: ${unexplained.join('; ')}`);
      }
      if (missing.length) {
        tally.lost += missing.length;
        failures.push(`answered as written but not in the database: ${missing.join('; ')}`);
      }
      if (failures.length) {
        problems.push(`${failures.join(' | ')} — ${where}`);
        if (!SURVEY) expect.fail(`${failures.join(' | ')}\n  ${where}`);
      }
    }

    before(async function () {
      console.log(
        `      fuzz seed ${SEED + SEED_OFFSET[p.surface]}, ${RUNS} requests (FUZZ_SEED, FUZZ_RUNS to change)`,
      );
      svc = await startE2eService(`fault_fuzz_${p.surface}`, {
        adminToken: ADMIN_TOKEN,
        platformOrigin: PLATFORM,
        build: { housekeepingMs: 0, chatKeepAliveMs: 60_000 },
      });
      base = new URL(svc.url);
      db = svc.service.db;
      const created = await createTarget(gql);
      Object.assign(target.ids, created.ids);
      Object.assign(target.keys, created.keys);
      Object.assign(target.doc, created.doc);
      // Every table of the schema is compared or excluded for a stated reason.
      expect(await unlistedTables(db), 'tables neither compared nor excluded').to.deep.equal([]);
      watch = new TableWatch(db, target.doc.hooklog);
      initial = await watch.start();
      for (const [k, x] of initial.get('document_records')!) ledger.records.set(k, JSON.parse(x).document_id);
    });

    after(async () => {
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      console.log(
        `      fuzz: sent ${tally.sent}, accepted ${tally.accepted} (2xx), refused ${tally.refused} (4xx), unavailable ${tally.unavailable} (503), server errors ${tally.serverErrors}, partial writes ${tally.partial}, lost ${tally.lost}`,
      );
      const per = [...bySurface].map(
        ([s, m]) =>
          `${s} ${[...m]
            .sort((a, b) => a[0] - b[0])
            .map(([st, n]) => `${st}×${n}`)
            .join(' ')}`,
      );
      console.log(
        `      fuzz detail (seed ${SEED + SEED_OFFSET[p.surface]}, ${secs} s): ${per.join('; ')}; webhook deliveries ${ledger.deliveries.size} (${ledger.duplicatesAnswered} redeliveries answered with the first id), conversations ${ledger.conversations.size}, records ${ledger.records.size}, connections reset on a body over its limit ${closedOnOversized}`,
      );
      for (const pr of problems.slice(0, SURVEY ? 200 : 10)) console.log(`      fuzz problem: ${pr.slice(0, 1000)}`);
      agent.destroy();
      await svc?.stop();
    });

    it(`${p.surface}: no 5xx but 503, documented error bodies, no partial write`, async () => {
      await fc.assert(
        fc.asyncProperty(p.arb, async (x) => {
          const req = p.build(x);
          const r = await send(req);
          await observe(p.surface, req, r, p.written(req));
        }),
        { numRuns: RUNS, seed: SEED + SEED_OFFSET[p.surface] },
      );
      // The generators reach past the first checks: some requests succeed and some are refused.
      const statuses = bySurface.get(p.surface)!;
      expect(tally.sent).to.be.at.least(RUNS);
      expect(
        [...statuses.keys()].some((s) => s < 300),
        `successes on ${p.surface}: ${JSON.stringify([...statuses])}`,
      ).to.equal(true);
      expect(
        [...statuses.keys()].some((s) => s >= 400),
        `refusals on ${p.surface}: ${JSON.stringify([...statuses])}`,
      ).to.equal(true);
    });

    it('the server is healthy afterwards: /healthz, /readyz and one valid call', async () => {
      // First, that the fuzz reached deep enough to write and to meet admission.
      const reached: Record<Reach, number> = {
        records: ledger.records.size - initial.get('document_records')!.size,
        conversations: ledger.conversations.size,
        deliveries: ledger.deliveries.size,
        messages: ledger.messages.size,
        limited: bySurface.get(p.surface)?.get(429) ?? 0,
      };
      for (const what of p.reaches) expect(reached[what], `${what} reached by the fuzz`).to.be.above(0);
      const get = (path: string) => send({ method: 'GET', path, headers: {} });
      expect((await get('/healthz')).status).to.equal(200);
      expect((await get('/readyz')).status).to.equal(200);
      const req = p.valid();
      const r = await send(req);
      await observe(p.surface, req, r, p.written(req));
      expect(r.status, `${p.surface}: ${r.text.slice(0, 300)}`).to.equal(200);
      if (p.surface === 'mcp') expect((rpcMessages(r)[0] as any)?.result?.isError, r.text).to.not.equal(true);
      if (p.surface === 'graphql') expect(JSON.parse(r.text).errors, r.text).to.equal(undefined);
    });

    it('the database holds exactly what the accepted requests reported: nothing more, nothing less', async () => {
      const { surplus, missing } = await compareWithLedger(db, watch, ledger, initial, target.doc.hooklog, (line) =>
        console.log(line),
      );
      tally.partial += surplus.length;
      tally.lost += missing.length;
      expect(surplus, 'in the database but in no answer').to.deep.equal([]);
      expect(missing, 'answered as written but not in the database').to.deep.equal([]);
    });
  });
}

/** A JSON request body. */
export const json = (v: unknown) => Buffer.from(JSON.stringify(v) ?? 'null');
