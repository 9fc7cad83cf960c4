import { expect } from 'chai';
import { createAgent, errorCode, gql, gqlOk, newWorkspace, type TestWorkspace } from '../helpers/harness.js';

const AGENT_FIELDS = `id name description instructions defaultModel visibility teamId allowWorkspaceKeys
  surfaces { surface enabled activityLogging } cors { allowPlatformApps customOrigins }
  capabilities { endpointManagement documents }
  guardrails { blockedInputPatterns redactOutputPatterns redactPresets maxInputChars maxOutputTokens maxToolSteps maxCreditsPerRun }
  limits { dailyCreditLimit maxConcurrentRequests }`;

/** Configures models of these names, so that entries and agents may name them (references are checked when saved). */
async function configureModels(token: string, names: string[]): Promise<void> {
  for (const name of names) {
    await gqlOk(token, 'mutation($i: ConfigureModelInput!) { configureModel(input: $i) { name } }', {
      i: { name, provider: 'OPENAI_COMPATIBLE', model: name, baseUrl: 'http://127.0.0.1:9/v1' },
    });
  }
}

describe('GraphQL: agents', () => {
  let ws: TestWorkspace;
  before(async () => {
    ws = await newWorkspace();
    await configureModels(ws.adminToken, ['gpt-4o-mini']);
  });

  it('createAgent stores the input with the first five surfaces on, the OpenAI-compatible API, A2A, email, SMS and schedules off, and sensible defaults', async () => {
    const d = await gqlOk(
      ws.adminToken,
      `mutation($i: CreateAgentInput!) { createAgent(input: $i) { ${AGENT_FIELDS} } }`,
      {
        i: {
          name: 'Support',
          description: 'Answers tickets',
          instructions: 'Be brief',
          defaultModel: 'gpt-4o-mini',
          allowWorkspaceKeys: true,
        },
      },
    );
    const a = d.createAgent;
    expect(a).to.include({
      name: 'Support',
      description: 'Answers tickets',
      instructions: 'Be brief',
      defaultModel: 'gpt-4o-mini',
      visibility: 'WORKSPACE',
      allowWorkspaceKeys: true,
    });
    expect(a.surfaces.map((s: any) => [s.surface, s.enabled, s.activityLogging])).to.deep.equal([
      ['HTTP_API', true, true],
      ['DOCUMENT_API', true, true],
      ['MCP', true, true],
      ['WIDGET', true, true],
      ['WEBHOOKS', true, true],
      ['OPENAI', false, true],
      ['A2A', false, true],
      ['EMAIL', false, true],
      ['SMS', false, true],
      ['SCHEDULE', false, true],
    ]);
    expect(a.cors).to.deep.equal({ allowPlatformApps: true, customOrigins: [] });
    expect(a.capabilities).to.deep.equal({ endpointManagement: false, documents: false });
    expect(a.guardrails.maxToolSteps).to.equal(5);

    const again = await gqlOk(ws.adminToken, `query($id: ID!) { agent(id: $id) { name instructions } }`, { id: a.id });
    expect(again.agent).to.deep.equal({ name: 'Support', instructions: 'Be brief' });
  });

  it('createAgent refuses an empty name and an unknown team with BAD_USER_INPUT naming the field', async () => {
    const r1 = await gql(ws.adminToken, `mutation { createAgent(input: {name: "  "}) { id } }`);
    expect(errorCode(r1)).to.equal('BAD_USER_INPUT');
    expect(r1.errors![0]!.extensions!.field).to.equal('input.name');
    const r2 = await gql(ws.adminToken, `mutation { createAgent(input: {name: "x", teamId: "team_nope"}) { id } }`);
    expect(errorCode(r2)).to.equal('BAD_USER_INPUT');
    expect(r2.errors![0]!.extensions!.field).to.equal('teamId');
  });

  it('updateAgent changes only the given fields; unknown id is NOT_FOUND', async () => {
    const id = await createAgent(ws.adminToken, { name: 'Before', description: 'keep me' });
    const d = await gqlOk(
      ws.adminToken,
      `mutation($id: ID!) { updateAgent(id: $id, input: {name: "After", visibility: PRIVATE}) { name description visibility } }`,
      { id },
    );
    expect(d.updateAgent).to.deep.equal({ name: 'After', description: 'keep me', visibility: 'PRIVATE' });
    const r = await gql(ws.adminToken, `mutation { updateAgent(id: "agt_missing", input: {name: "x"}) { id } }`);
    expect(errorCode(r)).to.equal('NOT_FOUND');
  });

  it('deleteAgent removes the agent and its entries', async () => {
    const id = await createAgent(ws.adminToken);
    await gqlOk(
      ws.adminToken,
      `mutation($id: ID!) { addHttpEndpoint(agentId: $id, input: {path: "a", handler: {prompt: "p"}}) { id } }`,
      { id },
    );
    const d = await gqlOk(ws.adminToken, `mutation($id: ID!) { deleteAgent(id: $id) }`, { id });
    expect(d.deleteAgent).to.equal(true);
    expect(errorCode(await gql(ws.adminToken, `query($id: ID!) { agent(id: $id) { id } }`, { id }))).to.equal(
      'NOT_FOUND',
    );
    expect(errorCode(await gql(ws.adminToken, `mutation { deleteAgent(id: "agt_missing") }`))).to.equal('NOT_FOUND');
  });

  it('setSurface toggles one surface and its activity logging', async () => {
    const id = await createAgent(ws.adminToken);
    const d = await gqlOk(
      ws.adminToken,
      `mutation($id: ID!) { setSurface(agentId: $id, surface: MCP, enabled: false, activityLogging: false) { surfaces { surface enabled activityLogging } } }`,
      { id },
    );
    const mcp = d.setSurface.surfaces.find((s: any) => s.surface === 'MCP');
    expect(mcp).to.deep.equal({ surface: 'MCP', enabled: false, activityLogging: false });
    expect(d.setSurface.surfaces.filter((s: any) => s.enabled)).to.have.length(4);
    const d2 = await gqlOk(
      ws.adminToken,
      `mutation($id: ID!) { setSurface(agentId: $id, surface: MCP, enabled: true) { surfaces { surface enabled activityLogging } } }`,
      { id },
    );
    expect(d2.setSurface.surfaces.find((s: any) => s.surface === 'MCP')).to.deep.equal({
      surface: 'MCP',
      enabled: true,
      activityLogging: false,
    });
  });

  it('setCors validates origins (scheme + host only)', async () => {
    const id = await createAgent(ws.adminToken);
    const ok = await gqlOk(
      ws.adminToken,
      `mutation($id: ID!) { setCors(agentId: $id, allowPlatformApps: false, customOrigins: ["https://shop.example.com", "http://localhost:5173"]) { cors { allowPlatformApps customOrigins } } }`,
      { id },
    );
    expect(ok.setCors.cors).to.deep.equal({
      allowPlatformApps: false,
      customOrigins: ['https://shop.example.com', 'http://localhost:5173'],
    });
    for (const bad of [
      'https://shop.example.com/path',
      'ftp://x.example.com',
      'shop.example.com',
      'https://x.example.com/',
    ]) {
      const r = await gql(
        ws.adminToken,
        `mutation($id: ID!, $o: [String!]) { setCors(agentId: $id, allowPlatformApps: true, customOrigins: $o) { id } }`,
        { id, o: [bad] },
      );
      expect(errorCode(r), bad).to.equal('BAD_USER_INPUT');
      expect(r.errors![0]!.extensions!.field).to.equal('customOrigins.0');
    }
  });

  it('setCapabilities, setGuardrails and setAgentLimits store their values and refuse bad ones', async () => {
    const id = await createAgent(ws.adminToken);
    const c = await gqlOk(
      ws.adminToken,
      `mutation($id: ID!) { setCapabilities(agentId: $id, input: {endpointManagement: true}) { capabilities { endpointManagement documents } } }`,
      { id },
    );
    expect(c.setCapabilities.capabilities).to.deep.equal({ endpointManagement: true, documents: false });

    const g = await gqlOk(
      ws.adminToken,
      `mutation($id: ID!) { setGuardrails(agentId: $id, input: {blockedInputPatterns: ["ignore previous"], redactPresets: [email, creditCard], maxInputChars: 2000, maxToolSteps: 3, maxCreditsPerRun: 1.5}) {
        guardrails { blockedInputPatterns redactPresets maxInputChars maxToolSteps maxCreditsPerRun maxOutputTokens } } }`,
      { id },
    );
    expect(g.setGuardrails.guardrails).to.deep.equal({
      blockedInputPatterns: ['ignore previous'],
      redactPresets: ['email', 'creditCard'],
      maxInputChars: 2000,
      maxToolSteps: 3,
      maxCreditsPerRun: 1.5,
      maxOutputTokens: null,
    });
    const badRegex = await gql(
      ws.adminToken,
      `mutation($id: ID!) { setGuardrails(agentId: $id, input: {blockedInputPatterns: ["(unclosed"]}) { id } }`,
      { id },
    );
    expect(errorCode(badRegex)).to.equal('BAD_USER_INPUT');
    const badSteps = await gql(
      ws.adminToken,
      `mutation($id: ID!) { setGuardrails(agentId: $id, input: {maxToolSteps: 0}) { id } }`,
      { id },
    );
    expect(badSteps.errors![0]!.extensions!.field).to.equal('input.maxToolSteps');

    const l = await gqlOk(
      ws.adminToken,
      `mutation($id: ID!) { setAgentLimits(agentId: $id, dailyCreditLimit: 10, maxConcurrentRequests: 2) { limits { dailyCreditLimit maxConcurrentRequests } } }`,
      { id },
    );
    expect(l.setAgentLimits.limits).to.deep.equal({ dailyCreditLimit: 10, maxConcurrentRequests: 2 });
    const l2 = await gqlOk(
      ws.adminToken,
      `mutation($id: ID!) { setAgentLimits(agentId: $id, dailyCreditLimit: null) { limits { dailyCreditLimit maxConcurrentRequests } } }`,
      { id },
    );
    expect(l2.setAgentLimits.limits).to.deep.equal({ dailyCreditLimit: null, maxConcurrentRequests: 2 });
    const bad = await gql(
      ws.adminToken,
      `mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: 0) { id } }`,
      { id },
    );
    expect(bad.errors![0]!.extensions!.field).to.equal('maxConcurrentRequests');
  });

  it('setGuardrails refuses a pattern the linear-time engine cannot run with BAD_USER_INPUT naming the pattern and its list, and keeps the saved ones', async () => {
    const id = await createAgent(ws.adminToken);
    const set = (input: string) =>
      gql(
        ws.adminToken,
        `mutation($id: ID!) { setGuardrails(agentId: $id, input: ${input}) { guardrails { blockedInputPatterns redactOutputPatterns } } }`,
        { id },
      );
    const saved = await set(
      '{blockedInputPatterns: ["(a+)+$", "drop\\\\s+table"], redactOutputPatterns: ["token-\\\\d+"]}',
    );
    expect(saved.errors).to.equal(undefined);
    expect(saved.data.setGuardrails.guardrails).to.deep.equal({
      blockedInputPatterns: ['(a+)+$', 'drop\\s+table'],
      redactOutputPatterns: ['token-\\d+'],
    });

    const backreference = await set('{blockedInputPatterns: ["fine", "(a)\\\\1"]}');
    expect(errorCode(backreference)).to.equal('BAD_USER_INPUT');
    expect(backreference.errors![0]!.extensions!.field).to.equal('input.blockedInputPatterns.1');
    expect(backreference.errors![0]!.message).to.equal(
      'input.blockedInputPatterns.1: the pattern `(a)\\1` cannot run in the linear-time pattern engine: invalid escape sequence: \\1 (the engine supports no backreferences)',
    );
    const lookahead = await set('{redactOutputPatterns: ["secret(?=\\\\d)"]}');
    expect(errorCode(lookahead)).to.equal('BAD_USER_INPUT');
    expect(lookahead.errors![0]!.message).to.match(
      /^input\.redactOutputPatterns\.0: the pattern `secret\(\?=\\d\)` cannot run .*lookahead/,
    );
    const tooLarge = await set(`{redactOutputPatterns: ["${'x'.repeat(300)}"]}`);
    expect(tooLarge.errors![0]!.message).to.match(
      /^input\.redactOutputPatterns\.0: .* too large for the pattern engine/,
    );

    const after = await gqlOk(
      ws.adminToken,
      `query($id: ID!) { agent(id: $id) { guardrails { blockedInputPatterns redactOutputPatterns } } }`,
      { id },
    );
    expect(after.agent.guardrails).to.deep.equal({
      blockedInputPatterns: ['(a+)+$', 'drop\\s+table'],
      redactOutputPatterns: ['token-\\d+'],
    });
  });

  it('private agents are visible only to admins and their creator', async () => {
    const alice = await ws.addMember();
    const bob = await ws.addMember();
    const id = await createAgent(alice.token, { name: 'Alice private', visibility: 'PRIVATE' });
    const listed = async (token: string) => (await gqlOk(token, '{ agents { id } }')).agents.map((a: any) => a.id);
    expect(await listed(alice.token)).to.include(id);
    expect(await listed(ws.adminToken)).to.include(id);
    expect(await listed(bob.token)).to.not.include(id);
    expect(errorCode(await gql(bob.token, `query($id: ID!) { agent(id: $id) { id } }`, { id }))).to.equal('NOT_FOUND');
    expect(errorCode(await gql(bob.token, `mutation($id: ID!) { deleteAgent(id: $id) }`, { id }))).to.equal(
      'NOT_FOUND',
    );
  });

  it('agents of another workspace do not exist for this one', async () => {
    const other = await newWorkspace();
    const id = await createAgent(other.adminToken);
    expect(errorCode(await gql(ws.adminToken, `query($id: ID!) { agent(id: $id) { id } }`, { id }))).to.equal(
      'NOT_FOUND',
    );
    expect(
      errorCode(
        await gql(
          ws.adminToken,
          `mutation($id: ID!) { setSurface(agentId: $id, surface: MCP, enabled: false) { id } }`,
          { id },
        ),
      ),
    ).to.equal('NOT_FOUND');
  });
});
