import type { Knex } from 'knex';

// The A2A server's tasks (docs/decisions.md §27): stored, so that any instance answers GetTask,
// ListTasks and SubscribeToTask, and a CancelTask on one instance reaches a run on another (the
// running instance watches its task's stored state). `task` is the task as the protocol shapes it
// (status, artifacts, history); `state` and `context_id` are copied out of it for the listing.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('a2a_tasks', (t) => {
    t.text('id').primary();
    t.text('agent_id').notNullable().references('id').inTable('agents').onDelete('CASCADE');
    t.text('context_id').notNullable();
    t.text('state').notNullable();
    t.jsonb('task').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['agent_id', 'updated_at', 'id']);
    t.index(['agent_id', 'context_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('a2a_tasks');
}
