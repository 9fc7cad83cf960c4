import type { Knex } from 'knex';

// The OpenAI-compatible API's stored responses (docs/decisions.md §26): a response is kept so that
// any instance continues it (`previous_response_id`) or reads it back (`GET /responses/{id}`).
// `context` is the conversation as the next response continues it (the turns sent and answered, the
// caller's instructions left out, as OpenAI does); `body` is the response object as answered. A
// response belongs to its agent; deleting the agent deletes its responses.
// Models say whether they accept images, so that a request with image parts to one that does not
// is refused with a 400 naming the part instead of failing at the provider.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('openai_responses', (t) => {
    t.text('id').primary();
    t.text('agent_id').notNullable().references('id').inTable('agents').onDelete('CASCADE');
    t.text('previous_response_id');
    t.jsonb('context').notNullable();
    t.jsonb('body').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['agent_id', 'created_at']);
    t.index(['created_at']);
  });
  await knex.schema.alterTable('models', (t) => {
    t.boolean('accepts_images').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('models', (t) => {
    t.dropColumn('accepts_images');
  });
  await knex.schema.dropTable('openai_responses');
}
