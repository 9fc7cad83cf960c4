import type { Knex } from 'knex';

// Webhook deliveries are both the durable record of what a sender sent and the queue that runs
// them: one row, written in one statement before the sender gets its 200, is the delivery and its
// job. Workers claim due rows with FOR UPDATE SKIP LOCKED and hold them under a lease, so any
// instance may run any delivery and one that dies gives its deliveries back when the lease ends.
// The table of the initial migration was never written to; it is replaced with this shape.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.text('id').primary();
    t.text('agent_id').notNullable().references('id').inTable('agents').onDelete('CASCADE');
    t.text('webhook_id').notNullable().references('id').inTable('webhooks').onDelete('CASCADE');
    t.text('integration').notNullable();
    // The sender's own id of the delivery (X-GitHub-Delivery, webhook-id, Stripe event id, Slack event_id).
    t.text('sender_delivery_id');
    // The same id while it de-duplicates (24 h); cleared afterwards so the sender may reuse it.
    t.text('dedupe_key');
    t.text('replay_of');
    t.text('method').notNullable();
    t.text('path').notNullable();
    t.jsonb('query').notNullable();
    t.jsonb('headers').notNullable();
    t.binary('raw_body').notNullable();
    t.text('status').notNullable();
    // Processing attempts (each has a `run` entry in the activity log); failures drive the retry schedule.
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('failures').notNullable().defaultTo(0);
    t.text('last_error');
    t.text('run_id');
    t.timestamp('next_attempt_at', { useTz: true }).notNullable();
    t.timestamp('locked_until', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true });
    t.unique(['webhook_id', 'dedupe_key'], { indexName: 'webhook_deliveries_dedupe_unique' });
    t.index(['status', 'next_attempt_at'], 'webhook_deliveries_due');
    t.index(['agent_id', 'created_at', 'id'], 'webhook_deliveries_agent_list');
  });
  await knex.raw(
    "ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('PENDING', 'RUNNING', 'DONE', 'FAILED'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.text('id').primary();
    t.text('agent_id').notNullable().references('id').inTable('agents').onDelete('CASCADE');
    t.text('webhook_id').notNullable().references('id').inTable('webhooks').onDelete('CASCADE');
    t.text('sender_delivery_id');
    t.text('method').notNullable();
    t.jsonb('headers').notNullable();
    t.text('raw_body').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error');
    t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.unique(['webhook_id', 'sender_delivery_id']);
    t.index(['status', 'next_attempt_at']);
  });
}
