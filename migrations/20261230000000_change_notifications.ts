import type { Knex } from 'knex';

// Every committed change to a row that instances keep in memory (agents with their surfaces and
// limits, keys, entries, document exposures, teams, workspaces) is announced on the channel
// `aes_changes` as {"table", "id", "agentId"}: each instance drops what it cached of that row,
// whichever instance — or whatever tool — made the change (docs/decisions.md, "Hot path").

export const CHANGE_CHANNEL = 'aes_changes';
export const NOTIFIED_TABLES = [
  'agents',
  'api_keys',
  'http_endpoints',
  'mcp_tools',
  'webhooks',
  'document_exposures',
  'teams',
  'workspaces',
] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function aes_notify_change() returns trigger language plpgsql as $$
    declare
      r jsonb;
    begin
      if tg_op = 'DELETE' then r := to_jsonb(old); else r := to_jsonb(new); end if;
      perform pg_notify('${CHANGE_CHANNEL}', json_build_object('table', tg_table_name, 'id', r->>'id', 'agentId', r->>'agent_id')::text);
      return null;
    end
    $$`);
  for (const table of NOTIFIED_TABLES) {
    await knex.raw(
      `create trigger aes_notify_change after insert or update or delete on ${table} for each row execute function aes_notify_change()`,
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of NOTIFIED_TABLES) await knex.raw(`drop trigger if exists aes_notify_change on ${table}`);
  await knex.raw('drop function if exists aes_notify_change()');
}
