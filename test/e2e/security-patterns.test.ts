import { expect } from 'chai';
import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { databaseEnv, graphqlClient } from '../helpers/process.js';
import { call as send, type Reply } from '../helpers/surface-calls.js';
import { startSurfaceService, type InProcessService } from '../helpers/surface-service.js';
import { seedDataDir } from '../helpers/embedded-template.js';

// The two reproductions of the "Surface core" security findings 1 and 2, sent to the service as a
// user runs it: a redaction preset over a large script output, and a blocked pattern built to
// backtrack. Both used to freeze the whole service (/healthz included) for seconds. Here the
// slow-looking request answers correctly and a /healthz sent while it is in flight answers too.
// Which of the two finishes first is a race (both are fast once the patterns run in linear time),
// so it is not asserted: that nothing blocks the event loop is shown by the wall times in
// `npm run bench -- guardrails` and by the unit tests that run the same inputs directly.

const ADMIN_TOKEN = 'security-patterns-admin-token-0'; // 31 characters
const AS = 'a'.repeat(80_000);
const REDOS_BODY = `${'a'.repeat(28)}!`;

describe('e2e: guardrail patterns cannot freeze the service', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-patterns-'));
  let svc: InProcessService;
  let database: Awaited<ReturnType<typeof databaseEnv>> | undefined;
  let emailAgent: string, emailKey: string, redosAgent: string, redosKey: string;
  const gql = graphqlClient(() => svc.url, ADMIN_TOKEN);
  const call = (method: string, p: string, opts: Omit<Parameters<typeof send>[2], 'baseUrl'> = {}) =>
    send(method, p, { ...opts, baseUrl: svc.url });
  const apiPath = (agent: string, p: string) => `/agents/${agent}/api/${p}`;

  async function agentWith(name: string, guardrails: string, script: string): Promise<{ id: string; key: string }> {
    const id = (await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', { i: { name } }))
      .createAgent.id as string;
    await gql(`mutation($a: ID!) { setGuardrails(agentId: $a, input: ${guardrails}) { id } }`, { a: id });
    await gql('mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
      a: id,
      i: { path: 'run', handler: { script } },
    });
    const key = (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key } }', { a: id }))
      .createAgentApiKey.key as string;
    return { id, key };
  }

  /**
   * Sends `slow` and, once the service has received it, a GET /healthz. Returns the slow reply,
   * and the /healthz reply.
   */
  async function healthzWhileInFlight(
    slowPath: string,
    slow: () => Promise<Reply>,
  ): Promise<{ reply: Reply; health: Reply }> {
    const received = new Promise<void>((resolve) => {
      const onRequest = (req: IncomingMessage) => {
        if (req.url !== slowPath) return;
        svc.server.off('request', onRequest);
        resolve();
      };
      svc.server.on('request', onRequest);
    });
    const slowReply = slow();
    await received;
    const health = await call('GET', '/healthz');
    return { reply: await slowReply, health };
  }

  // Starting the service takes a while; each test keeps the suite's default timeout.
  before(async function () {
    this.timeout(120_000);
    await seedDataDir(dataDir);
    database = await databaseEnv('patterns_e2e');
    // No model is ever called: both agents answer with scripts.
    svc = await startSurfaceService({
      dataDir,
      adminToken: ADMIN_TOKEN,
      modelUrl: 'http://127.0.0.1:9/v1',
      platformOrigin: 'https://app.example.test',
      database: database.env,
    });
    ({ id: emailAgent, key: emailKey } = await agentWith(
      'Email preset',
      '{ redactPresets: [email] }',
      `return 'a'.repeat(80000) + (input && input.tail ? input.tail : '')`,
    ));
    ({ id: redosAgent, key: redosKey } = await agentWith(
      'Backtracking pattern',
      '{ blockedInputPatterns: ["(a+)+$"] }',
      'return { echo: input }',
    ));
  });

  after(async () => {
    await svc?.stop();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('an HTTP API script returning 80,000 "a"s on an agent with the email preset answers them unchanged, and /healthz answers meanwhile', async () => {
    const p = apiPath(emailAgent, 'run');
    const { reply, health } = await healthzWhileInFlight(p, () => call('POST', p, { key: emailKey, json: {} }));
    expect(reply.status, reply.text.slice(0, 300)).to.equal(200);
    expect(reply.json.output).to.equal(AS);
    expect(health.status).to.equal(200);
    expect(health.json).to.deep.equal({ status: 'ok' });
  });

  it('the email preset still redacts an address after the 80,000 "a"s', async () => {
    const r = await call('POST', apiPath(emailAgent, 'run'), {
      key: emailKey,
      json: { tail: ' mail ops@example.org' },
    });
    expect(r.status, r.text.slice(0, 300)).to.equal(200);
    expect(r.json.output).to.equal(`${AS} mail [redacted]`);
  });

  it('a body of 28 "a"s and a "!" passes the blocked pattern (a+)+$, and /healthz answers meanwhile', async () => {
    const p = apiPath(redosAgent, 'run');
    const { reply, health } = await healthzWhileInFlight(p, () => call('POST', p, { key: redosKey, json: REDOS_BODY }));
    expect(reply.status, reply.text).to.equal(200);
    expect(reply.json.output).to.deep.equal({ echo: REDOS_BODY });
    expect(health.status).to.equal(200);
  });

  it('a body the pattern (a+)+$ does match is refused with 400', async () => {
    const r = await call('POST', apiPath(redosAgent, 'run'), { key: redosKey, json: 'a'.repeat(28) });
    expect(r.status, r.text).to.equal(400);
    expect(r.json.error).to.match(/refused by this agent's guardrails/);
  });
});
