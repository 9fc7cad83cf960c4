import type { Knex } from 'knex';

// Inbound mail a channel took per UTC day (docs/security.md, "Round four: inbound mail quota and
// retention"): one row per channel and day, counted in the transaction that stores each message,
// so that instances sharing the database hold one quota. Past days are deleted by housekeeping.
// The messages' retention prune goes by workspace and age: an index for it.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('channel_intake_days', (t) => {
    t.text('channel_id').notNullable().references('id').inTable('channels').onDelete('CASCADE');
    t.date('day').notNullable();
    t.integer('messages').notNullable();
    t.bigInteger('bytes').notNullable();
    t.primary(['channel_id', 'day']);
  });
  await knex.raw('create index messages_workspace_created on messages (workspace_id, created_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists messages_workspace_created');
  await knex.schema.dropTableIfExists('channel_intake_days');
}
