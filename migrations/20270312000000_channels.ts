import type { Knex } from 'knex';

// Email and SMS channels (docs/decisions.md §30). A channel routes one address — an email address
// or an E.164 number — to one agent, so an address is unique per kind across the service. The
// messages a channel receives and sends are rows of `messages`, which for them is also the queue
// (like webhook_deliveries): a row with `next_attempt_at` set is due work (an inbound message to
// answer, an outbound one to send), claimed under `locked_until`, fenced by `attempts`.

const STATUSES = [
  'received',
  'ignored',
  'deferred',
  'answered',
  'queued',
  'sent',
  'delivered',
  'undelivered',
  'failed',
];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('channels', (t) => {
    t.text('id').primary();
    t.text('agent_id').notNullable().references('id').inTable('agents').onDelete('CASCADE');
    t.text('kind').notNullable();
    t.text('address').notNullable();
    t.text('handler_kind').notNullable();
    t.text('handler_body').notNullable();
    t.text('model_override');
    t.jsonb('allowed_senders').notNullable().defaultTo(knex.raw(`'[]'::jsonb`));
    t.boolean('auto_reply').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['kind', 'address'], { indexName: 'channels_kind_address_unique' });
    t.index(['agent_id']);
  });
  await knex.raw(`alter table channels add constraint channels_kind_check check (kind in ('EMAIL','SMS'))`);

  await knex.schema.alterTable('messages', (t) => {
    t.text('channel_id').references('id').inTable('channels').onDelete('SET NULL');
    t.text('thread_id');
    t.text('message_id');
    t.text('in_reply_to');
    t.text('status');
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('failures').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true });
    t.timestamp('locked_until', { useTz: true });
    t.text('last_error');
    t.text('run_id');
    t.jsonb('provider');
    // A provider's redelivery of the same message (its id) is stored once; NULL ids never clash.
    t.unique(['agent_id', 'channel_id', 'direction', 'message_id'], { indexName: 'messages_dedupe_unique' });
  });
  await knex.raw(
    `alter table messages add constraint messages_status_check check (status in (${STATUSES.map((s) => `'${s}'`).join(',')}))`,
  );
  // The channel queue's claim: due rows only (most messages are finished and have none).
  await knex.raw('create index messages_due on messages (next_attempt_at) where next_attempt_at is not null');
  // A channel's reads by sender (the per-sender answer budget) and by run (what a run sent itself).
  await knex.raw(
    'create index messages_channel_sender on messages (channel_id, from_address, created_at) where channel_id is not null',
  );
  await knex.raw('create index messages_run on messages (run_id) where run_id is not null');

  // An email's attachments (docs/decisions.md §32): metadata always, the bytes only within the
  // limits of DEFAULT_MAIL_LIMITS (null `content` otherwise). Stored with the message, in its
  // transaction; they go with it.
  await knex.schema.createTable('message_attachments', (t) => {
    t.text('message_id').notNullable().references('id').inTable('messages').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.text('filename');
    t.text('content_type').notNullable();
    t.integer('size').notNullable();
    t.binary('content');
    t.primary(['message_id', 'position']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('message_attachments');
  await knex.raw('drop index if exists messages_due');
  await knex.raw('drop index if exists messages_channel_sender');
  await knex.raw('drop index if exists messages_run');
  await knex.raw('alter table messages drop constraint if exists messages_status_check');
  await knex.schema.alterTable('messages', (t) => {
    t.dropUnique(['agent_id', 'channel_id', 'direction', 'message_id'], 'messages_dedupe_unique');
    for (const c of [
      'channel_id',
      'thread_id',
      'message_id',
      'in_reply_to',
      'status',
      'attempts',
      'failures',
      'next_attempt_at',
      'locked_until',
      'last_error',
      'run_id',
      'provider',
    ])
      t.dropColumn(c);
  });
  await knex.schema.dropTable('channels');
}
