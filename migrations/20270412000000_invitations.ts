import type { Knex } from 'knex';

// Invitations (issue 52): an admin invites an email to a workspace with a role; the link carries a
// random token of which only the SHA-256 hash is stored. Single use (`accepted_at`), revocable
// (`revoked_at`, also set when a newer invitation of the same email replaces it), and it expires.
// At most one invitation per workspace and email is pending (neither accepted nor revoked): the
// partial unique index keeps two admins inviting at once from leaving two live links.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('invitations', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('id').inTable('workspaces').onDelete('CASCADE');
    t.text('email').notNullable();
    t.text('name');
    t.text('role').notNullable();
    t.text('token_hash').notNullable().unique();
    t.text('invited_by').references('id').inTable('members').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('accepted_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.index(['workspace_id', 'created_at']);
  });
  await knex.raw(
    "alter table invitations add constraint invitations_role_check check (role in ('ADMIN','MEMBER','VIEWER'))",
  );
  await knex.raw(
    'create unique index invitations_pending_unique on invitations (workspace_id, lower(email)) where accepted_at is null and revoked_at is null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('invitations');
}
