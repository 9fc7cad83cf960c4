import type { Knex } from 'knex';

// One activity row per call (issue 51, docs/decisions.md "One activity row per call (issue 51)"):
// - `protocol`: the entry is protocol traffic (an MCP `initialize`, a notification, the `GET /mcp`
//   stream probe answered 405), which activity lists leave out unless asked. Added with a constant
//   default, so PostgreSQL 11+ changes only the catalogue: no rewrite of a large log.
// - `delivery_id`: the webhook delivery the entry received (its receipt) or processed (its runs), so
//   a list can show a receipt and its run as one row while the log stays append-only. Indexed only
//   where set (webhook entries), for finding a page's runs and a run's receipt. Built in the
//   migration's transaction, as activity_log_run_id_index is (docs/operations.md, "Upgrading").

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('activity_log', (t) => {
    t.boolean('protocol').notNullable().defaultTo(false);
    t.text('delivery_id');
  });
  await knex.raw(
    'create index if not exists activity_log_delivery_id_index on activity_log (delivery_id) where delivery_id is not null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists activity_log_delivery_id_index');
  await knex.schema.alterTable('activity_log', (t) => {
    t.dropColumn('protocol');
    t.dropColumn('delivery_id');
  });
}
