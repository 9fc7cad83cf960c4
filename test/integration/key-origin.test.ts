import { expect } from 'chai';
import { createAgent, errorCode, gql, gqlOk, newWorkspace, type TestWorkspace } from '../helpers/harness.js';

// Issue 51, item 4: a key says who made it. A person's key is PERSON unless the creator says
// otherwise; the aes CLI marks its temporary keys CLI; TRY_IT is the console's Try it's alone
// (createTryItKey, test/integration/console-try-it-keys.test.ts), refused everywhere else.

const AGENT_KEY = `mutation($a: ID!, $o: ApiKeyOrigin) { createAgentApiKey(agentId: $a, name: "k", origin: $o) { apiKey { id origin } } }`;
const WORKSPACE_KEY = `mutation($o: ApiKeyOrigin) { createWorkspaceApiKey(name: "w", origin: $o) { apiKey { id origin } } }`;

describe('GraphQL: who made a key (origin)', () => {
  let ws: TestWorkspace;
  let agentId: string;
  before(async () => {
    ws = await newWorkspace();
    agentId = await createAgent(ws.adminToken);
  });

  it('an agent key is PERSON unless CLI is given, and is listed so', async () => {
    const person = (await gqlOk(ws.adminToken, AGENT_KEY, { a: agentId })).createAgentApiKey.apiKey;
    const cli = (await gqlOk(ws.adminToken, AGENT_KEY, { a: agentId, o: 'CLI' })).createAgentApiKey.apiKey;
    expect([person.origin, cli.origin]).to.deep.equal(['PERSON', 'CLI']);
    const listed = (
      await gqlOk(ws.adminToken, 'query($a: ID!) { agent(id: $a) { apiKeys { id origin } } }', { a: agentId })
    ).agent.apiKeys;
    expect(listed).to.deep.include.members([person, cli]);
  });

  it('a workspace key takes the same origins', async () => {
    const person = (await gqlOk(ws.adminToken, WORKSPACE_KEY, {})).createWorkspaceApiKey.apiKey;
    const cli = (await gqlOk(ws.adminToken, WORKSPACE_KEY, { o: 'CLI' })).createWorkspaceApiKey.apiKey;
    expect([person.origin, cli.origin]).to.deep.equal(['PERSON', 'CLI']);
    const listed = (await gqlOk(ws.adminToken, '{ workspace { apiKeys { id origin } } }')).workspace.apiKeys;
    expect(listed).to.deep.include.members([person, cli]);
  });

  it("TRY_IT is refused as input (only the console's Try it makes such keys), and nothing is made", async () => {
    for (const [query, vars] of [
      [AGENT_KEY, { a: agentId, o: 'TRY_IT' }],
      [WORKSPACE_KEY, { o: 'TRY_IT' }],
    ] as const) {
      const r = await gql(ws.adminToken, query, vars);
      expect(errorCode(r)).to.equal('BAD_USER_INPUT');
      expect(r.errors![0]!.extensions!.field).to.equal('origin');
      expect(r.errors![0]!.message).to.contain("a TRY_IT key is made only by the console's Try it");
    }
    const r = await gql(ws.adminToken, AGENT_KEY, { a: agentId, o: 'ROBOT' });
    expect(r.errors?.[0]?.message).to.match(/ROBOT/);
    const count = async () =>
      (await gqlOk(ws.adminToken, 'query($a: ID!) { agent(id: $a) { apiKeys { id } } }', { a: agentId })).agent.apiKeys
        .length;
    expect(await count()).to.equal(2);
  });
});
