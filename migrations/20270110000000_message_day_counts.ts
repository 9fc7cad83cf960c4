import type { Knex } from 'knex';

// Exact message counts without counting every row (Workspace API `totalCount` at millions of
// messages): a per-agent, per-UTC-day, per-direction and per-channel count kept by a trigger in the
// same transaction as each insert, update and delete of a message. A count over a time window sums
// the days that lie wholly inside it and counts only the rows of its two edge days
// (docs/decisions.md, "Hot path").

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('message_day_counts', (t) => {
    t.text('agent_id').notNullable().references('id').inTable('agents').onDelete('CASCADE');
    t.date('day').notNullable();
    t.text('direction').notNullable();
    t.text('channel').notNullable();
    t.integer('n').notNullable();
    t.primary(['agent_id', 'day', 'direction', 'channel']);
  });
  await knex.raw(`
    create function aes_count_message() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then
        -- Decrement only: a row already gone with its agent (a cascade) has nothing to count.
        update message_day_counts set n = n - 1
          where agent_id = old.agent_id and day = (old.sent_at at time zone 'UTC')::date and direction = old.direction and channel = old.channel;
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        insert into message_day_counts (agent_id, day, direction, channel, n)
          values (new.agent_id, (new.sent_at at time zone 'UTC')::date, new.direction, new.channel, 1)
          on conflict (agent_id, day, direction, channel) do update set n = message_day_counts.n + 1;
      end if;
      return null;
    end
    $$`);
  await knex.raw(
    `create trigger aes_count_message after insert or update of agent_id, sent_at, direction, channel or delete on messages for each row execute function aes_count_message()`,
  );
  await knex.raw(`
    insert into message_day_counts (agent_id, day, direction, channel, n)
    select agent_id, (sent_at at time zone 'UTC')::date, direction, channel, count(*)
      from messages group by 1, 2, 3, 4`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists aes_count_message on messages');
  await knex.raw('drop function if exists aes_count_message()');
  await knex.schema.dropTableIfExists('message_day_counts');
}
