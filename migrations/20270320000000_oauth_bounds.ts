import type { Knex } from 'knex';

// Bounds of the MCP authorization server (issue 49, items 1 and 8).
// - `mcp_grants.member_token_id`: the member token whose console session approved the client;
//   revoking that token ends the grant (null for grants approved before this column existed).
// - `oauth_registration_counts`: dynamic registrations per remote address and hour, counted in the
//   database so that the limit holds across instances sharing it; past windows are pruned.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_grants', (t) => {
    t.text('member_token_id');
    t.index(['member_token_id']);
  });
  await knex.schema.createTable('oauth_registration_counts', (t) => {
    t.text('address').notNullable();
    t.timestamp('window_start', { useTz: true }).notNullable();
    t.integer('n').notNullable();
    t.primary(['address', 'window_start']);
    t.index(['window_start']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('oauth_registration_counts');
  await knex.schema.alterTable('mcp_grants', (t) => {
    t.dropIndex(['member_token_id']);
    t.dropColumn('member_token_id');
  });
}
