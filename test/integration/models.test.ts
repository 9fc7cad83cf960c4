import { expect } from 'chai';
import net from 'node:net';
import { createAgent, gqlOk, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { activityOf, addHttpEndpoint, call, createAgentKey, httpApiPath } from '../helpers/surface-calls.js';

// A model's base URL may carry credentials. Admins see it as stored; members, and the callers and
// activity log of a run that fails on it, see its user info and query masked.

const CONFIGURE_MODEL = 'mutation($i: ConfigureModelInput!) { configureModel(input: $i) { name baseUrl } }';
const WITH_CREDENTIALS = 'https://alice:s3cr3t-pass@llm.example.com/v1?api-key=k3y-value';
const LEAKS = /alice|s3cr3t-pass|k3y-value/;

async function configureModel(ws: TestWorkspace, name: string, baseUrl: string, isDefault = false): Promise<void> {
  await gqlOk(ws.adminToken, CONFIGURE_MODEL, {
    i: { name, provider: 'OPENAI_COMPATIBLE', model: 'm', baseUrl, isDefault },
  });
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('GraphQL: configured models and their base URLs', function () {
  this.timeout(30_000);

  it('shows a member the base URL without its user info and query; the admin sees it as stored', async () => {
    const ws = await newWorkspace();
    await configureModel(ws, 'hosted', WITH_CREDENTIALS);
    await configureModel(ws, 'local', 'http://localhost:11434/v1');
    const member = await ws.addMember();
    const listed = async (token: string) =>
      (await gqlOk(token, '{ models { name baseUrl } }')).models as { name: string; baseUrl: string }[];

    const seen = await listed(member.token);
    expect(seen).to.have.deep.members([
      { name: 'hosted', baseUrl: 'https://***@llm.example.com/v1?***' },
      { name: 'local', baseUrl: 'http://localhost:11434/v1' },
    ]);
    expect(JSON.stringify(seen)).to.not.match(LEAKS);

    expect(await listed(ws.adminToken)).to.have.deep.members([
      { name: 'hosted', baseUrl: WITH_CREDENTIALS },
      { name: 'local', baseUrl: 'http://localhost:11434/v1' },
    ]);
  });

  it("keeps a base URL's credentials out of a failed run's answer and activity log", async () => {
    const port = await closedPort();
    // Node's fetch refuses a URL with user info, quoting it in the error the run answers with.
    const ws = await newWorkspace();
    await configureModel(ws, 'broken', `http://alice:s3cr3t-pass@127.0.0.1:${port}/v1?api-key=k3y-value`, true);
    const agentId = await createAgent(ws.adminToken, { name: 'asks' });
    const key = await createAgentKey(ws.adminToken, agentId);
    await addHttpEndpoint(ws.adminToken, agentId, { path: 'ask', handler: { prompt: 'Answer.' } });

    const r = await call('POST', httpApiPath(agentId, 'ask'), { key, json: { q: 'hi' } });

    expect(r.status, r.text).to.equal(500);
    // The caller learns only that the model call failed; members read the detail in the activity log.
    expect(r.json.error).to.match(/^The model call failed/);
    expect(r.text).to.not.match(LEAKS);
    const logged = await activityOf(ws.adminToken, agentId);
    expect(logged).to.have.length(1);
    expect(logged[0]!.error).to.contain(`127.0.0.1:${port}/v1`);
    expect(JSON.stringify(logged)).to.not.match(LEAKS);
  });
});
