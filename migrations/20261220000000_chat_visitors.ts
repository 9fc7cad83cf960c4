import type { Knex } from 'knex';

// A conversation started by a visitor (the customer's proxy sends X-Visitor-Id) belongs to that
// visitor: nobody else can continue or read it.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('conversations', (t) => {
    t.text('visitor_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('conversations', (t) => {
    t.dropColumn('visitor_id');
  });
}
