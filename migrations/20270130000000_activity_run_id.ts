import type { Knex } from 'knex';

// Finds the activity entry of a run by its id: a webhook delivery shows the outcome of its latest
// run (output, error, credits), read from that run's activity entry. Only run entries (run_id set)
// are indexed. Built in the migration's transaction (CONCURRENTLY would wait on the other
// instances starting at the same time): on a large activity log, writes to it wait while the index
// is made (docs/operations.md, "Upgrading").

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'create index if not exists activity_log_run_id_index on activity_log (run_id) where run_id is not null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists activity_log_run_id_index');
}
