import type { Knex } from 'knex';

// Traces (issue 53, docs/tracing.md):
// - `trace_id`: the W3C trace id of the call (the caller's, when it sent a `traceparent`), so an
//   entry links to its trace in a collector and the console finds a run's timeline.
// - `spans`: the call's spans as the console's waterfall reads them (bounded: at most 200 per entry,
//   attributes and tool input/output redacted as the log is). Kept in the entry, they need no
//   write of their own and leave with the entry under the same retention.
// Both nullable with no default: PostgreSQL changes only the catalogue, no rewrite of a large log.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('activity_log', (t) => {
    t.text('trace_id');
    t.jsonb('spans');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('activity_log', (t) => {
    t.dropColumn('trace_id');
    t.dropColumn('spans');
  });
}
