import type { Knex } from 'knex';

// Admission reserves credits (DESIGN §5): every admitted run that a credit limit applies to holds a
// lease in run_slots whose `reserved_credits` count against the agent's, its team's and its
// workspace's daily limits until the run settles. Team and workspace sums need the lease to carry
// both ids; leases taken before this migration have neither and stop counting when they expire.
// credit_usage keeps the largest single run per agent and day: the estimate a run reserves when its
// agent sets no per-run maximum.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('run_slots', (t) => {
    t.text('workspace_id').references('id').inTable('workspaces').onDelete('CASCADE');
    t.text('team_id');
    t.index(['workspace_id', 'expires_at']);
    t.index(['team_id', 'expires_at']);
  });
  await knex.schema.alterTable('credit_usage', (t) => {
    t.decimal('max_run_credits', 20, 6).notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('credit_usage', (t) => {
    t.dropColumn('max_run_credits');
  });
  await knex.schema.alterTable('run_slots', (t) => {
    t.dropIndex(['team_id', 'expires_at']);
    t.dropIndex(['workspace_id', 'expires_at']);
    t.dropForeign(['workspace_id']);
    t.dropColumn('team_id');
    t.dropColumn('workspace_id');
  });
}
