import type { Knex } from 'knex';

// An MCP tool may declare the JSON Schema of its result (MCP `outputSchema`); its results then carry
// `structuredContent` checked against it.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_tools', (t) => {
    t.jsonb('output_schema');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_tools', (t) => {
    t.dropColumn('output_schema');
  });
}
