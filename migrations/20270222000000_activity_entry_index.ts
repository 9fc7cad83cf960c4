import type { Knex } from 'knex';

// The console's activity log filters an agent's entries by the entry's name (an endpoint, a tool, an
// integration), newest first: without an index a rare entry's page would read every entry of the
// agent. Like the surface and kind indexes it ends in (created_at, id), so a filtered page (with or
// without a date range) is one ordered range scan. Only entries with a name are indexed. Built in the
// migration's transaction, as activity_log_run_id_index is (docs/operations.md, "Upgrading").

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'create index if not exists activity_log_agent_id_entry_created_at_id_index on activity_log (agent_id, entry, created_at, id) where entry is not null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists activity_log_agent_id_entry_created_at_id_index');
}
