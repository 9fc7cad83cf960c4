import type { Knex } from 'knex';

// Who an email's answer goes to (issue 49, items 3 and 6): the per-recipient hourly budget counts
// the address answers are actually sent to, no longer the From: header a sender chooses. Recent
// answerable messages are filled in from their sender so the budget holds across the upgrade.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('messages', (t) => {
    t.text('answer_to');
  });
  await knex.raw(
    "update messages set answer_to = lower(from_address) where channel = 'email' and direction = 'inbound' and status <> 'ignored' and channel_id is not null and created_at > now() - interval '1 hour'",
  );
  await knex.raw(
    'create index messages_channel_answer_to on messages (channel_id, answer_to, created_at) where answer_to is not null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists messages_channel_answer_to');
  await knex.schema.alterTable('messages', (t) => {
    t.dropColumn('answer_to');
  });
}
