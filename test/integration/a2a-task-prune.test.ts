import { expect } from 'chai';
import { newId } from '../../src/domain/ids.js';
import { A2aService, conversationIdOf } from '../../src/domain/surfaces/a2a.service.js';
import { McpService } from '../../src/domain/surfaces/mcp.service.js';
import { h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { MovableClock } from '../helpers/movable-clock.js';
import { insertAgent, recordingPipeline } from '../helpers/service-fakes.js';

// Final A2A tasks and their conversations past their retention (issue 49, item 14): rows
// backdated in the database, pruned by the service as housekeeping calls it.

const NOW = new Date(Date.UTC(2031, 4, 6, 7, 8, 9, 567));
const CALLER = 'agentKey:key_test';

describe('A2A server: pruning final tasks', () => {
  let ws: TestWorkspace;

  before(async () => {
    ws = await newWorkspace();
  });

  function build() {
    const store = h().service.store;
    const { pipeline } = recordingPipeline();
    return { service: new A2aService(store, new MovableClock(NOW), pipeline, new McpService(store, pipeline)) };
  }

  /** A task of `agentId` in `state`, last updated `daysAgo` days before NOW, with one turn in its context's conversation. */
  async function backdated(
    agentId: string,
    callerRef: string | null,
    contextId: string,
    state: string,
    daysAgo: number,
  ): Promise<string> {
    const id = `task-${newId('t')}`;
    const at = new Date(NOW.getTime() - daysAgo * 86_400_000);
    const db = h().db;
    await db('a2a_tasks').insert({
      id,
      agent_id: agentId,
      caller_ref: callerRef,
      context_id: contextId,
      state,
      task: JSON.stringify({ id }),
      created_at: at,
      updated_at: at,
    });
    const conversationId = conversationIdOf(agentId, callerRef, contextId);
    const repo = h().service.store.repos.conversations;
    if (!(await repo.get(conversationId)))
      await repo.insert({ id: conversationId, agentId, visitorId: null, createdAt: at, updatedAt: at });
    await repo.addTurns(
      conversationId,
      [{ id: newId('turn'), conversationId, role: 'user', content: `said in ${id}`, runId: null, createdAt: at }],
      at,
    );
    return id;
  }
  const exists = async (id: string) => (await h().service.store.repos.a2aTasks.get(id)) !== null;
  const conversationOf = (agentId: string, callerRef: string | null, contextId: string) =>
    h().service.store.repos.conversations.get(conversationIdOf(agentId, callerRef, contextId));

  it('deletes final tasks past the retention and the conversation of a context left with no task; keeps the rest', async () => {
    const own = await insertAgent(ws);
    const { service } = build();
    // Tasks other tests left behind in the shared database go first.
    while ((await service.pruneTasks(30)) > 0);
    const old = {
      completed: await backdated(own.id, CALLER, 'ctx-done', 'TASK_STATE_COMPLETED', 31),
      failed: await backdated(own.id, CALLER, 'ctx-failed', 'TASK_STATE_FAILED', 40),
      canceled: await backdated(own.id, 'workspaceKey:wk', 'ctx-canceled', 'TASK_STATE_CANCELED', 31),
      rejected: await backdated(own.id, null, 'ctx-legacy', 'TASK_STATE_REJECTED', 31),
    };
    const working = await backdated(own.id, CALLER, 'ctx-working', 'TASK_STATE_WORKING', 90);
    const recent = await backdated(own.id, CALLER, 'ctx-recent', 'TASK_STATE_COMPLETED', 29);
    // A context with an old final task and a newer one: the task goes, the conversation stays.
    const shared = await backdated(own.id, CALLER, 'ctx-shared', 'TASK_STATE_COMPLETED', 35);
    const sharedNew = await backdated(own.id, CALLER, 'ctx-shared', 'TASK_STATE_COMPLETED', 1);

    expect(await service.pruneTasks(30)).to.equal(5);
    for (const id of [...Object.values(old), shared]) expect(await exists(id), id).to.equal(false);
    for (const id of [working, recent, sharedNew]) expect(await exists(id), id).to.equal(true);
    expect(await conversationOf(own.id, CALLER, 'ctx-done')).to.equal(null);
    expect(await conversationOf(own.id, CALLER, 'ctx-failed')).to.equal(null);
    expect(await conversationOf(own.id, 'workspaceKey:wk', 'ctx-canceled')).to.equal(null);
    expect(await conversationOf(own.id, null, 'ctx-legacy')).to.equal(null);
    expect(
      await h().service.store.repos.conversations.recentTurns(conversationIdOf(own.id, CALLER, 'ctx-done'), 10),
    ).to.deep.equal([]);
    expect(await conversationOf(own.id, CALLER, 'ctx-working')).to.not.equal(null);
    expect(await conversationOf(own.id, CALLER, 'ctx-recent')).to.not.equal(null);
    expect(
      (await h().service.store.repos.conversations.recentTurns(conversationIdOf(own.id, CALLER, 'ctx-shared'), 10))
        .length,
    ).to.equal(2);
    expect(await service.pruneTasks(30)).to.equal(0);
    // A shorter retention reaches the recent one.
    expect(await service.pruneTasks(28)).to.equal(1);
    expect(await exists(recent)).to.equal(false);
  });

  it('deletes at most `limit` tasks a round', async () => {
    const own = await insertAgent(ws);
    const { service } = build();
    while ((await service.pruneTasks(30)) > 0);
    for (let i = 0; i < 3; i++) await backdated(own.id, CALLER, `ctx-${i}`, 'TASK_STATE_COMPLETED', 50);
    expect(await service.pruneTasks(30, 2)).to.equal(2);
    expect(await service.pruneTasks(30, 2)).to.equal(1);
  });
});
