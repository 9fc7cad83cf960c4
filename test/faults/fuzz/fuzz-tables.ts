import { expect } from 'chai';
import type { Knex } from 'knex';
import { canonical } from './fuzz-answers.js';

// The database side of the fuzz: which tables are compared around every request, what changed,
// whether an answer accounts for it, and at the end whether the database holds exactly the ledger of
// what answers reported.

/**
 * A webhook delivery is accepted whatever its payload; its run then meets the agent's input
 * guardrails (maxInputChars 4000, the blocked phrase) like any other run, and a refused run fails
 * the delivery for good (DESIGN §6: limits and failures of the later run go to the activity log).
 */
const GUARDRAIL_REFUSAL = /accepts at most 4000|blocked/i;

// ---- the domain tables a refused request must not change -----------------------------------------

/**
 * Tables of `migrations/` compared before and after every request. Columns that change without any
 * write of the caller's are left out: a key's or token's `last_used_at` (stamped on every
 * authenticated request, refused later or not), and a webhook delivery's queue state (status,
 * attempts, lease…), which the background worker advances — its stored request is compared. The
 * webhook handler's own document (`hooklog`) is written by that worker too, so it is checked once
 * the queue is drained instead.
 */
export interface TableSpec {
  name: string;
  key: string;
  exclude?: string[];
  /** Columns compared by their md5 (large values: the digest is taken after every request). */
  hashed?: string[];
  where?: string;
}
export const TABLES: TableSpec[] = [
  { name: 'workspaces', key: 'id' },
  { name: 'teams', key: 'id' },
  { name: 'members', key: 'id' },
  { name: 'member_tokens', key: 'id', exclude: ['last_used_at'] },
  { name: 'console_sessions', key: 'id', exclude: ['last_seen_at'] },
  { name: 'agents', key: 'id' },
  { name: 'agent_changes', key: 'id' },
  { name: 'api_keys', key: 'id', exclude: ['last_used_at'] },
  { name: 'http_endpoints', key: 'id' },
  { name: 'mcp_tools', key: 'id' },
  { name: 'webhooks', key: 'id' },
  { name: 'channels', key: 'id' },
  // Schedules (issue 54): no fuzzed surface adds one; their fires are the schedule loop's (NOT_COMPARED).
  { name: 'schedules', key: 'id' },
  { name: 'documents', key: 'id', where: 'id <> :hooklog' },
  { name: 'document_records', key: 'id', where: 'document_id <> :hooklog' },
  { name: 'document_exposures', key: 'id' },
  { name: 'secrets', key: 'id' },
  { name: 'models', key: 'id' },
  { name: 'messages', key: 'id' },
  // An email's attachments (their bytes compared by digest) and Mailgun's used tokens: no fuzzed
  // surface writes either (mail arrives over SMTP or a signed Mailgun post).
  { name: 'message_attachments', key: "message_id || ' ' || position::text", hashed: ['content'] },
  { name: 'mailgun_tokens', key: 'id' },
  { name: 'message_day_counts', key: "agent_id || ' ' || day::text || ' ' || direction || ' ' || channel" },
  // An email channel's intake of the day (messages and bytes stored): no fuzzed surface takes mail in.
  { name: 'channel_intake_days', key: "channel_id || ' ' || day::text" },
  { name: 'conversations', key: 'id' },
  { name: 'chat_turns', key: 'id' },
  { name: 'openai_responses', key: 'id' },
  { name: 'a2a_tasks', key: 'id' },
  { name: 'approval_policies', key: 'agent_id' },
  { name: 'approvals', key: 'id' },
  { name: 'mcp_grants', key: 'id' },
  { name: 'oauth_records', key: "model || ' ' || id" },
  // People (issue 52): no fuzzed surface signs in, invites or links an identity. An account's
  // sign-in bookkeeping (its last workspace, failed attempts, lockout) is left out like a key's use.
  {
    name: 'accounts',
    key: 'id',
    exclude: ['last_workspace_id', 'failed_sign_ins', 'locked_until', 'updated_at'],
  },
  { name: 'account_identities', key: 'id' },
  { name: 'invitations', key: 'id' },
  {
    name: 'webhook_deliveries',
    key: 'id',
    exclude: [
      'status',
      'attempts',
      'failures',
      'last_error',
      'run_id',
      'next_attempt_at',
      'locked_until',
      'updated_at',
      'completed_at',
    ],
    hashed: ['raw_body', 'headers', 'query'],
  },
  // Outbound events (issue 54): no fuzzed request subscribes a URL, so no event is stored either.
  { name: 'event_subscriptions', key: 'id' },
  { name: 'event_deliveries', key: 'id' },
  { name: 'event_delivery_attempts', key: "delivery_id || ' ' || attempt" },
];
/**
 * Tables left out, and why: each changes legitimately on a refused request or in the background.
 * The test fails if a migration adds a table that is in neither list.
 */
export const NOT_COMPARED: Record<string, string> = {
  activity_log: 'every request gets an entry, refused ones included (DESIGN §5 step 9), written after the answer',
  credit_usage:
    'credit counters and reservations: admission reserves and gives back, webhook runs charge in the background',
  run_slots: 'concurrency and credit leases, taken and freed around every run (also by the webhook worker)',
  oauth_registration_counts:
    'registrations per remote address and hour: counted before the registration is checked (a refused one counts too)',
  agent_queue_serves: 'which agent the queues served last, written by every claim of the background workers',
  schedule_fires: "a schedule's occurrences, recorded and settled in the background by every instance's schedule loop",
  knex_migrations: 'schema bookkeeping',
  knex_migrations_lock: 'schema bookkeeping',
};

export type Rows = Map<string, string>;
export type Snapshot = Map<string, Rows>;
export interface TableDiff {
  added: Map<string, any>;
  removed: Map<string, any>;
  changed: Map<string, { before: any; after: any }>;
}

/** What an answer says it wrote; anything else that changed is a partial write. */
export interface Written {
  /** Records inserted into a document, by id, with what the answer showed of each (`{id, ...fields}`), when it did. */
  addRecords?: { doc: string; ids: string[]; records?: Record<string, unknown>[] };
  /** `{updated}` records of a document changed, only in these fields. */
  changeRecords?: { doc: string; count: number; fields: string[] };
  /** `{deleted}` records of a document removed. */
  removeRecords?: { doc: string; count: number };
  /** The document's own row (a PUT). */
  documentRow?: string;
  /** A chat run: the conversation (new or continued) and the turns it added. */
  conversation?: { id: string; isNew: boolean; turns: number };
  /** A webhook delivery stored. */
  delivery?: string;
  /** A message recorded (GraphQL recordMessage). */
  message?: string;
  /** A secret created (GraphQL createSecret). */
  secret?: string;
  /** Something in the answer contradicts the ledger. */
  problem?: string;
}

/** What the accepted answers reported writing, across the whole fuzz of one service. */
export interface Ledger {
  /** Record id → document, of every document but hooklog. */
  records: Map<string, string>;
  /** Records no update touched since their insert: id → the data stored then (checked against the answer). */
  pristine: Map<string, Record<string, unknown>>;
  conversations: Map<string, { visitor: string | null; turns: number }>;
  deliveries: Map<string, { integration: string }>;
  duplicatesAnswered: number;
  messages: Set<string>;
  secrets: Set<string>;
  /** The last successful PUT of a document: what its row must hold. */
  documents: Map<string, { name: string; description: string; content: string }>;
}

export function emptyLedger(): Ledger {
  return {
    records: new Map(),
    pristine: new Map(),
    conversations: new Map(),
    deliveries: new Map(),
    duplicatesAnswered: 0,
    messages: new Set(),
    secrets: new Set(),
    documents: new Map(),
  };
}

export const rowsOf = (res: any): any[] => (Array.isArray(res) ? res : res.rows);

/** Every table of the schema that is neither compared nor excluded for a stated reason. */
export async function unlistedTables(db: Knex): Promise<string[]> {
  const tables = rowsOf(
    await db.raw(
      "select table_name as t from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name not in (select relname::text from pg_class where relispartition)",
    ),
  ).map((r: any) => r.t as string);
  return tables.filter((t: string) => !TABLES.some((s) => s.name === t) && !(t in NOT_COMPARED));
}

/** Watches the compared tables: a digest per table after every request, rows only of those that changed. */
export class TableWatch {
  private snap: Snapshot = new Map();
  private lastDigests = new Map<string, string>();

  /** `hooklog`: the webhook handler's own document, written by the background worker (checked once the queue is drained). */
  constructor(
    private readonly db: Knex,
    private readonly hooklog: string,
  ) {}

  /** Takes the first snapshot and returns a copy of it (the state before the fuzz). */
  async start(): Promise<Snapshot> {
    this.snap = await this.snapshot();
    this.lastDigests = await this.digests();
    return new Map([...this.snap].map(([k, v]) => [k, new Map(v)]));
  }

  private selectOf(t: TableSpec): string {
    const left = [...(t.exclude ?? []), ...(t.hashed ?? [])].map((c) => `'${c}'`).join(',');
    const hashed = (t.hashed ?? []).map((c) => `, '${c}_md5', md5(${c}::text)`).join('');
    const row = `(to_jsonb(t) - array[${left}]::text[])${hashed ? ` || jsonb_build_object(${hashed.slice(2)})` : ''}`;
    return `select ${t.key} as k, (${row})::text as x from ${t.name} t${t.where ? ` where ${t.where}` : ''}`;
  }
  private bind(sql: string): string {
    return sql.replace(/:hooklog/g, `'${this.hooklog}'`);
  }

  /** A digest per table (row count and two order-free sums of row hashes), in one statement. */
  private async digests(): Promise<Map<string, string>> {
    const sql = TABLES.map(
      (t) =>
        `select '${t.name}' as t, count(*) || ':' || coalesce(sum(hashtext(s.k || '=' || s.x)::bigint), 0) || ':' || coalesce(sum(hashtext(s.x || s.k)::bigint), 0) as d from (${this.selectOf(t)}) s`,
    ).join(' union all ');
    const out = new Map<string, string>();
    for (const row of rowsOf(await this.db.raw(this.bind(sql)))) out.set(row.t, row.d);
    return out;
  }
  private async rowsOfTable(t: TableSpec): Promise<Rows> {
    const m: Rows = new Map();
    for (const row of rowsOf(await this.db.raw(this.bind(this.selectOf(t))))) m.set(row.k, row.x);
    return m;
  }
  async snapshot(): Promise<Snapshot> {
    const s: Snapshot = new Map();
    for (const t of TABLES) s.set(t.name, await this.rowsOfTable(t));
    return s;
  }

  /** The tables whose rows changed since the last look, with their differences; updates `snap`. */
  async changes(): Promise<Map<string, TableDiff>> {
    const now = await this.digests();
    const out = new Map<string, TableDiff>();
    for (const t of TABLES) {
      if (now.get(t.name) === this.lastDigests.get(t.name)) continue;
      const before = this.snap.get(t.name)!;
      const after = await this.rowsOfTable(t);
      const d: TableDiff = { added: new Map(), removed: new Map(), changed: new Map() };
      for (const [k, x] of after) {
        const b = before.get(k);
        if (b === undefined) d.added.set(k, JSON.parse(x));
        else if (b !== x) d.changed.set(k, { before: JSON.parse(b), after: JSON.parse(x) });
      }
      for (const [k, x] of before) if (!after.has(k)) d.removed.set(k, JSON.parse(x));
      this.snap.set(t.name, after);
      if (d.added.size || d.removed.size || d.changed.size) out.set(t.name, d);
    }
    this.lastDigests = now;
    return out;
  }
}

/** The changes `w` does not account for (a partial write), and what `w` promised but did not happen (lost). */
export function explain(diff: Map<string, TableDiff>, w: Written): { unexplained: string[]; missing: string[] } {
  const unexplained: string[] = [];
  const missing: string[] = [];
  const take = (table: string) => diff.get(table) ?? { added: new Map(), removed: new Map(), changed: new Map() };
  const recs = take('document_records');
  const wantIds = new Set(w.addRecords?.ids ?? []);
  for (const [k, row] of recs.added) {
    if (wantIds.has(k) && row.document_id === w.addRecords!.doc) wantIds.delete(k);
    else unexplained.push(`document_records +${k} (${JSON.stringify(row).slice(0, 200)})`);
  }
  for (const id of wantIds) missing.push(`document_records ${id}`);
  for (const shown of w.addRecords?.records ?? []) {
    const { id, ...fields } = shown;
    const row = recs.added.get(String(id));
    if (row && canonical(row.data) !== canonical(fields))
      unexplained.push(
        `document_records ${String(id)} holds ${canonical(row.data).slice(0, 200)}, the answer showed ${canonical(fields).slice(0, 200)}`,
      );
  }
  if (recs.changed.size !== (w.changeRecords?.count ?? 0))
    unexplained.push(`document_records: ${recs.changed.size} changed, the answer says ${w.changeRecords?.count ?? 0}`);
  for (const [k, { before, after }] of recs.changed) {
    const fields = new Set(w.changeRecords?.fields ?? []);
    const changedFields = Object.keys({ ...before.data, ...after.data }).filter(
      (f) => JSON.stringify(before.data[f]) !== JSON.stringify(after.data[f]),
    );
    if (after.document_id !== w.changeRecords?.doc || changedFields.some((f) => !fields.has(f)))
      unexplained.push(`document_records ~${k} (${changedFields.join(',')})`);
  }
  if (recs.removed.size !== (w.removeRecords?.count ?? 0))
    unexplained.push(`document_records: ${recs.removed.size} removed, the answer says ${w.removeRecords?.count ?? 0}`);
  for (const [k, row] of recs.removed)
    if (row.document_id !== w.removeRecords?.doc) unexplained.push(`document_records -${k}`);

  const docs = take('documents');
  for (const k of docs.added.keys()) unexplained.push(`documents +${k}`);
  for (const k of docs.removed.keys()) unexplained.push(`documents -${k}`);
  for (const k of docs.changed.keys()) if (k !== w.documentRow) unexplained.push(`documents ~${k}`);

  const conv = take('conversations');
  const c = w.conversation;
  for (const k of conv.added.keys()) if (!(c?.isNew && k === c.id)) unexplained.push(`conversations +${k}`);
  if (c?.isNew && !conv.added.has(c.id)) missing.push(`conversations ${c.id}`);
  for (const k of conv.changed.keys()) if (k !== c?.id) unexplained.push(`conversations ~${k}`);
  for (const k of conv.removed.keys()) unexplained.push(`conversations -${k}`);
  const turns = take('chat_turns');
  const turnsHere = [...turns.added.values()].filter((t) => t.conversation_id === c?.id).length;
  if (turns.added.size !== turnsHere)
    unexplained.push(`chat_turns: ${turns.added.size - turnsHere} added to other conversations`);
  if (turnsHere > (c?.turns ?? 0)) unexplained.push(`chat_turns: ${turnsHere} added, the answer says ${c?.turns ?? 0}`);
  if (turnsHere < (c?.turns ?? 0)) missing.push(`chat_turns of ${c!.id}: ${turnsHere} of ${c!.turns}`);
  if (turns.changed.size || turns.removed.size) unexplained.push('chat_turns changed or removed');

  const del = take('webhook_deliveries');
  for (const k of del.added.keys()) if (k !== w.delivery) unexplained.push(`webhook_deliveries +${k}`);
  if (w.delivery && !del.added.has(w.delivery)) missing.push(`webhook_deliveries ${w.delivery}`);
  if (del.changed.size || del.removed.size)
    unexplained.push('webhook_deliveries: a stored request changed or was removed');

  const msg = take('messages');
  for (const k of msg.added.keys()) if (k !== w.message) unexplained.push(`messages +${k}`);
  if (w.message && !msg.added.has(w.message)) missing.push(`messages ${w.message}`);
  if (msg.changed.size || msg.removed.size) unexplained.push('messages changed or removed');
  if (!w.message && diff.has('message_day_counts')) unexplained.push('message_day_counts changed');

  const sec = take('secrets');
  for (const [k, row] of [...sec.added, ...[...sec.changed].map(([k2, v]) => [k2, v.after] as const)])
    if (row.name !== w.secret) unexplained.push(`secrets ${k} (${row.name})`);
  if (
    w.secret &&
    ![...sec.added.values(), ...[...sec.changed.values()].map((v) => v.after)].some((r) => r.name === w.secret)
  )
    missing.push(`secrets ${w.secret}`);
  for (const k of sec.removed.keys()) unexplained.push(`secrets -${k}`);

  const handled = new Set([
    'document_records',
    'documents',
    'conversations',
    'chat_turns',
    'webhook_deliveries',
    'messages',
    'message_day_counts',
    'secrets',
  ]);
  for (const [table, d] of diff) {
    if (handled.has(table)) continue;
    unexplained.push(
      `${table}: +${d.added.size} -${d.removed.size} ~${d.changed.size} (${[...d.added.keys(), ...d.removed.keys(), ...d.changed.keys()].slice(0, 3).join(', ')})`,
    );
  }
  return { unexplained, missing };
}

/** Applies what an answer reported to the ledger (after the database showed it). */
export function book(ledger: Ledger, w: Written, diff: Map<string, TableDiff>): void {
  const recs = diff.get('document_records');
  if (w.addRecords) {
    for (const id of w.addRecords.ids) {
      ledger.records.set(id, w.addRecords.doc);
      const row = recs?.added.get(id);
      if (row) ledger.pristine.set(id, row.data);
    }
  }
  for (const k of recs?.changed.keys() ?? []) ledger.pristine.delete(k);
  for (const k of recs?.removed.keys() ?? []) {
    ledger.records.delete(k);
    ledger.pristine.delete(k);
  }
  if (w.conversation) {
    const c = ledger.conversations.get(w.conversation.id);
    if (c) c.turns += w.conversation.turns;
  }
  if (w.message) ledger.messages.add(w.message);
  if (w.secret) ledger.secrets.add(w.secret);
}

/**
 * Once the webhook queue is drained: what the database holds that no answer reported (`surplus`),
 * and what answers reported that it does not hold (`missing`). `initial` is the state before the fuzz.
 */
export async function compareWithLedger(
  db: Knex,
  watch: TableWatch,
  ledger: Ledger,
  initial: Snapshot,
  hooklog: string,
  log: (line: string) => void,
): Promise<{ surplus: string[]; missing: string[] }> {
  // The webhook queue runs every stored delivery once; wait for it (no fault here delays it).
  const deadline = Date.now() + 120_000;
  for (;;) {
    const [{ n }] = rowsOf(
      await db.raw("select count(*)::int as n from webhook_deliveries where status in ('PENDING', 'RUNNING')"),
    );
    if (n === 0) break;
    if (Date.now() > deadline) throw new Error(`${n} webhook deliveries still pending after 120 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const final = await watch.snapshot();
  const surplus: string[] = [];
  const missing: string[] = [];
  const table = (name: string) => [...final.get(name)!.entries()].map(([k, x]) => [k, JSON.parse(x)] as [string, any]);

  // Records of the documents the fuzz may write: exactly the ledger's, and those never updated hold what their insert answered.
  const records = new Map(table('document_records'));
  for (const [id, d] of ledger.records) if (records.get(id)?.document_id !== d) missing.push(`record ${id}`);
  for (const id of records.keys()) if (!ledger.records.has(id)) surplus.push(`record ${id}`);
  for (const [id, data] of ledger.pristine)
    if (records.has(id)) expect(records.get(id).data, `record ${id}`).to.deep.equal(data);
  // Conversations and their turns.
  const conversations = new Map(table('conversations'));
  const turns = new Map<string, number>();
  for (const [, t] of table('chat_turns')) turns.set(t.conversation_id, (turns.get(t.conversation_id) ?? 0) + 1);
  for (const [id, c] of ledger.conversations) {
    if (!conversations.has(id)) missing.push(`conversation ${id}`);
    if ((turns.get(id) ?? 0) < c.turns) missing.push(`${c.turns - (turns.get(id) ?? 0)} turns of ${id}`);
    if ((turns.get(id) ?? 0) > c.turns) surplus.push(`${(turns.get(id) ?? 0) - c.turns} turns of ${id}`);
  }
  for (const id of conversations.keys()) if (!ledger.conversations.has(id)) surplus.push(`conversation ${id}`);
  // Webhook deliveries: each stored once, each run to completion once (its run recorded itself in hooklog).
  const deliveries = new Map(
    rowsOf(await db.raw('select id, status, attempts, last_error from webhook_deliveries')).map((r: any) => [
      r.id as string,
      r,
    ]),
  );
  const runs = new Map<string, number>();
  for (const r of rowsOf(
    await db.raw("select data->>'deliveryId' as d from document_records where document_id = ?", [hooklog]),
  ))
    runs.set(r.d, (runs.get(r.d) ?? 0) + 1);
  let ran = 0;
  let refusedInRun = 0;
  let duplicated = 0;
  for (const id of ledger.deliveries.keys()) {
    const d = deliveries.get(id) as any;
    const n = runs.get(id) ?? 0;
    if (!d) missing.push(`delivery ${id}`);
    else if (d.status === 'FAILED' && GUARDRAIL_REFUSAL.test(d.last_error ?? '') && n === 0) refusedInRun++;
    else if (d.status !== 'DONE') missing.push(`delivery ${id} ended ${d.status}: ${d.last_error}`);
    else if (n === 0) missing.push(`the run of delivery ${id}`);
    else ran++;
    if (n > 1) duplicated++;
  }
  for (const id of deliveries.keys()) if (!ledger.deliveries.has(id)) surplus.push(`delivery ${id}`);
  for (const id of runs.keys()) if (!ledger.deliveries.has(id)) surplus.push(`a run of unknown delivery ${id}`);
  // Messages and secrets.
  const messages = new Set(final.get('messages')!.keys());
  for (const id of ledger.messages) if (!messages.has(id)) missing.push(`message ${id}`);
  for (const id of messages) if (!ledger.messages.has(id)) surplus.push(`message ${id}`);
  const secretNames = new Set(table('secrets').map(([, s]) => s.name as string));
  const initialSecrets = new Set([...initial.get('secrets')!.values()].map((x) => JSON.parse(x).name as string));
  for (const n of ledger.secrets) if (!secretNames.has(n)) missing.push(`secret ${n}`);
  for (const n of secretNames) if (!ledger.secrets.has(n) && !initialSecrets.has(n)) surplus.push(`secret ${n}`);
  // Documents: as created, but for the last successful PUT of each.
  for (const [id, x] of final.get('documents')!) {
    const row = JSON.parse(x);
    const put = ledger.documents.get(id);
    if (put) {
      if (row.name !== put.name || row.description !== put.description || row.content !== put.content)
        surplus.push(`document ${id} differs from its last PUT`);
    } else if (initial.get('documents')!.get(id) !== x) surplus.push(`document ${id} changed without a PUT`);
  }
  // Everything else is as it was before the fuzz.
  const ledgered = new Set([
    'document_records',
    'conversations',
    'chat_turns',
    'webhook_deliveries',
    'messages',
    'message_day_counts',
    'secrets',
    'documents',
  ]);
  for (const t of TABLES) {
    if (ledgered.has(t.name)) continue;
    const a = initial.get(t.name)!;
    const b = final.get(t.name)!;
    for (const [k, x] of b) if (a.get(k) !== x) surplus.push(`${t.name} ${k}`);
    for (const k of a.keys()) if (!b.has(k)) missing.push(`${t.name} ${k}`);
  }
  log(
    `      fuzz webhooks: accepted ${ledger.deliveries.size}, run ${ran}, refused by the guardrails in the run ${refusedInRun}, duplicated ${duplicated}, lost ${ledger.deliveries.size - ran - refusedInRun}`,
  );
  return { surplus, missing };
}
