import type { Knex } from 'knex';
import type { ActivityEntry } from '../../domain/activity/activity.entities.js';
import { activity } from './rows/activity.js';

// A batch of activity entries as one parameter: the rows as JSON, unpacked by the database. As a
// multi-row INSERT the batch was 21 parameters per entry, each compiled by knex and serialized by
// the driver on the server's thread, which the refusals of a flood spend most of their time on.
// The jsonb columns travel as their JSON text and are cast as before, so a JSON null stays a
// jsonb null and an absent value SQL NULL.
const COLUMNS: [name: string, type: string, cast?: string][] = [
  ['id', 'text'],
  ['workspace_id', 'text'],
  ['agent_id', 'text'],
  ['kind', 'text'],
  ['surface', 'text'],
  ['entry', 'text'],
  ['method', 'text'],
  ['path', 'text'],
  ['status', 'integer'],
  ['request_headers', 'text', 'jsonb'],
  ['request_body', 'text', 'jsonb'],
  ['response', 'text', 'jsonb'],
  ['truncated', 'boolean'],
  ['credits', 'numeric'],
  ['duration_ms', 'integer'],
  ['key_id', 'text'],
  ['oauth_client_id', 'text'],
  ['granted_by', 'text'],
  ['run_id', 'text'],
  ['request_id', 'text'],
  ['error', 'text'],
  ['logs', 'text', 'jsonb'],
  ['created_at', 'timestamptz'],
  ['protocol', 'boolean'],
  ['delivery_id', 'text'],
  ['trace_id', 'text'],
  ['spans', 'text', 'jsonb'],
];

const INSERT =
  `insert into activity_log (${COLUMNS.map(([c]) => c).join(', ')}) ` +
  `select ${COLUMNS.map(([c, , cast]) => (cast ? `x.${c}::${cast}` : `x.${c}`)).join(', ')} ` +
  `from jsonb_to_recordset(?::jsonb) as x(${COLUMNS.map(([c, t]) => `${c} ${t}`).join(', ')}) ` +
  // An entry is stored at most once: a batch sent again after a lost acknowledgement (the
  // connection dropped after the commit) finds its entries already there and adds nothing. The key
  // is (id, created_at), the partitioned log's primary key (a unique key must hold the partition
  // key); a batch sent again keeps its entries' createdAt, so it still finds them.
  'on conflict (id, created_at) do nothing';

/** Stores entries in one statement with one parameter; entries already stored are left as they are. */
export async function insertActivityBatch(
  db: Knex | Knex.Transaction,
  entries: readonly ActivityEntry[],
): Promise<void> {
  if (entries.length === 0) return;
  await db.raw(INSERT, [JSON.stringify(entries.map(activity.toRow))]);
}
