import type { Knex } from 'knex';

// Console sign-in sessions: a member token exchanged for an HttpOnly cookie. Only the SHA-256 hash
// of the cookie's value is stored. A session lives while its member token does (deleting the token
// deletes its sessions; a revoked token is checked on each use) and ends after 12 h without use.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('console_sessions', (t) => {
    t.text('id').primary();
    t.text('member_id').notNullable().references('id').inTable('members').onDelete('CASCADE');
    t.text('token_id').notNullable().references('id').inTable('member_tokens').onDelete('CASCADE');
    t.text('session_hash').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('last_seen_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.index(['token_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('console_sessions');
}
