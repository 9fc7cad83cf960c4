import { expect } from 'chai';
import { createAgent, gqlOk, h, newWorkspace } from '../helpers/harness.js';

// `agent.usage(days)` and `workspace.usage(days)` read the credit usage of the last `days` UTC days,
// today included: `days: 1` is today alone, `days: 2` today and yesterday. The rows are stored
// directly, for days before today, which no run of a test can produce.

const DAY_MS = 86_400_000;
const dayOf = (offset: number): string => new Date(Date.now() - offset * DAY_MS).toISOString().slice(0, 10);

describe('usage windows: the last N UTC days, today included', () => {
  let token: string;
  let agentId: string;

  before(async () => {
    const ws = await newWorkspace();
    token = ws.adminToken;
    agentId = await createAgent(token);
    // Today and the three days before it, each with a credit figure of its own.
    await h()
      .db('credit_usage')
      .insert(
        [0, 1, 2, 3].map((offset) => ({
          agent_id: agentId,
          workspace_id: ws.workspaceId,
          day: dayOf(offset),
          credits: 10 ** offset,
          runs: offset + 1,
        })),
      );
  });

  // The day count is written into the query: a variable would count as the largest window allowed
  // against the query's field budget.
  async function agentUsage(days: number): Promise<{ day: string; credits: number; runs: number }[]> {
    const d = await gqlOk(token, `query($id: ID!) { agent(id: $id) { usage(days: ${days}) { day credits runs } } }`, {
      id: agentId,
    });
    return d.agent.usage;
  }

  async function workspaceUsage(days: number): Promise<{ day: string; credits: number; runs: number }[]> {
    const d = await gqlOk(token, `query { workspace { usage(days: ${days}) { day credits runs } } }`);
    return d.workspace.usage;
  }

  it("an agent's window of one day is today alone, of two days today and yesterday, newest first", async () => {
    expect(await agentUsage(1)).to.deep.equal([{ day: dayOf(0), credits: 1, runs: 1 }]);
    expect(await agentUsage(2)).to.deep.equal([
      { day: dayOf(0), credits: 1, runs: 1 },
      { day: dayOf(1), credits: 10, runs: 2 },
    ]);
    expect((await agentUsage(4)).map((u) => u.day)).to.deep.equal([0, 1, 2, 3].map(dayOf));
  });

  it("the workspace's window counts the same days as the agent's", async () => {
    expect(await workspaceUsage(1)).to.deep.equal([{ day: dayOf(0), credits: 1, runs: 1 }]);
    expect((await workspaceUsage(3)).map((u) => [u.day, u.credits])).to.deep.equal([
      [dayOf(0), 1],
      [dayOf(1), 10],
      [dayOf(2), 100],
    ]);
  });
});
