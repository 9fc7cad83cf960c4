import type { Knex } from 'knex';

// OAuth 2.1 for agents' MCP servers (docs/decisions.md §29).
// - `oauth_records`: what the authorization server library keeps (authorization codes, access and
//   refresh tokens, registered clients, interactions, sessions, its grants), one row per record. A
//   token's row is keyed by the SHA-256 of its value, never the value.
// - `mcp_grants`: a member's approval of one client for one agent's MCP server, as the console lists
//   it. Removing the row ends the grant: the resource server accepts a token only while its grant's
//   row exists, so a revocation holds on every instance at the next request.
// - `activity_log.oauth_client_id` / `granted_by`: an OAuth call's client and the member who granted it.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('oauth_records', (t) => {
    t.text('model').notNullable();
    t.text('id').notNullable();
    t.jsonb('payload').notNullable();
    t.text('grant_id');
    t.text('uid');
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('consumed_at', { useTz: true });
    t.primary(['model', 'id']);
    t.index(['grant_id']);
    t.index(['uid']);
    t.index(['expires_at']);
  });
  await knex.schema.createTable('mcp_grants', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('id').inTable('workspaces').onDelete('CASCADE');
    t.text('agent_id').notNullable().references('id').inTable('agents').onDelete('CASCADE');
    t.text('member_id').notNullable().references('id').inTable('members').onDelete('CASCADE');
    t.text('client_id').notNullable();
    t.text('client_name');
    t.text('redirect_host');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.index(['agent_id', 'created_at', 'id']);
    t.index(['member_id']);
  });
  await knex.schema.alterTable('activity_log', (t) => {
    t.text('oauth_client_id');
    t.text('granted_by');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('activity_log', (t) => {
    t.dropColumn('oauth_client_id');
    t.dropColumn('granted_by');
  });
  await knex.schema.dropTable('mcp_grants');
  await knex.schema.dropTable('oauth_records');
}
