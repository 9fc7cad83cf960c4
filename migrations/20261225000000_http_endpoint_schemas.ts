import type { Knex } from 'knex';

// An HTTP endpoint may declare the JSON Schema of its request body (checked before the run: 400) and
// of its `output`; both describe the endpoint in the agent's own OpenAPI document.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('http_endpoints', (t) => {
    t.jsonb('input_schema');
    t.jsonb('output_schema');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('http_endpoints', (t) => {
    t.dropColumn('input_schema');
    t.dropColumn('output_schema');
  });
}
