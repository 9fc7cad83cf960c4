import { expect } from 'chai';
import { GuardrailBlocked } from '../../src/domain/runtime/guardrails.js';
import type { RunEvent } from '../../src/domain/runtime/run.types.js';
import { createAgent, errorCode, gql, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import type { FakeOpenAi } from '../helpers/openai-server.js';
import {
  configureFakeModel,
  httpInput,
  keyPrincipal,
  loadAgent,
  promptEntry,
  useFakeModelWorkspace,
} from '../helpers/runtime.js';

describe('run pipeline: prompt handlers', function () {
  this.timeout(30_000);
  let fake: FakeOpenAi;
  let ws: TestWorkspace;

  useFakeModelWorkspace(
    (s) => ({ fake, ws } = s),
    (s) => configureFakeModel(s.ws.adminToken, s.fake, { input: 0, output: 0 }, 'other-model'),
  );

  const runs = () => h().service.services.runs;
  /** The pipeline every surface uses: input guardrails are checked there, before admission. */
  const pipeline = () => h().service.services.pipeline;

  it('sends the agent instructions, the entry prompt and the input upstream, and prices the tokens', async () => {
    const agent = await loadAgent(
      await createAgent(ws.adminToken, { instructions: 'You are terse.', defaultModel: 'test-model' }),
    );
    fake.enqueue({ text: 'Order 42 is late.', usage: { prompt: 1000, completion: 500 } });
    const r = await runs().run(
      keyPrincipal(agent),
      agent,
      promptEntry('Summarise the order'),
      httpInput({ orderId: 42 }, { params: { id: '42' } }),
    );
    expect(r.error).to.equal(undefined);
    expect(r.output).to.equal('Order 42 is late.');
    expect(r.usage).to.deep.equal({ inputTokens: 1000, outputTokens: 500 });
    expect(r.credits).to.be.closeTo((1000 * 1 + 500 * 2) / 1e6, 1e-12);
    expect(r.runId).to.match(/^run_/);
    const sent = fake.requests[0]!.body;
    expect(sent.model).to.equal('fake-model');
    expect(sent.messages![0]).to.deep.include({ role: 'system' });
    expect(String(sent.messages![0]!.content)).to.equal('You are terse.\n\nSummarise the order');
    const user = String(sent.messages![1]!.content);
    expect(user).to.contain('"orderId": 42').and.contain('"id": "42"');
  });

  it('a model override on the entry sends that model upstream', async () => {
    await gqlOk(ws.adminToken, `mutation($i: ConfigureModelInput!) { configureModel(input: $i) { id } }`, {
      i: { name: 'big', provider: 'OPENAI_COMPATIBLE', model: 'fake-model-large', baseUrl: fake.url },
    });
    const agent = await loadAgent(await createAgent(ws.adminToken, { defaultModel: 'test-model' }));
    fake.enqueue({ text: 'ok' });
    const r = await runs().run(keyPrincipal(agent), agent, promptEntry('x', 'big'), httpInput('hi'));
    expect(r.model).to.equal('big');
    expect(fake.requests[0]!.body.model).to.equal('fake-model-large');
  });

  it('streams text deltas in order, then the result', async () => {
    const agent = await loadAgent(await createAgent(ws.adminToken, { defaultModel: 'test-model' }));
    fake.enqueue({ text: 'one two three four five', chunkDelayMs: 5 });
    const events: RunEvent[] = [];
    for await (const ev of runs().stream(keyPrincipal(agent), agent, promptEntry('count'), httpInput('go')))
      events.push(ev);
    const deltas = events.filter((e) => e.type === 'delta').map((e) => (e as { text: string }).text);
    expect(deltas.length).to.be.greaterThan(2);
    expect(deltas.join('')).to.equal('one two three four five');
    const done = events.at(-1)!;
    expect(done.type).to.equal('done');
    expect((done as Extract<RunEvent, { type: 'done' }>).result.output).to.equal('one two three four five');
    expect(fake.requests[0]!.body.stream).to.equal(true);
  });

  it('without any model configured, fails with a message naming what to configure', async () => {
    const bare = await newWorkspace();
    const agent = await loadAgent(await createAgent(bare.adminToken));
    const r = await runs().run(keyPrincipal(agent), agent, promptEntry('x'), httpInput('hi'));
    expect(r.output).to.equal(null);
    expect(r.error!.kind).to.equal('configuration');
    expect(r.error!.message)
      .to.match(/No model configured/)
      .and.match(/configureModel/);
    expect(fake.requests).to.have.length(0);
  });

  it('reports a provider failure as a model error, not a crash', async () => {
    const agent = await loadAgent(await createAgent(ws.adminToken, { defaultModel: 'test-model' }));
    fake.enqueue({ status: 500 }, { status: 500 });
    const r = await runs().run(keyPrincipal(agent), agent, promptEntry('x'), httpInput('hi'));
    expect(r.error!.kind).to.equal('model');
    expect(r.error!.message).to.match(/500/);
  });

  it('cancels the model call when the caller aborts', async () => {
    const agent = await loadAgent(await createAgent(ws.adminToken, { defaultModel: 'test-model' }));
    fake.enqueue({ text: 'a b c d e f g h i j k l m n o p', chunkDelayMs: 200 });
    const ac = new AbortController();
    const events: RunEvent[] = [];
    for await (const ev of runs().stream(keyPrincipal(agent), agent, promptEntry('x'), httpInput('hi'), {
      signal: ac.signal,
    })) {
      events.push(ev);
      if (ev.type === 'delta') ac.abort();
    }
    const done = events.at(-1) as Extract<RunEvent, { type: 'done' }>;
    expect(done.result.error!.kind).to.equal('aborted');
    await fake.idle();
    expect(fake.requests[0]!.aborted).to.equal(true);
  });

  describe('Endpoint Management capability', () => {
    it('offers the self-management tools only when the capability is on', async () => {
      const id = await createAgent(ws.adminToken, { defaultModel: 'test-model' });
      fake.enqueue({ text: 'no tools' }, { text: 'tools' });
      let agent = await loadAgent(id);
      await runs().run(keyPrincipal(agent), agent, promptEntry('x'), httpInput('hi'));
      expect(fake.requests[0]!.body.tools ?? []).to.have.length(0);
      await gqlOk(
        ws.adminToken,
        `mutation($id: ID!) { setCapabilities(agentId: $id, input: {endpointManagement: true}) { id } }`,
        { id },
      );
      agent = await loadAgent(id);
      await runs().run(keyPrincipal(agent), agent, promptEntry('x'), httpInput('hi'));
      const names = (fake.requests[1]!.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
      expect(names).to.include.members([
        'list_surfaces',
        'add_http_endpoint',
        'remove_webhook',
        'set_surface',
        'set_cors',
        'expose_document',
      ]);
      for (const forbidden of [
        'create_agent_api_key',
        'set_agent_limits',
        'set_guardrails',
        'set_capabilities',
        'delete_agent',
        'revoke_api_key',
      ]) {
        expect(names).to.not.include(forbidden);
      }
      const add = (fake.requests[1]!.body.tools as { function: { name: string; parameters: any } }[]).find(
        (t) => t.function.name === 'add_http_endpoint',
      )!;
      expect(add.function.parameters.properties).to.have.keys(['input']);
      expect(add.function.parameters.properties.input.properties).to.include.keys([
        'path',
        'methods',
        'handler',
        'modelOverride',
      ]);
      // The arguments mirror the GraphQL inputs: a webhook's body limit can be set by the agent too.
      const addWebhook = (fake.requests[1]!.body.tools as { function: { name: string; parameters: any } }[]).find(
        (t) => t.function.name === 'add_webhook',
      )!;
      expect(addWebhook.function.parameters.properties.input.properties.maxBodyBytes).to.include({ type: 'integer' });
    });

    it('a model calling add_http_endpoint creates an endpoint that exists afterwards', async () => {
      const id = await createAgent(ws.adminToken, { defaultModel: 'test-model' });
      await gqlOk(
        ws.adminToken,
        `mutation($id: ID!) { setCapabilities(agentId: $id, input: {endpointManagement: true}) { id } }`,
        { id },
      );
      const agent = await loadAgent(id);
      fake.enqueue(
        {
          toolCalls: [
            {
              name: 'add_http_endpoint',
              arguments: {
                input: {
                  path: 'tickets/{ticketId}',
                  methods: ['GET', 'POST'],
                  handler: { prompt: 'Look up the ticket' },
                },
              },
            },
          ],
        },
        { text: 'Added the endpoint.' },
      );
      const r = await runs().run(
        keyPrincipal(agent),
        agent,
        promptEntry('Manage yourself'),
        httpInput('Add an endpoint for tickets'),
      );
      expect(r.output).to.equal('Added the endpoint.');
      const d = await gqlOk(
        ws.adminToken,
        `query($id: ID!) { agent(id: $id) { httpEndpoints { path methods handler { prompt } } } }`,
        { id },
      );
      expect(d.agent.httpEndpoints).to.deep.equal([
        { path: 'tickets/{ticketId}', methods: ['GET', 'POST'], handler: { prompt: 'Look up the ticket' } },
      ]);
      const toolMessage = fake.requests[1]!.body.messages!.find((m) => m.role === 'tool')!;
      expect(String(toolMessage.content)).to.contain('tickets/{ticketId}');
    });

    it('cannot reach another agent through its tools: the entry of another agent is not found and stays unchanged', async () => {
      const victim = await createAgent(ws.adminToken);
      const ep = await gqlOk(
        ws.adminToken,
        `mutation($id: ID!) { addHttpEndpoint(agentId: $id, input: {path: "secret", handler: {prompt: "p"}}) { id } }`,
        { id: victim },
      );
      const id = await createAgent(ws.adminToken, { defaultModel: 'test-model' });
      await gqlOk(
        ws.adminToken,
        `mutation($id: ID!) { setCapabilities(agentId: $id, input: {endpointManagement: true}) { id } }`,
        { id },
      );
      const agent = await loadAgent(id);
      fake.enqueue(
        {
          toolCalls: [
            { name: 'update_http_endpoint', arguments: { id: ep.addHttpEndpoint.id, input: { path: 'hijacked' } } },
            { name: 'remove_http_endpoint', arguments: { id: ep.addHttpEndpoint.id } },
          ],
        },
        { text: 'done' },
      );
      await runs().run(keyPrincipal(agent), agent, promptEntry('x'), httpInput('hi'));
      const toolResults = fake.requests[1]!.body.messages!.filter((m) => m.role === 'tool').map((m) =>
        String(m.content),
      );
      expect(toolResults).to.have.length(2);
      for (const t of toolResults) expect(t).to.match(/NOT_FOUND|not found/);
      const d = await gqlOk(ws.adminToken, `query($id: ID!) { agent(id: $id) { httpEndpoints { path } } }`, {
        id: victim,
      });
      expect(d.agent.httpEndpoints).to.deep.equal([{ path: 'secret' }]);
    });

    it('the domain refuses keys, limits, guardrails, capabilities and other agents to the AgentSelf principal even if called directly', async () => {
      const id = await createAgent(ws.adminToken);
      await gqlOk(
        ws.adminToken,
        `mutation($id: ID!) { setCapabilities(agentId: $id, input: {endpointManagement: true}) { id } }`,
        { id },
      );
      const other = await createAgent(ws.adminToken);
      const self = { kind: 'agentSelf', workspaceId: ws.workspaceId, agentId: id } as const;
      const s = h().service.services;
      const refusals: [string, () => Promise<unknown>][] = [
        ['createAgentApiKey', () => s.keys.createAgentApiKey(self, id, 'k')],
        ['setLimits', () => s.agents.setLimits(self, id, { dailyCreditLimit: 1e9 })],
        ['setGuardrails', () => s.agents.setGuardrails(self, id, { maxToolSteps: 100 })],
        ['setCapabilities', () => s.agents.setCapabilities(self, id, { documents: true })],
        ['update', () => s.agents.update(self, id, { name: 'renamed' })],
        ['delete', () => s.agents.delete(self, id)],
        ['other agent surface', () => s.agents.setSurface(self, other, { surface: 'MCP', enabled: false })],
        ['other agent endpoint', () => s.entries.addHttpEndpoint(self, other, { path: 'x', handler: { prompt: 'p' } })],
        ['workspace key', () => s.keys.createWorkspaceApiKey(self, 'k', [])],
        ['secret', () => s.secrets.create(self, { name: 'n', kind: 'GENERIC', value: 'v' })],
      ];
      for (const [name, call] of refusals) {
        const err = await call().then(
          () => null,
          (e: { code?: string }) => e,
        );
        expect(err, name).to.not.equal(null);
        expect(['FORBIDDEN', 'NOT_FOUND'], name).to.include(err!.code);
      }
      // And what it may do:
      const ep = await s.entries.addHttpEndpoint(self, id, { path: 'allowed', handler: { prompt: 'p' } });
      expect(ep.agentId).to.equal(id);
      const surfaced = await s.agents.setSurface(self, id, { surface: 'WEBHOOKS', enabled: false });
      expect(surfaced.surfaces.WEBHOOKS.enabled).to.equal(false);
      // Without the capability the same call is refused.
      await gqlOk(
        ws.adminToken,
        `mutation($id: ID!) { setCapabilities(agentId: $id, input: {endpointManagement: false}) { id } }`,
        { id },
      );
      const refused = await s.entries.addHttpEndpoint(self, id, { path: 'again', handler: { prompt: 'p' } }).then(
        () => null,
        (e: { code?: string }) => e,
      );
      expect(refused!.code).to.equal('FORBIDDEN');
    });
  });

  describe('Documents capability', () => {
    it('lets the model insert and query records of its own database documents', async () => {
      const id = await createAgent(ws.adminToken, { defaultModel: 'test-model' });
      await gqlOk(
        ws.adminToken,
        `mutation($id: ID!) { setCapabilities(agentId: $id, input: {documents: true}) { id } }`,
        { id },
      );
      const doc = await gqlOk(
        ws.adminToken,
        `mutation($id: ID!) { createDocument(agentId: $id, input: {name: "Leads", kind: DATABASE, fields: [{name: "email", type: STRING, required: true}, {name: "score", type: NUMBER}]}) { id } }`,
        { id },
      );
      const docId = doc.createDocument.id;
      const agent = await loadAgent(id);
      fake.enqueue(
        {
          toolCalls: [
            {
              name: 'insert_records',
              arguments: {
                documentId: docId,
                items: [
                  { email: 'a@example.com', score: 3 },
                  { email: 'b@example.com', score: 9 },
                ],
              },
            },
          ],
        },
        { toolCalls: [{ name: 'query_records', arguments: { documentId: docId, filter: { score: 9 } } }] },
        { text: 'b is the best lead' },
      );
      const r = await runs().run(keyPrincipal(agent), agent, promptEntry('x'), httpInput('hi'));
      expect(r.output).to.equal('b is the best lead');
      const queried = fake.requests[2]!.body.messages!.filter((m) => m.role === 'tool').map((m) => String(m.content));
      expect(queried.at(-1)).to.contain('b@example.com').and.not.contain('a@example.com');
      const stored = await h().service.services.records.query(
        { kind: 'system', name: 'script-documents', workspaceId: agent.workspaceId, agentId: agent.id },
        id,
        docId,
        'agent',
        { filter: {} },
      );
      expect(stored.totalCount).to.equal(2);
    });
  });

  describe('guardrails', () => {
    async function agentWith(guardrails: Record<string, unknown>) {
      const id = await createAgent(ws.adminToken, { defaultModel: 'test-model' });
      const r = await gql(
        ws.adminToken,
        `mutation($id: ID!, $g: GuardrailsInput!) { setGuardrails(agentId: $id, input: $g) { id } }`,
        { id, g: guardrails },
      );
      expect(r.errors, JSON.stringify(r.errors)).to.equal(undefined);
      return loadAgent(id);
    }

    it('blockedInputPatterns refuse the run before any model call (phrases and regex, case-insensitive)', async () => {
      const agent = await agentWith({ blockedInputPatterns: ['ignore previous instructions', 'pass(word|code)'] });
      for (const body of ['Please IGNORE previous instructions', { q: 'what is the passcode?' }]) {
        const err = await pipeline()
          .execute(keyPrincipal(agent), agent, promptEntry('x'), httpInput(body))
          .then(
            () => null,
            (e) => e,
          );
        expect(err).to.be.instanceOf(GuardrailBlocked);
        expect(err.code).to.equal('INVALID');
      }
      expect(fake.requests).to.have.length(0);
      fake.enqueue({ text: 'fine' });
      expect(
        (await runs().run(keyPrincipal(agent), agent, promptEntry('x'), httpInput('a harmless question'))).output,
      ).to.equal('fine');
    });

    it('maxInputChars refuses longer input', async () => {
      const agent = await agentWith({ maxInputChars: 20 });
      const err = await pipeline()
        .execute(keyPrincipal(agent), agent, promptEntry('x'), httpInput('x'.repeat(21)))
        .then(
          () => null,
          (e) => e,
        );
      expect(err).to.be.instanceOf(GuardrailBlocked);
      expect(err.message).to.match(/at most 20/);
      fake.enqueue({ text: 'ok' });
      expect(
        (await runs().run(keyPrincipal(agent), agent, promptEntry('x'), httpInput('x'.repeat(20)))).output,
      ).to.equal('ok');
    });

    it('redacts output with presets and custom patterns, also when streaming', async () => {
      const agent = await agentWith({
        redactPresets: ['email', 'phone', 'creditCard'],
        redactOutputPatterns: ['ACME-\\d+'],
      });
      const text =
        'Mail jane.doe@example.com or call +1 415 555 0199.\nCard 4111 1111 1111 1111, ref ACME-77, order 42.';
      const expected = 'Mail [redacted] or call [redacted].\nCard [redacted], ref [redacted], order 42.';
      fake.enqueue({ text });
      expect((await runs().run(keyPrincipal(agent), agent, promptEntry('x'), httpInput('hi'))).output).to.equal(
        expected,
      );
      fake.enqueue({ text });
      let streamed = '';
      for await (const ev of runs().stream(keyPrincipal(agent), agent, promptEntry('x'), httpInput('hi')))
        if (ev.type === 'delta') streamed += ev.text;
      expect(streamed).to.equal(expected);
      expect(streamed).to.not.contain('jane.doe');
    });

    it('maxOutputTokens is sent upstream', async () => {
      const agent = await agentWith({ maxOutputTokens: 64 });
      fake.enqueue({ text: 'short' });
      await runs().run(keyPrincipal(agent), agent, promptEntry('x'), httpInput('hi'));
      expect(fake.requests[0]!.body.max_tokens).to.equal(64);
    });

    it('maxToolSteps bounds the tool loop', async () => {
      const agent = await agentWith({ maxToolSteps: 2 });
      await gqlOk(
        ws.adminToken,
        `mutation($id: ID!) { setCapabilities(agentId: $id, input: {endpointManagement: true}) { id } }`,
        { id: agent.id },
      );
      const fresh = await loadAgent(agent.id);
      const call = { toolCalls: [{ name: 'list_surfaces', arguments: {} }] };
      fake.enqueue(call, call, call, call, call);
      await runs().run(keyPrincipal(fresh), fresh, promptEntry('x'), httpInput('hi'));
      expect(fake.requests).to.have.length(3);
    });

    it('maxCreditsPerRun withholds the output of a run that went over and stops the tool loop', async () => {
      const agent = await agentWith({ maxCreditsPerRun: 0.001 });
      // 1000 input tokens at 1/M + 1000 output at 2/M = 0.003 credits.
      fake.enqueue({ text: 'expensive answer', usage: { prompt: 1000, completion: 1000 } });
      const r = await runs().run(keyPrincipal(agent), agent, promptEntry('x'), httpInput('hi'));
      expect(r.output).to.equal(null);
      expect(r.error!.kind).to.equal('credits');
      expect(r.credits).to.be.closeTo(0.003, 1e-12);

      await gqlOk(
        ws.adminToken,
        `mutation($id: ID!) { setCapabilities(agentId: $id, input: {endpointManagement: true}) { id } }`,
        { id: agent.id },
      );
      const withTools = await loadAgent(agent.id);
      fake.reset();
      const costly = {
        toolCalls: [{ name: 'list_surfaces', arguments: {} }],
        usage: { prompt: 1000, completion: 1000 },
      };
      fake.enqueue(costly, costly, costly);
      await runs().run(keyPrincipal(withTools), withTools, promptEntry('x'), httpInput('hi'));
      expect(fake.requests).to.have.length(1);
    });
  });

  it('GraphQL refuses the same operations to a member of another workspace (parity check)', async () => {
    const other = await newWorkspace();
    const id = await createAgent(ws.adminToken);
    expect(
      errorCode(
        await gql(other.adminToken, `mutation($id: ID!) { setAgentLimits(agentId: $id, dailyCreditLimit: 5) { id } }`, {
          id,
        }),
      ),
    ).to.equal('NOT_FOUND');
  });
});
