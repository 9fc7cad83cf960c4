import { h } from './harness.js';
import type { Furnished } from './isolation-fixtures.js';

// What the isolation test compares before and after A's attempts: for every table with a column
// that names one of B's things (workspace, agent, member, document, webhook, channel, team), the
// rows that name one, counted, with their `updated_at` where the table has one. The activity log's
// partitions are counted through their parent.

/** Which of the furnished ids a column of that name holds. */
const COLUMN_KINDS: Record<string, string> = {
  workspace_id: 'workspace',
  agent_id: 'agent',
  member_id: 'member',
  document_id: 'document',
  webhook_id: 'webhook',
  channel_id: 'channel',
  team_id: 'team',
};

export type Snapshot = Record<string, { rows: number; updated: string[] }>;

/** B's rows in every table that names B's things, by table. */
export async function snapshotOf(f: Furnished): Promise<Snapshot> {
  const db = h().db;
  const cols = (await db.raw(
    `select table_name as t, column_name as c from information_schema.columns
     where table_schema = current_schema() and table_name not like 'knex\\_%'
       and table_name not in (select relname::text from pg_class where relispartition)`,
  )) as { rows: { t: string; c: string }[] };
  const byTable = new Map<string, string[]>();
  for (const { t, c } of cols.rows) byTable.set(t, [...(byTable.get(t) ?? []), c]);
  const out: Snapshot = {};
  for (const [table, columns] of [...byTable].sort(([a], [b]) => a.localeCompare(b))) {
    const naming = columns.filter((c) => COLUMN_KINDS[c] && f.ids[COLUMN_KINDS[c]!]?.length);
    if (table === 'workspaces') naming.push('id');
    if (!naming.length) continue;
    const q = db(table).where((w) => {
      for (const c of naming) w.orWhereIn(c, f.ids[c === 'id' ? 'workspace' : COLUMN_KINDS[c]!]!);
    });
    // A refused request to an agent's URL is logged for the agent's owner whoever sent it (with or
    // without a key of another workspace): those entries are the owner's record of the attempts.
    if (table === 'activity_log') q.andWhere((w) => w.whereNull('status').orWhere('status', '<', 400));
    if (columns.includes('updated_at')) {
      const rows = (await q.clone().select('updated_at')) as { updated_at: Date | string }[];
      out[table] = {
        rows: rows.length,
        updated: rows.map((r) => new Date(r.updated_at).toISOString()).sort(),
      };
    } else {
      const [{ n }] = (await q.clone().count({ n: '*' })) as { n: string | number }[];
      out[table] = { rows: Number(n), updated: [] };
    }
  }
  return out;
}
