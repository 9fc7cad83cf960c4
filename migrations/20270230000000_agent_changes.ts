import type { Knex } from 'knex';

// Who changed an agent's configuration, when and how (an applied manifest): one row per changed
// agent, naming the member and listing the changes (action and manifest path). Request and run
// entries stay in activity_log; this is the management side of an agent's history.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('agent_changes', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('id').inTable('workspaces').onDelete('CASCADE');
    t.text('agent_id').notNullable().references('id').inTable('agents').onDelete('CASCADE');
    t.text('member_id').references('id').inTable('members').onDelete('SET NULL');
    t.text('source').notNullable();
    t.jsonb('changes').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['agent_id', 'created_at', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('agent_changes');
}
