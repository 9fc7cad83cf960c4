import type { Knex } from 'knex';

// A deleted agent's credit usage stays: a team's and a workspace's daily totals are sums over
// `credit_usage`, so deleting the agent with its rows would hand its spent credits back to the team
// and the workspace the same day — deleting an agent must not be a way round a daily limit. The
// rows keep the agent's id (no longer a reference; ids are never reused) and still go with their
// workspace.

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE credit_usage DROP CONSTRAINT IF EXISTS credit_usage_agent_id_foreign');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DELETE FROM credit_usage u WHERE NOT EXISTS (SELECT 1 FROM agents a WHERE a.id = u.agent_id)');
  await knex.raw(
    'ALTER TABLE credit_usage ADD CONSTRAINT credit_usage_agent_id_foreign FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  );
}
