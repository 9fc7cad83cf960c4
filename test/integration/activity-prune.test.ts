import { expect } from 'chai';
import { newId } from '../../src/domain/ids.js';
import { createAgent, h, newWorkspace } from '../helpers/harness.js';

// The retention prune deletes in batches, each its own statement, until nothing older is left: a
// month of a busy workspace is neither one long transaction nor every deleted id in memory.

describe('activity log retention prune', () => {
  it('deletes every entry older than the cut-off in batches and returns how many; newer entries and other workspaces stay', async () => {
    const ws = await newWorkspace();
    const other = await newWorkspace();
    const agent = await createAgent(ws.adminToken);
    const otherAgent = await createAgent(other.adminToken);
    // In the past: the log's first partition holds every day before the partitioning (none is made for 2090).
    const cutoff = new Date('2020-06-01T00:00:00Z');
    const row = (workspaceId: string, agentId: string, createdAt: Date) => ({
      id: newId('act'),
      workspace_id: workspaceId,
      agent_id: agentId,
      kind: 'request',
      surface: 'HTTP_API',
      status: 200,
      created_at: createdAt,
    });
    const old = (i: number) => new Date(cutoff.getTime() - (i + 1) * 60_000);
    await h()
      .db('activity_log')
      .insert([
        ...Array.from({ length: 7 }, (_, i) => row(ws.workspaceId, agent, old(i))),
        row(ws.workspaceId, agent, cutoff),
        row(other.workspaceId, otherAgent, old(0)),
      ]);

    expect(await h().service.store.repos.activity.prune(ws.workspaceId, cutoff, 3)).to.equal(7);
    const left = (await h()
      .db('activity_log')
      .whereIn('agent_id', [agent, otherAgent])
      .select('agent_id', 'created_at')) as { agent_id: string; created_at: Date }[];
    expect(left.map((r) => [r.agent_id, new Date(r.created_at).toISOString()]).sort()).to.deep.equal(
      [
        [agent, cutoff.toISOString()],
        [otherAgent, old(0).toISOString()],
      ].sort(),
    );
    expect(await h().service.store.repos.activity.prune(ws.workspaceId, cutoff, 3)).to.equal(0);
  });
});
