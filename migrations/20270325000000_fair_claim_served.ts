import type { Knex } from 'knex';

// The queues' claims are fair between agents (src/infra/store/fair-claim.ts). Equal turns go to the
// agent served least recently: each claim numbers itself from `agent_queue_claims` and records, per
// agent it took something of, that number and the agent's place in it — in the claim's own
// statement, so that it holds across instances. The channel queue's claim walks the agents with
// due messages as the webhook queue's does, on an index of its own.

export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE SEQUENCE agent_queue_claims');
  await knex.schema.createTable('agent_queue_serves', (t) => {
    t.text('queue').notNullable();
    t.text('agent_id').notNullable().references('id').inTable('agents').onDelete('CASCADE');
    t.bigInteger('claim_no').notNullable();
    t.integer('claim_rank').notNullable();
    t.primary(['queue', 'agent_id']);
  });
  await knex.raw(
    "ALTER TABLE agent_queue_serves ADD CONSTRAINT agent_queue_serves_queue_check CHECK (queue IN ('webhook', 'channel'))",
  );
  await knex.raw(
    'CREATE INDEX messages_agent_due ON messages (agent_id, next_attempt_at, id) WHERE next_attempt_at IS NOT NULL',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS messages_agent_due');
  await knex.schema.dropTableIfExists('agent_queue_serves');
  await knex.raw('DROP SEQUENCE IF EXISTS agent_queue_claims');
}
