import type { Knex } from 'knex';

// A console "Try it" key belongs to the console session that made it: the session's end (sign-out,
// its member token revoked) revokes the key in the same transaction. Other keys keep null. When an
// ended session's row is pruned the link is cleared (the key was revoked, or expired, long before).

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.text('console_session_id').nullable().references('id').inTable('console_sessions').onDelete('SET NULL');
    t.index(['console_session_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropIndex(['console_session_id']);
    t.dropColumn('console_session_id');
  });
}
