import { expect } from 'chai';
import { createAgent, errorCode, gql, gqlOk, newWorkspace } from '../helpers/harness.js';

// Agent.modelInUse over GraphQL: the model a prompt run uses and where it comes from, as the
// console's Overview shows it (the rules themselves: test/unit/model-in-use.test.ts). The harness
// service has no OPENAI_* / ANTHROPIC_* environment.

const IN_USE = `query($a: ID!, $o: String) {
  agent(id: $a) { modelInUse(modelOverride: $o) { reference source provider model configured problem } }
}`;

describe('GraphQL: the model in use', () => {
  it("names the workspace's default, then the agent's own, then an entry's override", async () => {
    const ws = await newWorkspace();
    const agentId = await createAgent(ws.adminToken);
    const inUse = async (o?: string) =>
      (await gqlOk(ws.adminToken, IN_USE, { a: agentId, o: o ?? null })).agent.modelInUse;

    expect(await inUse()).to.deep.include({ reference: null, source: 'NONE', provider: null, configured: false });
    for (const [name, model, isDefault] of [
      ['house', 'house-upstream', true],
      ['mine', 'mine-upstream', false],
    ] as const)
      await gqlOk(ws.adminToken, 'mutation($i: ConfigureModelInput!) { configureModel(input: $i) { id } }', {
        i: { name, provider: 'OPENAI_COMPATIBLE', model, baseUrl: 'http://127.0.0.1:9/v1', isDefault },
      });
    expect(await inUse()).to.deep.equal({
      reference: 'house',
      source: 'WORKSPACE_DEFAULT',
      provider: 'OPENAI_COMPATIBLE',
      model: 'house-upstream',
      configured: true,
      problem: null,
    });
    await gqlOk(ws.adminToken, 'mutation($a: ID!) { updateAgent(id: $a, input: {defaultModel: "mine"}) { id } }', {
      a: agentId,
    });
    expect(await inUse()).to.deep.include({ reference: 'mine', source: 'AGENT', model: 'mine-upstream' });
    expect(await inUse('house')).to.deep.include({ reference: 'house', source: 'ENTRY' });
    // Unknown to the workspace and no environment provider: the run would fail, and it says why.
    const ghost = await inUse('ghost');
    expect(ghost).to.deep.include({ reference: 'ghost', source: 'ENTRY', provider: null, configured: false });
    expect(ghost.problem).to.match(/No model named 'ghost'/);
  });

  it('refuses an override no model reference could be (400-style BAD_USER_INPUT), and hides other workspaces’ agents', async () => {
    const ws = await newWorkspace();
    const agentId = await createAgent(ws.adminToken);
    const long = await gql(ws.adminToken, IN_USE, { a: agentId, o: 'x'.repeat(201) });
    expect(errorCode(long)).to.equal('BAD_USER_INPUT');
    expect(long.errors![0]!.message).to.match(/^modelOverride/);
    const other = await newWorkspace();
    expect(errorCode(await gql(other.adminToken, IN_USE, { a: agentId }))).to.equal('NOT_FOUND');
  });
});
