import type { Knex } from 'knex';

// Where a key came from (issue 51): a person made it (`PERSON`), the console made it for Try it
// (`TRY_IT`), or the `aes` CLI made it for `aes call`/`aes chat` (`CLI`). The console's key lists
// show people's keys first and hide the others behind a filter. A constant default rewrites no rows
// (PostgreSQL 11+). Keys made before are recognised by what marked them until now: a Try-it key by
// its console session or its name, a CLI key by the name the CLI gives it.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.text('origin').notNullable().defaultTo('PERSON');
  });
  await knex.raw(
    "alter table api_keys add constraint api_keys_origin_check check (origin in ('PERSON','TRY_IT','CLI'))",
  );
  await knex.raw(
    "update api_keys set origin = 'TRY_IT' where kind = 'AGENT' and (console_session_id is not null or name like 'Console Try it — %')",
  );
  await knex.raw("update api_keys set origin = 'CLI' where kind = 'AGENT' and name like 'aes cli — %'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table api_keys drop constraint if exists api_keys_origin_check');
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('origin');
  });
}
