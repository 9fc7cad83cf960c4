import type { Knex } from 'knex';

// A lease of an agent with a concurrency limit carries a number below that limit, unique per agent:
// taking a free number is one INSERT … ON CONFLICT that every instance agrees on, so the limit is
// exact without a lock or a transaction (docs/decisions.md, "Hot path"). An expired lease keeps its
// number until it is taken over or purged. Leases of agents without a concurrency limit (credit
// reservations) have no number; NULLs never conflict.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('run_slots', (t) => {
    t.integer('slot_no');
    t.unique(['agent_id', 'slot_no'], { indexName: 'run_slots_agent_slot_no_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('run_slots', (t) => {
    t.dropUnique(['agent_id', 'slot_no'], 'run_slots_agent_slot_no_unique');
    t.dropColumn('slot_no');
  });
}
