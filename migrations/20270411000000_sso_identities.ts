import type { Knex } from 'knex';

// Single sign-on (issue 52): which OpenID Connect identity (issuer + subject) belongs to which
// account. The subject is the provider's stable id for a person; the email is the one the provider
// gave at linking time (for the record: accounts are found by issuer + subject, never by it).

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('account_identities', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('id').inTable('accounts').onDelete('CASCADE');
    t.text('issuer').notNullable();
    t.text('subject').notNullable();
    t.text('email');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['issuer', 'subject']);
    t.index(['account_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('account_identities');
}
