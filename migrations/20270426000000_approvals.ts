import type { Knex } from 'knex';

// Human approval of risky actions (issue 54, docs/decisions.md "Approvals (issue 54)"). An agent's
// policy names the tools whose calls wait for a person, who may decide (a role) and how long a call
// waits. A pending approval keeps the paused run whole: the tool call and the conversation so far,
// so that any instance resumes it after a restart.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('approval_policies', (t) => {
    t.text('agent_id').primary().references('id').inTable('agents').onDelete('CASCADE');
    t.jsonb('tools').notNullable();
    t.text('approver_role').notNullable();
    t.integer('expiry_seconds').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('approvals', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('id').inTable('workspaces').onDelete('CASCADE');
    t.text('agent_id').notNullable().references('id').inTable('agents').onDelete('CASCADE');
    t.text('run_id').notNullable();
    t.text('surface').notNullable();
    t.text('tool_name').notNullable();
    t.text('tool_call_id').notNullable();
    t.text('arguments').notNullable();
    // The run to resume: its entry, input, system text and the conversation up to the call.
    t.jsonb('resume').notNullable();
    t.text('approver_role').notNullable();
    t.text('state').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.text('decided_by');
    t.timestamp('decided_at', { useTz: true });
    t.text('reason');
    // The continued run's answer (or failure), for the caller that polls.
    t.jsonb('result');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['workspace_id', 'state', 'created_at']);
    t.index(['agent_id', 'state']);
    t.index(['run_id']);
  });
  await knex.raw(
    "alter table approval_policies add constraint approval_policies_approver_role_check check (approver_role in ('ADMIN', 'MEMBER'))",
  );
  await knex.raw(
    "alter table approvals add constraint approvals_approver_role_check check (approver_role in ('ADMIN', 'MEMBER'))",
  );
  await knex.raw(
    "alter table approvals add constraint approvals_state_check check (state in ('PENDING', 'APPROVED', 'DENIED', 'EXPIRED'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('approvals');
  await knex.schema.dropTable('approval_policies');
}
