import type { Knex } from 'knex';

// Member tokens for people (issue 52): a token is scoped to the workspace of the membership it was
// made in (`WORKSPACE`, what every token was until now) or to the person (`PERSON`): a PERSON
// token acts in whichever of the person's workspaces a request names (`AES-Workspace`), checked
// against their memberships on every request. A constant default rewrites no rows (PostgreSQL 11+).

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('member_tokens', (t) => {
    t.text('scope').notNullable().defaultTo('WORKSPACE');
  });
  await knex.raw(
    "alter table member_tokens add constraint member_tokens_scope_check check (scope in ('WORKSPACE','PERSON'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table member_tokens drop constraint if exists member_tokens_scope_check');
  await knex.schema.alterTable('member_tokens', (t) => {
    t.dropColumn('scope');
  });
}
