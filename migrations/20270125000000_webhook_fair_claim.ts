import type { Knex } from 'knex';

// The webhook queue's claim is fair between agents (src/infra/store/delivery.repo.ts): it finds each
// agent with pending deliveries and takes the oldest due of each. This index gives both in a few
// index steps per agent — the next agent after another, an agent's oldest due — so that a claim
// costs the same whether one agent has ten deliveries waiting or a hundred thousand.

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    "CREATE INDEX webhook_deliveries_agent_pending ON webhook_deliveries (agent_id, next_attempt_at, id) WHERE status = 'PENDING'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX webhook_deliveries_agent_pending');
}
