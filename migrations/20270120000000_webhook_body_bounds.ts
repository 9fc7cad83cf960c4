import type { Knex } from 'knex';

// Bounds on what webhook senders can make the service keep. An integration may set the largest
// body it accepts (null: 64 KiB without a signature check, 1 MiB with one). A finished delivery's
// body is dropped once its replay window has passed (WEBHOOK_BODY_RETENTION_DAYS): raw_body is
// emptied and body_dropped_at says when, so the row stays listable and replay is refused. The
// partial index holds only finished deliveries that still have a body: the housekeeping that
// drops them reads it, and a dropped row leaves it.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhooks', (t) => {
    t.integer('max_body_bytes');
  });
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.timestamp('body_dropped_at', { useTz: true });
  });
  await knex.raw(
    "CREATE INDEX webhook_deliveries_body_kept ON webhook_deliveries (completed_at) WHERE body_dropped_at IS NULL AND status IN ('DONE', 'FAILED')",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX webhook_deliveries_body_kept');
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropColumn('body_dropped_at');
  });
  await knex.schema.alterTable('webhooks', (t) => {
    t.dropColumn('max_body_bytes');
  });
}
