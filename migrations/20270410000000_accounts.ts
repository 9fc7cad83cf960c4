import type { Knex } from 'knex';

// The shared platform (issue 52): people with accounts, many workspaces on one deployment.
// - `workspaces.slug`: the tenant part of `TENANT_BASE_URL` and what `aes login --workspace` names;
//   unique across the deployment. The first workspace of an upgraded deployment is `default`, any
//   other gets its id's random part.
// - `accounts`: a person (email unique across the deployment, case-insensitively; a password hash
//   or none when they sign in only by SSO or member token; `operator` for the deployment operator).
// - `members.account_id`: a membership of an account in a workspace (one per workspace). Existing
//   members get one account per distinct email; the earliest admin's account is the operator.
// - `members.role` gains `VIEWER` (read-only).
// - `console_sessions.account_id`: who signed in; `method`: how (`token`, `password`, `sso`);
//   `token_id` is null for a password or SSO sign-in, whose session may switch between the
//   account's workspaces (its `member_id` follows).

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workspaces', (t) => {
    t.text('slug');
  });
  await knex.raw(`
    update workspaces w set slug = case when w.id = (select id from workspaces order by created_at, id limit 1)
      then 'default' else lower(regexp_replace(substr(w.id, 4), '[^a-z0-9]', '', 'gi')) end`);
  await knex.raw('alter table workspaces alter column slug set not null');
  await knex.raw('create unique index workspaces_slug_unique on workspaces (slug)');

  await knex.schema.createTable('accounts', (t) => {
    t.text('id').primary();
    t.text('email').notNullable();
    t.text('name').notNullable();
    t.text('password_hash');
    t.boolean('operator').notNullable().defaultTo(false);
    t.text('last_workspace_id').references('id').inTable('workspaces').onDelete('SET NULL');
    t.integer('failed_sign_ins').notNullable().defaultTo(0);
    t.timestamp('locked_until', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create unique index accounts_email_unique on accounts (lower(email))');

  // One account per distinct email, named after (and with the id of) its earliest member.
  await knex.raw(`
    insert into accounts (id, email, name, created_at, updated_at)
    select distinct on (lower(m.email)) 'acc_' || substr(m.id, 5), m.email, m.name, m.created_at, m.created_at
    from members m order by lower(m.email), m.created_at, m.id`);
  await knex.raw(`
    update accounts set operator = true where id = (
      select a.id from accounts a join members m on lower(m.email) = lower(a.email)
      where m.role = 'ADMIN' order by m.created_at, m.id limit 1)`);

  await knex.schema.alterTable('members', (t) => {
    t.text('account_id').references('id').inTable('accounts').onDelete('CASCADE');
    t.index(['account_id']);
  });
  await knex.raw('update members m set account_id = a.id from accounts a where lower(a.email) = lower(m.email)');
  await knex.raw('alter table members alter column account_id set not null');
  await knex.raw('create unique index members_workspace_account_unique on members (workspace_id, account_id)');
  await knex.raw('alter table members drop constraint members_role_check');
  await knex.raw(`alter table members add constraint members_role_check check (role in ('ADMIN','MEMBER','VIEWER'))`);

  await knex.schema.alterTable('console_sessions', (t) => {
    t.text('account_id').references('id').inTable('accounts').onDelete('CASCADE');
    t.text('method').notNullable().defaultTo('token');
  });
  await knex.raw(
    "alter table console_sessions add constraint console_sessions_method_check check (method in ('token','password','sso'))",
  );
  await knex.raw('update console_sessions s set account_id = m.account_id from members m where m.id = s.member_id');
  await knex.raw('alter table console_sessions alter column account_id set not null');
  await knex.raw('alter table console_sessions alter column token_id drop not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('delete from console_sessions where token_id is null');
  await knex.raw('alter table console_sessions alter column token_id set not null');
  await knex.schema.alterTable('console_sessions', (t) => {
    t.dropColumn('account_id');
    t.dropColumn('method');
  });
  await knex.raw("delete from members where role = 'VIEWER'");
  await knex.raw('alter table members drop constraint members_role_check');
  await knex.raw(`alter table members add constraint members_role_check check (role in ('ADMIN','MEMBER'))`);
  await knex.raw('drop index if exists members_workspace_account_unique');
  await knex.schema.alterTable('members', (t) => {
    t.dropIndex(['account_id']);
    t.dropColumn('account_id');
  });
  await knex.schema.dropTable('accounts');
  await knex.raw('drop index if exists workspaces_slug_unique');
  await knex.schema.alterTable('workspaces', (t) => {
    t.dropColumn('slug');
  });
}
