import type { Knex } from 'knex';

// Schedules (issue 54): an agent's runs that start by themselves, on a cron expression in a time
// zone or every N seconds. `schedule_fires` records each occurrence once: its primary key
// (schedule_id, occurrence_at) is the claim, so that when several instances share the database
// exactly one of them fires an occurrence (`insert … on conflict do nothing`). A fire is RUNNING
// under a lease its instance renews; one whose lease ran out is marked LOST. At most one fire of a
// schedule runs and at most one waits (QUEUED) at a time: partial unique indexes hold that too.

const FIRE_STATES = ['RUNNING', 'QUEUED', 'DONE', 'FAILED', 'REFUSED', 'SKIPPED', 'LOST'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('schedules', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('id').inTable('workspaces').onDelete('CASCADE');
    t.text('agent_id').notNullable().references('id').inTable('agents').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('cron');
    t.text('time_zone');
    t.integer('interval_seconds');
    t.text('handler_kind').notNullable();
    t.text('handler_body').notNullable();
    t.text('model_override');
    t.jsonb('input');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.boolean('catch_up').notNullable().defaultTo(false);
    t.text('overlap').notNullable().defaultTo('SKIP');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['agent_id', 'name'], { indexName: 'schedules_agent_name_unique' });
  });
  await knex.raw(
    `alter table schedules add constraint schedules_timing_check check ((cron is null) <> (interval_seconds is null))`,
  );
  await knex.raw(`alter table schedules add constraint schedules_overlap_check check (overlap in ('SKIP','QUEUE'))`);

  await knex.schema.createTable('schedule_fires', (t) => {
    t.text('schedule_id').notNullable().references('id').inTable('schedules').onDelete('CASCADE');
    t.timestamp('occurrence_at', { useTz: true }).notNullable();
    t.text('agent_id').notNullable();
    t.text('state').notNullable();
    // Fired later than its occurrence: a catch-up after every instance was down.
    t.boolean('late').notNullable().defaultTo(false);
    t.text('claimed_by');
    t.timestamp('lease_until', { useTz: true });
    t.text('run_id');
    t.text('error');
    // A refusal's code (INVALID, LIMIT_EXCEEDED, …) and, for a limit, its reason.
    t.text('error_code');
    t.text('error_reason');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.primary(['schedule_id', 'occurrence_at']);
  });
  await knex.raw(
    `alter table schedule_fires add constraint schedule_fires_state_check check (state in (${FIRE_STATES.map((s) => `'${s}'`).join(',')}))`,
  );
  await knex.raw(
    `create unique index schedule_fires_one_running on schedule_fires (schedule_id) where state = 'RUNNING'`,
  );
  await knex.raw(
    `create unique index schedule_fires_one_queued on schedule_fires (schedule_id) where state = 'QUEUED'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('schedule_fires');
  await knex.schema.dropTable('schedules');
}
