import type { Knex } from 'knex';

// A document exposure gains a third permission: read on the agent's MCP server, where the document
// is listed by `resources/list` and read by `resources/read`. Existing exposures keep false, so no
// document reaches an MCP client until a member turns it on. A constant default rewrites nothing.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('document_exposures', (t) => {
    t.boolean('mcp_read').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('document_exposures', (t) => {
    t.dropColumn('mcp_read');
  });
}
