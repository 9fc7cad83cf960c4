import type { Knex } from 'knex';

// Finds the activity entry of a run by its id: a webhook delivery shows the outcome of its latest
// run (output, error, credits), read from that run's entry. Built CONCURRENTLY, outside a
// transaction, so that a large activity log keeps taking writes while the index is made; only run
// entries (run_id set) are indexed.

export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index concurrently if not exists activity_log_run_id_index on activity_log (run_id) where run_id is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index concurrently if exists activity_log_run_id_index');
}
