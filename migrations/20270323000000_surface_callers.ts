import type { Knex } from 'knex';

// A2A tasks and stored OpenAI responses belong to the caller that made them (docs/security.md,
// "Round four: A2A tasks and contexts belong to their caller"): `caller_ref` names the agent key,
// workspace key or OAuth grant (callerRefOf). Rows made before have none and are read by nobody:
// they were visible to every key of their agent, and no one can say whose they were.
// A stored response with `chained` holds only the turns it added; its context is rebuilt by
// walking `previous_response_id`. Older rows hold their whole context (`chained` false).
// Final A2A tasks are pruned by age: the (state, updated_at) index finds them.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('a2a_tasks', (t) => {
    t.text('caller_ref');
    t.index(['agent_id', 'caller_ref', 'updated_at']);
    t.index(['state', 'updated_at']);
  });
  await knex.schema.alterTable('openai_responses', (t) => {
    t.text('caller_ref');
    t.boolean('chained').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('openai_responses', (t) => {
    t.dropColumn('chained');
    t.dropColumn('caller_ref');
  });
  await knex.schema.alterTable('a2a_tasks', (t) => {
    t.dropIndex(['state', 'updated_at']);
    t.dropIndex(['agent_id', 'caller_ref', 'updated_at']);
    t.dropColumn('caller_ref');
  });
}
