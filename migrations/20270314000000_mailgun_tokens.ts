import type { Knex } from 'knex';

// Mailgun signs only its timestamp and token, not the posted mail (docs/decisions.md §31): a token
// seen once is refused after, for as long as its timestamp would still pass the freshness check.
// `id` is the token; rows past `expires_at` are of no use and are deleted as new ones come in.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mailgun_tokens', (t) => {
    t.text('id').primary();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('mailgun_tokens');
}
