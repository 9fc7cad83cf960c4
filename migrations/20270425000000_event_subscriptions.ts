import type { Knex } from 'knex';

// Outbound event webhooks (issue 54, docs/decisions.md "Outbound event webhooks (issue 54)"):
// - `event_subscriptions`: a workspace's URLs and the event kinds they take, optionally of one
//   agent; the Standard Webhooks secret encrypted as other secrets are (read back to sign); a
//   failure streak that disables the subscription. Its changes are announced on `aes_changes`
//   (the change-notifications trigger) so every instance drops its cached list of them.
// - `event_deliveries`: one event for one subscription, stored before it is sent, and the queue of
//   those to send (`next_attempt_at` set while due, a lease, the attempt number fencing writes).
// - `event_delivery_attempts`: each attempt's status, bounded response excerpt and duration.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('event_subscriptions', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('id').inTable('workspaces').onDelete('CASCADE');
    t.text('url').notNullable();
    t.jsonb('kinds').notNullable();
    t.text('agent_id').references('id').inTable('agents').onDelete('CASCADE');
    t.text('description').notNullable().defaultTo('');
    t.text('secret_ciphertext').notNullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.integer('failure_streak').notNullable().defaultTo(0);
    t.timestamp('disabled_at', { useTz: true });
    t.text('disabled_reason');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['workspace_id', 'created_at'], 'event_subscriptions_workspace');
  });
  await knex.raw(
    'create trigger aes_notify_change after insert or update or delete on event_subscriptions for each row execute function aes_notify_change()',
  );
  await knex.schema.createTable('event_deliveries', (t) => {
    t.text('id').primary();
    t.text('subscription_id').notNullable().references('id').inTable('event_subscriptions').onDelete('CASCADE');
    t.text('workspace_id').notNullable();
    t.text('event_id').notNullable();
    t.text('kind').notNullable();
    t.jsonb('payload').notNullable();
    t.text('state').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('failures').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true });
    t.timestamp('locked_until', { useTz: true });
    t.integer('last_status');
    t.text('last_response');
    t.text('replay_of');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true });
    t.index(['subscription_id', 'created_at', 'id'], 'event_deliveries_subscription');
  });
  await knex.raw(
    'create index event_deliveries_due on event_deliveries (next_attempt_at, subscription_id) where next_attempt_at is not null',
  );
  await knex.raw(
    'create index event_deliveries_finished on event_deliveries (created_at) where next_attempt_at is null',
  );
  await knex.schema.createTable('event_delivery_attempts', (t) => {
    t.text('delivery_id').notNullable().references('id').inTable('event_deliveries').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    t.integer('status');
    t.text('response');
    t.integer('duration_ms').notNullable();
    t.timestamp('at', { useTz: true }).notNullable();
    t.primary(['delivery_id', 'attempt']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('event_delivery_attempts');
  await knex.schema.dropTableIfExists('event_deliveries');
  await knex.schema.dropTableIfExists('event_subscriptions');
}
