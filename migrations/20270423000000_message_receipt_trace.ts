import type { Knex } from 'knex';

// Traces (issue 53): a channel's message keeps a W3C traceparent (`trace_parent`). An inbound one
// keeps the span of the call that received it, so the run that answers it later (another trace)
// links to the receipt; an outbound one keeps the span of the run that queued it, so its send
// attempts carry that run's trace to the provider. Nullable, no default: a catalogue-only change.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('messages', (t) => {
    t.text('trace_parent');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('messages', (t) => {
    t.dropColumn('trace_parent');
  });
}
