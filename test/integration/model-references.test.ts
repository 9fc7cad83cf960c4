import { expect } from 'chai';
import { createAgent, errorCode, gql, gqlOk, newWorkspace, type TestWorkspace } from '../helpers/harness.js';

// Model references are checked when saved: the harness service has no model provider in its
// environment, so a name that no configured model has could only fail at run time, and is refused
// now with the configured names closest to it. A configured model is removed with removeModel,
// refused while anything names it.

const configure = (ws: TestWorkspace, name: string) =>
  gqlOk(ws.adminToken, 'mutation($i: ConfigureModelInput!) { configureModel(input: $i) { name } }', {
    i: { name, provider: 'OPENAI_COMPATIBLE', model: 'm', baseUrl: 'http://127.0.0.1:9/v1' },
  });

describe('GraphQL: model references checked when saved, and removeModel', function () {
  this.timeout(30_000);
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await newWorkspace();
    await configure(ws, 'llama-small');
    await configure(ws, 'llama-large');
  });

  it('refuses an agent defaultModel naming no configured model, suggesting the close names', async () => {
    const r = await gql(
      ws.adminToken,
      'mutation { createAgent(input: {name: "A", defaultModel: "llama-smal"}) { id } }',
    );
    expect(errorCode(r)).to.equal('BAD_USER_INPUT');
    expect(r.errors![0]!.extensions!.field).to.equal('input.defaultModel');
    expect(r.errors![0]!.message)
      .to.contain("no model named 'llama-smal'; configured models: llama-small, llama-large")
      .and.contain('configureModel');
    // The way out that needs no configured model: a provider in the environment.
    expect(r.errors![0]!.message).to.match(
      /, or start the service with OPENAI_BASE_URL \/ OPENAI_API_KEY or ANTHROPIC_API_KEY so that any model name goes to that provider$/,
    );
    const agent = await createAgent(ws.adminToken, { defaultModel: 'llama-small' });
    const u = await gql(
      ws.adminToken,
      'mutation($a: ID!) { updateAgent(id: $a, input: {defaultModel: "gpt-4o"}) { id } }',
      { a: agent },
    );
    expect(errorCode(u)).to.equal('BAD_USER_INPUT');
    const agents = await gqlOk(ws.adminToken, '{ agents { defaultModel } }');
    expect(agents.agents.map((a: any) => a.defaultModel)).to.deep.equal(['llama-small']);
  });

  it("refuses an entry's modelOverride naming no configured model, on every entry kind, when added or updated", async () => {
    const agent = await createAgent(ws.adminToken);
    const add = await gql(
      ws.adminToken,
      'mutation($a: ID!) { addHttpEndpoint(agentId: $a, input: {path: "x", handler: {prompt: "p"}, modelOverride: "nope"}) { id } }',
      { a: agent },
    );
    expect(errorCode(add)).to.equal('BAD_USER_INPUT');
    expect(add.errors![0]!.extensions!.field).to.equal('input.modelOverride');
    const tool = await gql(
      ws.adminToken,
      'mutation($a: ID!) { addMcpTool(agentId: $a, input: {name: "t", description: "d", handler: {prompt: "p"}, modelOverride: "nope"}) { id } }',
      { a: agent },
    );
    expect(errorCode(tool)).to.equal('BAD_USER_INPUT');
    const hook = await gql(
      ws.adminToken,
      'mutation($a: ID!) { addWebhook(agentId: $a, input: {integration: "i", handler: {prompt: "p"}, modelOverride: "nope"}) { id } }',
      { a: agent },
    );
    expect(errorCode(hook)).to.equal('BAD_USER_INPUT');
    const ep = await gqlOk(
      ws.adminToken,
      'mutation($a: ID!) { addHttpEndpoint(agentId: $a, input: {path: "y", handler: {prompt: "p"}, modelOverride: "llama-large"}) { id } }',
      { a: agent },
    );
    const upd = await gql(
      ws.adminToken,
      'mutation($e: ID!) { updateHttpEndpoint(id: $e, input: {modelOverride: "llama-larg"}) { id } }',
      { e: ep.addHttpEndpoint.id },
    );
    expect(errorCode(upd)).to.equal('BAD_USER_INPUT');
    expect(upd.errors![0]!.message).to.contain('llama-large');
  });

  it('removeModel is refused while an agent or an entry names the model, listing them; then removes it', async () => {
    const agent = await createAgent(ws.adminToken, { name: 'Support bot', defaultModel: 'llama-small' });
    await gqlOk(
      ws.adminToken,
      'mutation($a: ID!) { addMcpTool(agentId: $a, input: {name: "ask", description: "d", handler: {prompt: "p"}, modelOverride: "llama-small"}) { id } }',
      { a: agent },
    );
    const refused = await gql(ws.adminToken, 'mutation { removeModel(name: "llama-small") }');
    expect(errorCode(refused)).to.equal('CONFLICT');
    expect(refused.errors![0]!.message).to.contain("agent 'Support bot'").and.contain("MCP tool 'ask'");
    expect((await gqlOk(ws.adminToken, '{ models { name } }')).models.map((m: any) => m.name)).to.include(
      'llama-small',
    );

    await gqlOk(
      ws.adminToken,
      'mutation($a: ID!) { updateAgent(id: $a, input: {defaultModel: "llama-large"}) { id } }',
      { a: agent },
    );
    const tools = await gqlOk(ws.adminToken, 'query($a: ID!) { agent(id: $a) { mcpTools { id } } }', { a: agent });
    await gqlOk(ws.adminToken, 'mutation($t: ID!) { updateMcpTool(id: $t, input: {modelOverride: null}) { id } }', {
      t: tools.agent.mcpTools[0].id,
    });
    expect((await gqlOk(ws.adminToken, 'mutation { removeModel(name: "llama-small") }')).removeModel).to.equal(true);
    expect((await gqlOk(ws.adminToken, '{ models { name } }')).models.map((m: any) => m.name)).to.deep.equal([
      'llama-large',
    ]);
  });

  it('in a workspace with no model configured, the refusal says so', async () => {
    const empty = await newWorkspace();
    const r = await gql(empty.adminToken, 'mutation { createAgent(input: {name: "A", defaultModel: "llama"}) { id } }');
    expect(errorCode(r)).to.equal('BAD_USER_INPUT');
    expect(r.errors![0]!.message).to.contain("no model named 'llama'; no model is configured yet. Configure it first");
  });

  it('removeModel: NOT_FOUND for a name no model has, FORBIDDEN to a member', async () => {
    expect(errorCode(await gql(ws.adminToken, 'mutation { removeModel(name: "typo") }'))).to.equal('NOT_FOUND');
    const member = await ws.addMember();
    expect(errorCode(await gql(member.token, 'mutation { removeModel(name: "llama-large") }'))).to.equal('FORBIDDEN');
  });
});
