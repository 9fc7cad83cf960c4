import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createAgent, gqlOk, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { startAnthropicServer, type FakeAnthropic } from '../helpers/anthropic-server.js';
import { startOpenAiServer, type FakeOpenAi } from '../helpers/openai-server.js';
import { addHttpEndpoint, call, createAgentKey, httpApiPath } from '../helpers/surface-calls.js';

// Which model a prompt run reaches, and with which credential, observed where it matters: at a
// local model server, over real HTTP, for a call made through the HTTP API surface. The harness
// service has no OPENAI_* / ANTHROPIC_API_KEY environment, so only workspace models are reachable.

const CONFIGURE_MODEL = 'mutation($i: ConfigureModelInput!) { configureModel(input: $i) { id } }';

async function configureModel(token: string, input: Record<string, unknown>): Promise<void> {
  await gqlOk(token, CONFIGURE_MODEL, { i: input });
}

async function createSecret(token: string, name: string, value: string): Promise<void> {
  await gqlOk(
    token,
    'mutation($n: String!, $v: String!) { createSecret(name: $n, kind: MODEL_API_KEY, value: $v) { name } }',
    { n: name, v: value },
  );
}

/** An agent with a key and a prompt endpoint at `path`; returns what a caller needs. */
async function promptAgent(
  ws: TestWorkspace,
  agent: Record<string, unknown> = {},
  endpoint: Record<string, unknown> = {},
) {
  const agentId = await createAgent(ws.adminToken, agent);
  const key = await createAgentKey(ws.adminToken, agentId);
  await addHttpEndpoint(ws.adminToken, agentId, { path: 'ask', handler: { prompt: 'Answer briefly.' }, ...endpoint });
  return {
    agentId,
    key,
    ask: (extra: { headers?: Record<string, string> } = {}) =>
      call('POST', httpApiPath(agentId, 'ask'), { key, json: { q: 'hi' }, ...extra }),
  };
}

/** Splits a `text/event-stream` body into its `{event, data}` frames. */
function sseFrames(text: string): { event: string; data: any }[] {
  return text
    .split('\n\n')
    .filter((f) => f.trim())
    .map((f) => {
      const event = /^event: (.*)$/m.exec(f)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(f)?.[1];
      return { event, data: data ? JSON.parse(data) : undefined };
    });
}

describe('model resolution, as seen by the model server', function () {
  this.timeout(30_000);
  let openai: FakeOpenAi;
  let anthropic: FakeAnthropic;

  before(async () => {
    openai = await startOpenAiServer();
    anthropic = await startAnthropicServer();
  });
  after(async () => {
    await openai?.close();
    await anthropic?.close();
  });
  beforeEach(() => {
    openai.reset();
    anthropic.reset();
  });

  it('with no agent default and no entry override, the upstream receives the workspace default model', async () => {
    const ws = await newWorkspace();
    // The default is neither the first nor the last model, by name or by creation.
    await configureModel(ws.adminToken, {
      name: 'alpha',
      provider: 'OPENAI_COMPATIBLE',
      model: 'fake-model-mini',
      baseUrl: openai.url,
    });
    await configureModel(ws.adminToken, {
      name: 'house',
      provider: 'OPENAI_COMPATIBLE',
      model: 'fake-model',
      baseUrl: openai.url,
      isDefault: true,
    });
    await configureModel(ws.adminToken, {
      name: 'zeta',
      provider: 'OPENAI_COMPATIBLE',
      model: 'fake-model-large',
      baseUrl: openai.url,
    });
    const { ask } = await promptAgent(ws);
    openai.enqueue({ text: 'from the house model' });

    const r = await ask();

    expect(r.status, r.text).to.equal(200);
    expect(r.json.output).to.equal('from the house model');
    expect(openai.requests.map((q) => q.body.model)).to.deep.equal(['fake-model']);
  });

  it("an entry's model override wins over the agent's default model", async () => {
    const ws = await newWorkspace();
    await configureModel(ws.adminToken, {
      name: 'agent-model',
      provider: 'OPENAI_COMPATIBLE',
      model: 'fake-model',
      baseUrl: openai.url,
    });
    await configureModel(ws.adminToken, {
      name: 'entry-model',
      provider: 'OPENAI_COMPATIBLE',
      model: 'fake-model-mini',
      baseUrl: openai.url,
    });
    const { agentId, key, ask } = await promptAgent(
      ws,
      { defaultModel: 'agent-model' },
      { modelOverride: 'entry-model' },
    );
    await addHttpEndpoint(ws.adminToken, agentId, { path: 'plain', handler: { prompt: 'Answer briefly.' } });

    const overridden = await ask();
    const plain = await call('POST', httpApiPath(agentId, 'plain'), { key, json: { q: 'hi' } });

    expect([overridden.status, plain.status]).to.deep.equal([200, 200]);
    expect(openai.requests.map((q) => q.body.model)).to.deep.equal(['fake-model-mini', 'fake-model']);
  });

  it("a model whose apiKeySecret names a stored secret presents the secret's value as the bearer credential", async () => {
    const ws = await newWorkspace();
    const compatibleKey = `sk-local-${randomBytes(12).toString('hex')}`;
    const openaiKey = `sk-proj-${randomBytes(12).toString('hex')}`;
    await createSecret(ws.adminToken, 'local-llm-key', compatibleKey);
    await createSecret(ws.adminToken, 'openai-key', openaiKey);
    await configureModel(ws.adminToken, {
      name: 'local',
      provider: 'OPENAI_COMPATIBLE',
      model: 'fake-model',
      baseUrl: openai.url,
      apiKeySecret: 'local-llm-key',
    });
    await configureModel(ws.adminToken, {
      name: 'cloud',
      provider: 'OPENAI',
      model: 'fake-model-mini',
      baseUrl: openai.url,
      apiKeySecret: 'openai-key',
    });

    const viaCompatible = await (await promptAgent(ws, { defaultModel: 'local' })).ask();
    const viaOpenAi = await (await promptAgent(ws, { defaultModel: 'cloud' })).ask();

    expect([viaCompatible.status, viaOpenAi.status]).to.deep.equal([200, 200]);
    expect(openai.requests.map((q) => [q.body.model, q.headers.authorization])).to.deep.equal([
      ['fake-model', `Bearer ${compatibleKey}`],
      ['fake-model-mini', `Bearer ${openaiKey}`],
    ]);
  });

  it('a model with its own base URL and no key secret is called without a key (a keyless local server)', async () => {
    const ws = await newWorkspace();
    await configureModel(ws.adminToken, {
      name: 'cloud',
      provider: 'OPENAI',
      model: 'fake-model',
      baseUrl: openai.url,
    });
    await configureModel(ws.adminToken, {
      name: 'claude',
      provider: 'ANTHROPIC',
      model: 'claude-haiku-4-5',
      baseUrl: anthropic.url,
    });
    openai.enqueue({ text: 'local answer' });

    const viaOpenAi = await (await promptAgent(ws, { defaultModel: 'cloud' })).ask();
    const viaAnthropic = await (await promptAgent(ws, { defaultModel: 'claude' })).ask();

    expect(viaOpenAi.status).to.equal(200);
    expect(openai.requests.map((q) => q.headers.authorization)).to.deep.equal(['Bearer not-needed']);
    // The local Messages API server, like Anthropic's, refuses a call without a key (a 502 here); it was sent none.
    expect(viaAnthropic.status).to.not.equal(200);
    expect(anthropic.requests.map((q) => q.headers['x-api-key'] ?? '')).to.deep.equal(['']);
  });

  it('a provider model without a base URL, a key secret or an environment provider fails the call, saying what to set; nothing is sent', async () => {
    const ws = await newWorkspace();
    await configureModel(ws.adminToken, { name: 'cloud', provider: 'OPENAI', model: 'fake-model' });
    await configureModel(ws.adminToken, { name: 'claude', provider: 'ANTHROPIC', model: 'claude-haiku-4-5' });

    const viaOpenAi = await (await promptAgent(ws, { defaultModel: 'cloud' })).ask();
    const viaAnthropic = await (await promptAgent(ws, { defaultModel: 'claude' })).ask();

    expect(viaOpenAi.status).to.equal(500);
    expect(viaOpenAi.json.error).to.equal(
      "Model 'cloud' (openai) has no API key: set apiKeySecret in configureModel, or start the service with OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)",
    );
    expect(viaAnthropic.status).to.equal(500);
    expect(viaAnthropic.json.error).to.equal(
      "Model 'claude' (anthropic) has no API key: set apiKeySecret in configureModel, or start the service with ANTHROPIC_API_KEY",
    );
    expect(openai.requests).to.have.length(0);
    expect(anthropic.requests).to.have.length(0);
  });

  it('a model whose key secret was deleted fails the call with an error naming the secret and createSecret; nothing is sent', async () => {
    const ws = await newWorkspace();
    await createSecret(ws.adminToken, 'short-lived', 'sk-gone');
    await configureModel(ws.adminToken, {
      name: 'local',
      provider: 'OPENAI_COMPATIBLE',
      model: 'fake-model',
      baseUrl: openai.url,
      apiKeySecret: 'short-lived',
    });
    await gqlOk(ws.adminToken, 'mutation { deleteSecret(name: "short-lived") }');

    const r = await (await promptAgent(ws, { defaultModel: 'local' })).ask();

    expect(r.status).to.equal(500);
    expect(r.json.error).to.equal(
      "Model 'local' names the secret 'short-lived', which does not exist: create it with createSecret",
    );
    expect(openai.requests).to.have.length(0);
  });

  describe('an Anthropic model pointed at a local Messages API server (configureModel baseUrl)', () => {
    let ws: TestWorkspace;
    let apiKey: string;

    before(async () => {
      ws = await newWorkspace();
      apiKey = `sk-ant-${randomBytes(12).toString('hex')}`;
      await createSecret(ws.adminToken, 'anthropic-key', apiKey);
      await configureModel(ws.adminToken, {
        name: 'claude',
        provider: 'ANTHROPIC',
        model: 'claude-haiku-4-5',
        baseUrl: anthropic.url,
        apiKeySecret: 'anthropic-key',
        inputPricePerMillion: 3,
        outputPricePerMillion: 15,
      });
    });

    it("answers with the server's text, priced by the usage it reported; the server sees the key as x-api-key", async () => {
      const { ask } = await promptAgent(ws, { defaultModel: 'claude', instructions: 'You are a support agent.' });
      anthropic.answer('Your parcel ships on Monday.');

      const r = await ask();

      expect(r.status, r.text).to.equal(200);
      expect(r.json.output).to.equal('Your parcel ships on Monday.');
      expect(anthropic.requests).to.have.length(1);
      const [req] = anthropic.requests;
      expect(req!.path).to.equal('/v1/messages');
      expect(req!.headers['x-api-key']).to.equal(apiKey);
      expect(req!.headers.authorization).to.equal(undefined);
      expect(req!.body.model).to.equal('claude-haiku-4-5');
      expect(JSON.stringify(req!.body.system)).to.contain('You are a support agent.');
      const { input_tokens, output_tokens } = req!.usage!;
      expect(r.json.credits).to.be.closeTo((input_tokens * 3 + output_tokens * 15) / 1e6, 1e-12);
    });

    it('streams the text to an event-stream caller as deltas, then done', async () => {
      const { ask } = await promptAgent(ws, { defaultModel: 'claude' });
      anthropic.answer('one two three four');

      const r = await ask({ headers: { accept: 'text/event-stream' } });

      expect(r.status).to.equal(200);
      const frames = sseFrames(r.text);
      const deltas = frames.filter((f) => f.event === 'delta').map((f) => f.data.text as string);
      expect(deltas.length).to.be.greaterThan(1);
      expect(deltas.join('')).to.equal('one two three four');
      expect(frames.at(-1)!.event).to.equal('done');
      expect(frames.at(-1)!.data.output).to.equal('one two three four');
      expect(anthropic.requests.map((q) => [q.body.stream, q.headers['x-api-key']])).to.deep.equal([[true, apiKey]]);
    });
  });
});
