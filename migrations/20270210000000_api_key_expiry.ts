import type { Knex } from 'knex';

// API keys may expire (a console's short-lived "Try it" key, a key handed out for a week): a
// nullable instant, checked against the clock whenever a key is verified. Existing keys keep null
// (no expiry). Adding a nullable column without a default rewrites nothing.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.timestamp('expires_at', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('expires_at');
  });
}
