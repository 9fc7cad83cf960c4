import type { Knex } from 'knex';

// Credit limits without a lock per run: an instance holds a slice of an agent's remaining daily
// budget as one lease of its own, marked `budget`, whose `reserved_credits` count against the agent's,
// its team's and its workspace's limits exactly like a run's reservation (docs/decisions.md §23.7).
// Such a lease is not a run: the concurrency limit and the probe count only the other leases.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('run_slots', (t) => {
    t.boolean('budget').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('run_slots', (t) => {
    t.dropColumn('budget');
  });
}
