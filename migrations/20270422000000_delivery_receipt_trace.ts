import type { Knex } from 'knex';

// Traces (issue 53): a webhook delivery keeps the W3C traceparent of the request that received it,
// so the run that processes it later (another trace) links to the receipt's span. Nullable, no
// default: a catalogue-only change.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.text('receipt_trace');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropColumn('receipt_trace');
  });
}
