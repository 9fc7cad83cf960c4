/**
 * The parts of a fair claim shared by the webhook queue (delivery.repo.ts) and the channel queue
 * (channel-message.repo.ts). A claim is one statement, so fairness holds across instances sharing one
 * PostgreSQL:
 *
 * 1. `agents` walks the agents with waiting rows — a skip scan of an index on (agent_id, …): one
 *    index step per agent, however long its backlog;
 * 2. `offered` (the queue's own) is each agent's oldest due rows, an index range each;
 * 3. `turns` numbers them per agent (turn 1, 2, …) and orders the claim: lowest turn first — every
 *    agent's oldest before any agent's second — and between equal turns the agent served least
 *    recently (never served first), then the oldest due. Without that second key a worker freeing
 *    one slot at a time took the oldest agent's next row on every claim, and another agent's one
 *    delivery waited behind the whole backlog;
 * 4. the queue's locking SELECT and UPDATE take the first of them (`rank`), passing over rows
 *    another instance holds (`FOR UPDATE SKIP LOCKED`);
 * 5. `renewed` and `served` record, in the same statement, which agents this claim served and in
 *    what order: the claim's number (a sequence: one order across instances, whatever their
 *    clocks) and each agent's place in it.
 */
export type FairQueue = 'webhook' | 'channel';

/** The recursive walk over the agents of `table` having rows `waiting` (a predicate over alias `n`, literal as in the index). */
export function agentsWalk(table: string, waiting: (alias: string) => string): string {
  return `agents (agent_id) as (
      select min(agent_id) from ${table} as n where ${waiting('n')}
    union all
      select (select min(n.agent_id) from ${table} as n where ${waiting('n')} and n.agent_id > agents.agent_id)
        from agents
       where agents.agent_id is not null
  )`;
}

/**
 * `turns`: the offered rows (CTE `offered`: id, agent_id, next_attempt_at) in the claim's order,
 * `rank` 1, 2, …; the first `?` of them (a few rows: the locking SELECT then reads each by its key).
 * The window functions cannot be in the locking SELECT, which checks again that each row is due.
 */
export function rankedTurns(queue: FairQueue): string {
  return `turns as (
      select numbered.id, numbered.agent_id,
             row_number() over (order by numbered.turn, s.claim_no nulls first, s.claim_rank, numbered.next_attempt_at, numbered.id) as rank
        from (select id, agent_id, next_attempt_at, row_number() over (partition by agent_id order by next_attempt_at, id) as turn from offered) as numbered
        left join agent_queue_serves as s on s.queue = '${queue}' and s.agent_id = numbered.agent_id
       order by rank
       limit ?
  )`;
}

/**
 * `claim_no` … `served`: the claim's number and, per agent the claim took rows of (CTE `claimed`:
 * agent_id, rank), that number and the agent's place in the claim (an empty claim takes no number).
 * An agent's row that another claim in progress holds is passed over (`SKIP LOCKED`), never waited
 * for: that claim records the agent a moment later anyway, and claims of several instances do not
 * queue up behind each other's. An agent's first row is inserted in agent order, and `do nothing`
 * if another claim inserted it meanwhile.
 */
export function recordServed(queue: FairQueue): string {
  return `claim_no as (
      select nextval('agent_queue_claims') as no where exists (select from claimed)
  ), by_agent as (
      select agent_id, row_number() over (order by min(rank)) as place from claimed group by agent_id
  ), held as (
      select s.agent_id
        from agent_queue_serves as s
        join by_agent on by_agent.agent_id = s.agent_id
       where s.queue = '${queue}'
       order by s.agent_id
         for update of s skip locked
  ), renewed as (
      update agent_queue_serves as s
         set claim_no = claim_no.no, claim_rank = by_agent.place
        from held, by_agent, claim_no
       where s.queue = '${queue}' and s.agent_id = held.agent_id and by_agent.agent_id = held.agent_id
  ), served as (
      insert into agent_queue_serves (queue, agent_id, claim_no, claim_rank)
      select '${queue}', by_agent.agent_id, claim_no.no, by_agent.place
        from by_agent
       cross join claim_no
       where not exists (select from agent_queue_serves as s where s.queue = '${queue}' and s.agent_id = by_agent.agent_id)
       order by by_agent.agent_id
      on conflict (queue, agent_id) do nothing
  )`;
}
