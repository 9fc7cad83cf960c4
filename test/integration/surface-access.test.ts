import { expect } from 'chai';
import { SURFACES } from '../../src/domain/core/surface.entities.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { loadAgent, refusal } from '../helpers/runtime.js';

// The first checks every key-authenticated surface makes, in the documented order (DESIGN §6):
// unknown agent → 404, key → 401, surface off → 403, and who the caller then is.

const LABEL: Record<string, string> = {
  HTTP_API: 'HTTP API',
  DOCUMENT_API: 'Document API',
  MCP: 'MCP server',
  WIDGET: 'chat widget',
  WEBHOOKS: 'webhook receiver',
  OPENAI: 'OpenAI-compatible API',
  A2A: 'A2A server',
  EMAIL: 'email channel',
  SMS: 'SMS channel',
  SCHEDULE: 'schedule surface',
};

describe('surface access: agent, key, surface switch', () => {
  let ws: TestWorkspace;
  let agentId: string;
  let agentKey: string;
  let agentKeyId: string;
  let wsKey: string;
  let wsKeyId: string;
  const access = () => h().service.services.surfaces;

  before(async () => {
    ws = await newWorkspace();
    agentId = await createAgent(ws.adminToken);
    const k = (
      await gqlOk(
        ws.adminToken,
        'mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key apiKey { id } } }',
        { a: agentId },
      )
    ).createAgentApiKey;
    agentKey = k.key;
    agentKeyId = k.apiKey.id;
    const w = (await gqlOk(ws.adminToken, 'mutation { createWorkspaceApiKey(name: "w") { key apiKey { id } } }'))
      .createWorkspaceApiKey;
    wsKey = w.key;
    wsKeyId = w.apiKey.id;
  });

  it('an unknown agent is NOT_FOUND naming the agent, before the key is looked at', async () => {
    const err = await refusal(() => access().enter(null, 'agt_missing', 'HTTP_API', 'not-even-a-key'));
    expect(err.code).to.equal('NOT_FOUND');
    expect(err.message)
      .to.match(/^Agent /)
      .and.include('agt_missing');
    expect(await access().findAgent('agt_missing')).to.equal(null);
  });

  it('an agent key enters as that key; a missing or wrong key is UNAUTHENTICATED', async () => {
    const agent = (await access().findAgent(agentId))!;
    expect(agent.id).to.equal(agentId);
    const c = await access().enter(agent, agentId, 'HTTP_API', agentKey);
    expect(c.agent.id).to.equal(agentId);
    expect(c.keyId).to.equal(agentKeyId);
    expect(c.principal).to.deep.include({ kind: 'agentKey', keyId: agentKeyId, agentId, workspaceId: ws.workspaceId });
    expect((await refusal(() => access().enter(agent, agentId, 'HTTP_API', undefined))).code).to.equal(
      'UNAUTHENTICATED',
    );
    expect((await refusal(() => access().enter(agent, agentId, 'HTTP_API', `${agentKey}x`))).code).to.equal(
      'UNAUTHENTICATED',
    );
  });

  it('a workspace key enters only agents that allow workspace keys, and carries its own key id', async () => {
    expect(
      (await refusal(async () => access().enter((await access().findAgent(agentId))!, agentId, 'HTTP_API', wsKey)))
        .code,
    ).to.equal('UNAUTHENTICATED');
    await gqlOk(
      ws.adminToken,
      'mutation($a: ID!) { updateAgent(id: $a, input: { allowWorkspaceKeys: true }) { id } }',
      { a: agentId },
    );
    try {
      const c = await access().enter((await access().findAgent(agentId))!, agentId, 'DOCUMENT_API', wsKey);
      expect(c.keyId).to.equal(wsKeyId);
      expect(c.principal.kind).to.equal('workspaceKey');
    } finally {
      await gqlOk(
        ws.adminToken,
        'mutation($a: ID!) { updateAgent(id: $a, input: { allowWorkspaceKeys: false }) { id } }',
        { a: agentId },
      );
    }
  });

  for (const surface of SURFACES) {
    it(`a valid key on a turned-off ${surface} is FORBIDDEN, saying which surface is off and the mutation that turns it on`, async () => {
      const id = await createAgent(ws.adminToken);
      const key = (
        await gqlOk(ws.adminToken, 'mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key } }', { a: id })
      ).createAgentApiKey.key as string;
      await gqlOk(
        ws.adminToken,
        'mutation($a: ID!, $s: Surface!) { setSurface(agentId: $a, surface: $s, enabled: true) { id } }',
        { a: id, s: surface },
      );
      expect((await access().enter(await loadAgent(id), id, surface, key)).agent.id).to.equal(id);
      await gqlOk(
        ws.adminToken,
        'mutation($a: ID!, $s: Surface!) { setSurface(agentId: $a, surface: $s, enabled: false) { id } }',
        { a: id, s: surface },
      );
      const err = await refusal(async () => access().enter(await loadAgent(id), id, surface, key));
      expect(err.code).to.equal('FORBIDDEN');
      expect(err.message).to.equal(
        `The ${LABEL[surface]} is turned off for this agent: a member who can configure the agent turns it on with the GraphQL mutation setSurface(agentId: "${id}", surface: ${surface}, enabled: true)`,
      );
      // A bad key is still UNAUTHENTICATED on a turned-off surface: the key is checked first.
      expect((await refusal(async () => access().enter(await loadAgent(id), id, surface, 'ak_wrong'))).code).to.equal(
        'UNAUTHENTICATED',
      );
    });
  }
});
