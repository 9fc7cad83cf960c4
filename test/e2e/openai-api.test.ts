import { expect } from 'chai';
import http from 'node:http';
import OpenAI from 'openai';
import { listenOnLoopback } from '../helpers/local-server.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';

// The OpenAI-compatible API as its users reach it: the official `openai` npm client with `baseURL`
// set to an agent's URL (`/agents/{id}/v1`) and to the workspace's (`/v1`), against the service
// started in the test process (embedded database, or PostgreSQL with TEST_DATABASE_URL), the model
// played by the local OpenAI-compatible test server.

const ADMIN_TOKEN = 'openai-e2e-admin-token-0123456789';

describe('e2e: the OpenAI-compatible API with the official openai client', function () {
  this.timeout(120_000);
  let svc: E2eService;
  let agent: string;
  let key: string;
  let wsKey: string;
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);
  const client = (baseURL: string, apiKey: string, opts: Partial<ConstructorParameters<typeof OpenAI>[0]> = {}) =>
    new OpenAI({ baseURL, apiKey, maxRetries: 0, ...opts });
  const agentUrl = (id: string) => `${svc.url}/agents/${id}/v1`;

  async function newAgent(
    name: string,
    input: Record<string, unknown> = {},
    openai = true,
  ): Promise<{ id: string; key: string }> {
    const id = (
      await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
        i: { name, instructions: 'You are the shop assistant.', defaultModel: 'fake-model', ...input },
      })
    ).createAgent.id;
    if (openai)
      await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: OPENAI, enabled: true) { id } }', { a: id });
    const k = (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key } }', { a: id }))
      .createAgentApiKey.key;
    return { id, key: k };
  }

  async function activity(agentId: string): Promise<any[]> {
    await svc.service.services.activityLog.flush();
    const d = await gql(
      'query($a: ID!) { agent(id: $a) { activity(first: 50) { nodes { surface entry method kind status credits runId error response requestBody requestHeaders } } } }',
      { a: agentId },
    );
    return d.agent.activity.nodes;
  }

  before(async () => {
    svc = await startE2eService('openai_e2e', { adminToken: ADMIN_TOKEN });
    ({ id: agent, key } = await newAgent('Shop', { allowWorkspaceKeys: true }));
    wsKey = (await gql('mutation { createWorkspaceApiKey(name: "openai clients") { key } }')).createWorkspaceApiKey.key;
  });

  after(async () => {
    await svc?.stop();
  });

  beforeEach(() => svc.fake.reset());

  it('answers a chat completion: the agent instructions first, then the client system message, usage and credits', async () => {
    svc.fake.enqueue({ text: 'We open at nine.', usage: { prompt: 12, completion: 4 } });
    const c = await client(agentUrl(agent), key).chat.completions.create({
      model: agent,
      messages: [
        { role: 'system', content: 'Answer in one sentence.' },
        { role: 'user', content: 'When do you open?' },
      ],
      temperature: 0.2,
      max_tokens: 50,
    });
    expect(c.object).to.equal('chat.completion');
    expect(c.choices[0]!.message.content).to.equal('We open at nine.');
    expect(c.choices[0]!.finish_reason).to.equal('stop');
    expect(c.usage).to.include({ prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 });
    expect((c as any).run_id).to.match(/^run_/);
    expect((c as any).credits).to.equal(0);
    const sent = svc.fake.requests[0]!.body;
    expect(sent.messages![0]).to.deep.include({ role: 'system' });
    expect(sent.messages![0]!.content).to.equal('You are the shop assistant.\n\nAnswer in one sentence.');
    expect(sent.temperature).to.equal(0.2);
    expect(sent.max_tokens).to.equal(50);
  });

  it('streams a chat completion in the OpenAI chunk framing, with the usage chunk when asked for', async () => {
    svc.fake.enqueue({ text: 'One two three four' });
    const stream = await client(agentUrl(agent), key).chat.completions.create({
      model: agent,
      messages: [{ role: 'user', content: 'count' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const chunks: any[] = [];
    for await (const ch of stream) {
      chunks.push(ch);
      text += ch.choices[0]?.delta.content ?? '';
    }
    expect(text).to.equal('One two three four');
    expect(chunks[0].choices[0].delta.role).to.equal('assistant');
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).to.be.greaterThan(1);
    const last = chunks[chunks.length - 1];
    expect(last.choices).to.deep.equal([]);
    expect(last.usage.total_tokens).to.be.greaterThan(0);
    expect(chunks[chunks.length - 2].choices[0].finish_reason).to.equal('stop');
  });

  it('runs a two-step client tool call: the model asks for the tool, the client answers, the final text arrives', async () => {
    const tools: OpenAI.Chat.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'The weather in a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ];
    const api = client(agentUrl(agent), key);
    svc.fake.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });
    const first = await api.chat.completions.create({
      model: agent,
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools,
    });
    expect(first.choices[0]!.finish_reason).to.equal('tool_calls');
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).to.equal('get_weather');
    expect(JSON.parse(call.function.arguments)).to.deep.equal({ city: 'Oslo' });
    // The model saw the client's tool, and made one call only: the run stopped at it.
    expect(svc.fake.requests).to.have.length(1);
    expect(JSON.stringify(svc.fake.requests[0]!.body.tools)).to.include('get_weather');

    svc.fake.enqueue({ text: 'It is 4 degrees in Oslo.' });
    const second = await api.chat.completions.create({
      model: agent,
      tools,
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: '4 degrees, cloudy' },
      ],
    });
    expect(second.choices[0]!.message.content).to.equal('It is 4 degrees in Oslo.');
    const sent = svc.fake.requests[1]!.body.messages!;
    const toolResult = sent.find((m) => m.role === 'tool')!;
    expect(toolResult.tool_call_id).to.equal(call.id);
    expect(JSON.stringify(toolResult.content)).to.include('4 degrees, cloudy');
    expect(sent.find((m) => m.role === 'assistant')!.tool_calls![0]!.function.name).to.equal('get_weather');
  });

  it('streams a client tool call as tool_calls chunks with finish_reason tool_calls', async () => {
    svc.fake.enqueue({ toolCalls: [{ name: 'lookup', arguments: { sku: 'A-1' } }] });
    const stream = await client(agentUrl(agent), key).chat.completions.create({
      model: agent,
      stream: true,
      messages: [{ role: 'user', content: 'Find A-1' }],
      tools: [
        {
          type: 'function',
          function: { name: 'lookup', parameters: { type: 'object', properties: { sku: { type: 'string' } } } },
        },
      ],
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const ch of stream) chunks.push(ch);
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls).to.have.length(1);
    expect(calls[0]).to.deep.include({ index: 0, type: 'function' });
    expect(calls[0]!.function).to.deep.equal({ name: 'lookup', arguments: '{"sku":"A-1"}' });
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).to.deep.equal(['tool_calls']);
  });

  it('lists the agent on its own URL, and on the workspace URL exactly the agents the workspace key may use', async () => {
    const own = await client(agentUrl(agent), key).models.list();
    expect(own.data.map((m) => m.id)).to.deep.equal([agent]);
    const raw = (await (
      await fetch(`${agentUrl(agent)}/models`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as any;
    expect(raw.object).to.equal('list');
    expect(raw.data[0]).to.deep.include({ id: agent, object: 'model', name: 'Shop', description: '' });
    expect(raw.data[0].owned_by).to.match(/^ws/);
    expect(Math.abs(raw.data[0].created - Date.now() / 1000)).to.be.lessThan(600);
    const rawWs = (await (
      await fetch(`${svc.url}/v1/models`, { headers: { authorization: `Bearer ${wsKey}` } })
    ).json()) as any;
    expect(rawWs.object).to.equal('list');

    const other = await newAgent('Other', { allowWorkspaceKeys: true });
    await newAgent('No workspace keys', { allowWorkspaceKeys: false });
    await newAgent('Surface off', { allowWorkspaceKeys: true }, false);
    const listed = await client(`${svc.url}/v1`, wsKey).models.list();
    expect(listed.data.map((m) => m.id).sort()).to.deep.equal([agent, other.id].sort());
    expect((listed.data.find((m) => m.id === agent) as any).name).to.equal('Shop');

    // `model` picks the agent.
    svc.fake.enqueue({ text: 'from the other agent' });
    const c = await client(`${svc.url}/v1`, wsKey).chat.completions.create({
      model: other.id,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(c.choices[0]!.message.content).to.equal('from the other agent');
    expect(c.model).to.equal(other.id);
  });

  it('keeps a Responses conversation with previous_response_id, reads it back and deletes it', async () => {
    const api = client(agentUrl(agent), key);
    svc.fake.enqueue({ text: 'Nice to meet you, Ada.' });
    const first = await api.responses.create({ model: agent, input: 'My name is Ada.', instructions: 'Be brief.' });
    expect(first.status).to.equal('completed');
    expect(first.output_text).to.equal('Nice to meet you, Ada.');
    expect(first.id).to.match(/^resp_/);

    svc.fake.enqueue({ text: 'Your name is Ada.' });
    const second = await api.responses.create({
      model: agent,
      input: 'What is my name?',
      previous_response_id: first.id,
    });
    expect(second.output_text).to.equal('Your name is Ada.');
    const sent = svc.fake.requests[1]!.body.messages!.map((m) => `${m.role}: ${JSON.stringify(m.content)}`).join('\n');
    expect(sent).to.include('My name is Ada.');
    expect(sent).to.include('Nice to meet you, Ada.');
    expect(sent).to.include('What is my name?');
    // Instructions apply to their own response only.
    expect(sent).to.not.include('Be brief.');

    const read = await api.responses.retrieve(second.id);
    expect(read.id).to.equal(second.id);
    expect(read.previous_response_id).to.equal(first.id);

    // Another agent's key does not see it.
    const other = await newAgent('Stranger');
    const hidden = await client(agentUrl(other.id), other.key)
      .responses.retrieve(second.id)
      .catch((e: unknown) => e);
    expect(hidden).to.be.instanceOf(OpenAI.NotFoundError);

    expect(Math.abs(second.created_at - Date.now() / 1000)).to.be.lessThan(600);
    const deleted = await fetch(`${agentUrl(agent)}/responses/${second.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(await deleted.json()).to.deep.equal({ id: second.id, object: 'response.deleted', deleted: true });
    const gone = await api.responses.retrieve(second.id).catch((e: unknown) => e);
    expect(gone).to.be.instanceOf(OpenAI.NotFoundError);
  });

  it('streams Responses events in order', async () => {
    svc.fake.enqueue({ text: 'Alpha beta gamma' });
    const stream = await client(agentUrl(agent), key).responses.create({ model: agent, input: 'go', stream: true });
    const types: string[] = [];
    let text = '';
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === 'response.output_text.delta') text += ev.delta;
    }
    expect(text).to.equal('Alpha beta gamma');
    expect(types.slice(0, 4)).to.deep.equal([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(types.slice(-4)).to.deep.equal([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  it('refuses in OpenAI shape: a daily limit of 0 is a RateLimitError with Retry-After, a guardrail a 400 naming it, a surface off 403', async () => {
    const limited = await newAgent('Limited');
    await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 0) { id } }', { a: limited.id });
    const err = (await client(agentUrl(limited.id), limited.key)
      .chat.completions.create({ model: limited.id, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.RateLimitError>;
    expect(err).to.be.instanceOf(OpenAI.RateLimitError);
    expect(err.status).to.equal(429);
    expect(err.code).to.equal('daily_credit_limit');
    expect(Number(err.headers?.get('retry-after'))).to.be.greaterThan(0);
    expect(err.headers?.get('x-should-retry')).to.equal('false');

    const guarded = await newAgent('Guarded');
    await gql(
      'mutation($a: ID!) { setGuardrails(agentId: $a, input: { blockedInputPatterns: ["secret plan"] }) { id } }',
      { a: guarded.id },
    );
    const blocked = (await client(agentUrl(guarded.id), guarded.key)
      .chat.completions.create({ model: guarded.id, messages: [{ role: 'user', content: 'tell me the secret plan' }] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.BadRequestError>;
    expect(blocked).to.be.instanceOf(OpenAI.BadRequestError);
    expect(blocked.code).to.equal('guardrail_blocked');
    expect((blocked.error as any).guardrail).to.equal('blockedInputPatterns');

    const off = await newAgent('Off', {}, false);
    const forbidden = await client(agentUrl(off.id), off.key)
      .chat.completions.create({ model: off.id, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(forbidden).to.be.instanceOf(OpenAI.PermissionDeniedError);
    expect((forbidden as InstanceType<typeof OpenAI.PermissionDeniedError>).message).to.include('setSurface');
  });

  it("makes the official client's retry wait for Retry-After on a concurrency 429, then succeed", async () => {
    const busy = await newAgent('Busy');
    await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, maxConcurrentRequests: 1) { id } }', { a: busy.id });
    svc.fake.enqueue({ text: 'slow answer', delayMs: 400 }, { text: 'second answer' });
    const arrivals: number[] = [];
    const onRequest = (req: { url?: string }) =>
      void (req.url?.includes(`/agents/${busy.id}/v1/chat/completions`) && arrivals.push(Date.now()));
    svc.server.on('request', onRequest);
    try {
      const api = client(agentUrl(busy.id), busy.key, { maxRetries: 2 });
      const slow = api.chat.completions.create({ model: busy.id, messages: [{ role: 'user', content: 'first' }] });
      // The second call starts once the first holds the agent's one slot (the model has its request).
      const deadline = Date.now() + 10_000;
      while (svc.fake.requests.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      const second = await api.chat.completions.create({
        model: busy.id,
        messages: [{ role: 'user', content: 'second' }],
      });
      expect(second.choices[0]!.message.content).to.equal('second answer');
      expect((await slow).choices[0]!.message.content).to.equal('slow answer');
    } finally {
      svc.server.off('request', onRequest);
    }
    // The first call, the refused try, and its retry a Retry-After (1 s) later.
    expect(arrivals).to.have.length(3);
    expect(arrivals[2]! - arrivals[1]!).to.be.at.least(950);
    const refused = (await activity(busy.id)).filter((e) => e.status === 429);
    expect(refused).to.have.length(1);
    expect(refused[0].error).to.match(/already handling 1 request/);
  });

  it('continues a stored response on a second instance (PostgreSQL)', async function () {
    if (!process.env.TEST_DATABASE_URL) this.skip();
    const other = await svc.another();
    svc.fake.enqueue({ text: 'Noted: the order is 42.' }, { text: 'Your order is 42.' });
    const first = await client(agentUrl(agent), key).responses.create({ model: agent, input: 'My order is 42.' });
    const second = await client(`${other.url}/agents/${agent}/v1`, key).responses.create({
      model: agent,
      input: 'Which order?',
      previous_response_id: first.id,
    });
    expect(second.output_text).to.equal('Your order is 42.');
    expect(JSON.stringify(svc.fake.requests[1]!.body.messages)).to.include('Noted: the order is 42.');
  });

  it('passes images, the answer format and the stop sequences to a model that takes images, and charges its credits', async () => {
    await gql('mutation($i: ConfigureModelInput!) { configureModel(input: $i) { id } }', {
      i: {
        name: 'vision',
        provider: 'OPENAI_COMPATIBLE',
        model: 'fake-model',
        baseUrl: svc.fake.url,
        acceptsImages: true,
        inputPricePerMillion: 1_000_000,
        outputPricePerMillion: 2_000_000,
      },
    });
    const seeing = await newAgent('Seeing', { defaultModel: 'vision' });
    svc.fake.enqueue({ text: '{"animal":"cat"}', usage: { prompt: 3, completion: 2 } });
    const c = await client(agentUrl(seeing.id), seeing.key).chat.completions.create({
      model: seeing.id,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What animal?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'animal',
          schema: { type: 'object', properties: { animal: { type: 'string' } }, required: ['animal'] },
        },
      },
      stop: ['END'],
    });
    expect(c.choices[0]!.message.content).to.equal('{"animal":"cat"}');
    // 3 input tokens at 1 credit each, 2 output tokens at 2 each.
    expect((c as any).credits).to.equal(7);
    const sent = svc.fake.requests[0]!.body;
    const user = sent.messages!.find((m) => m.role === 'user')!;
    expect(JSON.stringify(user.content)).to.include('data:image/png;base64,iVBORw0KGgo=');
    expect(JSON.stringify(sent.response_format)).to.include('json_');
    expect(sent.stop).to.deep.equal(['END']);

    // An image by URL goes to the provider as given: the service never fetches it.
    let fetched = 0;
    const images = http.createServer((_req, res) => {
      fetched++;
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from('89504e47', 'hex'));
    });
    const port = await listenOnLoopback(images);
    try {
      const url = `http://127.0.0.1:${port}/cat.png`;
      svc.fake.enqueue({ text: 'a cat' });
      await client(agentUrl(seeing.id), seeing.key).chat.completions.create({
        model: seeing.id,
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }],
      });
      expect(JSON.stringify(svc.fake.requests[1]!.body.messages)).to.include(url);
      expect(fetched).to.equal(0);
    } finally {
      images.close();
    }
  });

  it('takes a workspace key and X-Agent-Access-Key on the agent URL, and store: false keeps nothing', async () => {
    svc.fake.enqueue({ text: 'by workspace key' }, { text: 'by header' });
    const byWorkspaceKey = await client(agentUrl(agent), wsKey).responses.create({
      model: agent,
      input: 'a',
      store: false,
    });
    expect(byWorkspaceKey.output_text).to.equal('by workspace key');
    expect(
      await client(agentUrl(agent), key)
        .responses.retrieve(byWorkspaceKey.id)
        .catch((e: unknown) => e),
    ).to.be.instanceOf(OpenAI.NotFoundError);
    const r = await fetch(`${agentUrl(agent)}/chat/completions`, {
      method: 'POST',
      headers: { 'x-agent-access-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'b' }] }),
    });
    expect(r.status).to.equal(200);
    expect(((await r.json()) as any).choices[0].message.content).to.equal('by header');
  });

  it('answers a failed run with a 500 naming the run, before a stream and inside one', async () => {
    const api = client(agentUrl(agent), key);
    svc.fake.enqueue({ status: 500 }, { status: 500 });
    const failed = (await api.chat.completions
      .create({ model: agent, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.InternalServerError>;
    expect(failed).to.be.instanceOf(OpenAI.InternalServerError);
    expect(failed.code).to.equal('run_failed');
    expect((failed.error as any).run_id).to.match(/^run_/);
    expect(failed.headers?.get('x-run-id')).to.equal((failed.error as any).run_id);

    // A model that breaks off after its first words: the stream ends with an error record, which the client raises.
    svc.fake.reset();
    svc.fake.enqueue({ text: 'one two three four five six', failAfterChunks: 2 });
    const stream = await api.chat.completions.create({
      model: agent,
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    });
    let text = '';
    const broke = await (async () => {
      for await (const ch of stream) text += ch.choices[0]?.delta.content ?? '';
    })().catch((e: unknown) => e);
    expect(broke).to.be.instanceOf(OpenAI.APIError);
    expect(text.length).to.be.greaterThan(0);
  });

  it('refuses to continue a conversation past 2,000,000 characters, and deletes responses after 30 days', async () => {
    const api = client(agentUrl(agent), key);
    const big = 'word '.repeat(190_000); // 950,000 characters: under the 1 MiB body bound
    svc.fake.enqueue({ text: 'noted' }, { text: 'noted again' });
    const first = await api.responses.create({ model: agent, input: big });
    const second = await api.responses.create({ model: agent, input: big, previous_response_id: first.id });
    const third = (await api.responses
      .create({ model: agent, input: big, previous_response_id: second.id })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.BadRequestError>;
    expect(third).to.be.instanceOf(OpenAI.BadRequestError);
    expect(third.param).to.equal('previous_response_id');
    expect(third.message).to.include('2000000 characters');
    expect(svc.fake.requests).to.have.length(2);

    // Housekeeping: a response 31 days old goes, today's stays.
    await svc.service
      .db('openai_responses')
      .where({ id: first.id })
      .update({ created_at: new Date(Date.now() - 31 * 86_400_000) });
    expect(await svc.service.services.openai.pruneResponses()).to.equal(1);
    expect(await api.responses.retrieve(first.id).catch((e: unknown) => e)).to.be.instanceOf(OpenAI.NotFoundError);
    expect((await api.responses.retrieve(second.id)).id).to.equal(second.id);
  });

  it('stores a response whose text holds U+0000 and a lone surrogate, as U+FFFD', async () => {
    svc.fake.enqueue({ text: 'odd \u0000 answer \ud800' });
    const api = client(agentUrl(agent), key);
    const r = await api.responses.create({ model: agent, input: 'odd \u0000 input \udc00' });
    expect(r.status).to.equal('completed');
    const read = await api.responses.retrieve(r.id);
    expect(read.output_text).to.equal('odd \ufffd answer \ufffd');
  });

  it('names the parameter it refuses', async () => {
    const api = client(agentUrl(agent), key);
    const n = (await api.chat.completions
      .create({ model: agent, n: 2, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.BadRequestError>;
    expect(n).to.be.instanceOf(OpenAI.BadRequestError);
    expect(n.param).to.equal('n');
    const image = (await api.chat.completions
      .create({
        model: agent,
        messages: [
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://img.example.test/a.png' } }] },
        ],
      })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.BadRequestError>;
    expect(image.param).to.equal('messages[0].content[0].image_url');
    expect(image.message).to.include('does not take images');
  });

  it('answers hostile input with a 4xx in OpenAI shape and stores nothing, on both URLs', async () => {
    const raw = (url: string, body: string, headers: Record<string, string> = {}) =>
      fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
        body,
      });
    const stored = async () => Number((await svc.service.db('openai_responses').count({ n: '*' }))[0]!.n);
    const before = await stored();
    const base = agentUrl(agent);
    const cases: [string, Promise<Response>, number, string | null][] = [
      ['malformed JSON', raw(`${base}/chat/completions`, '{"messages": ['), 400, null],
      [
        'not JSON',
        raw(`${base}/responses`, 'input=hi', { 'content-type': 'application/x-www-form-urlencoded' }),
        415,
        null,
      ],
      ['a JSON array', raw(`${base}/chat/completions`, '[1,2]'), 400, null],
      ['no body', raw(`${base}/responses`, ''), 400, null],
      [
        'a role that is no role',
        raw(`${base}/chat/completions`, JSON.stringify({ messages: [{ role: 'root', content: 'x' }] })),
        400,
        'messages[0].role',
      ],
      [
        'an item that is no item',
        raw(`${base}/responses`, JSON.stringify({ input: [{ type: 'computer_call' }] })),
        400,
        'input[0].type',
      ],
      [
        'a body over 1 MiB',
        raw(
          `${base}/chat/completions`,
          JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(1_100_000) }] }),
        ),
        413,
        null,
      ],
      [
        'deep nesting',
        raw(`${base}/responses`, `{"input":"a","metadata":${'['.repeat(200)}${']'.repeat(200)}}`),
        400,
        null,
      ],
      [
        'a previous response that does not exist',
        raw(`${base}/responses`, JSON.stringify({ input: 'a', previous_response_id: 'resp_nope' })),
        404,
        'previous_response_id',
      ],
      [
        'a path this API does not serve',
        fetch(`${base}/embeddings`, { method: 'POST', headers: { authorization: `Bearer ${key}` } }),
        404,
        null,
      ],
      [
        'an agent key on the workspace URL',
        raw(
          `${svc.url}/v1/chat/completions`,
          JSON.stringify({ model: agent, messages: [{ role: 'user', content: 'x' }] }),
        ),
        401,
        null,
      ],
      [
        'a model that is no string',
        raw(`${svc.url}/v1/chat/completions`, JSON.stringify({ model: 5, messages: [] }), {
          authorization: `Bearer ${wsKey}`,
        }),
        400,
        'model',
      ],
      [
        'a model name too long to be an id',
        raw(
          `${svc.url}/v1/chat/completions`,
          JSON.stringify({ model: agent + 'x'.repeat(200), messages: [{ role: 'user', content: 'x' }] }),
          { authorization: `Bearer ${wsKey}` },
        ),
        404,
        null,
      ],
      [
        'a previous response id that is no string',
        raw(`${base}/responses`, JSON.stringify({ input: 'a', previous_response_id: 5 })),
        400,
        'previous_response_id',
      ],
      [
        'no model on the workspace URL',
        raw(`${svc.url}/v1/chat/completions`, JSON.stringify({ messages: [] }), { authorization: `Bearer ${wsKey}` }),
        400,
        'model',
      ],
      [
        'an unknown model on the workspace URL',
        raw(`${svc.url}/v1/responses`, JSON.stringify({ model: 'agt_nope', input: 'x' }), {
          authorization: `Bearer ${wsKey}`,
        }),
        404,
        null,
      ],
      ['no key', fetch(`${base}/models`), 401, null],
    ];
    for (const [what, pending, status, param] of cases) {
      const r = await pending;
      const body = (await r.json()) as { error: Record<string, unknown> };
      expect(r.status, what).to.equal(status);
      expect(Object.keys(body), what).to.deep.equal(['error']);
      expect(body.error, what).to.include.keys('message', 'type', 'code', 'param');
      expect(body.error.message, what).to.be.a('string').and.not.equal('');
      if (param) expect(body.error.param, what).to.equal(param);
    }
    expect(await stored()).to.equal(before);
  });

  it('on the workspace URL, an agent without workspace keys is unknown and one with the surface off is 403', async () => {
    const closed = await newAgent('Closed', { allowWorkspaceKeys: false });
    const off = await newAgent('Dark', { allowWorkspaceKeys: true }, false);
    const api = client(`${svc.url}/v1`, wsKey);
    const unknown = await api.chat.completions
      .create({ model: closed.id, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(unknown).to.be.instanceOf(OpenAI.NotFoundError);
    const forbidden = await api.responses.create({ model: off.id, input: 'x' }).catch((e: unknown) => e);
    expect(forbidden).to.be.instanceOf(OpenAI.PermissionDeniedError);
    // A response of an agent the key may not use is not there for it.
    svc.fake.enqueue({ text: 'private' });
    const own = await client(agentUrl(closed.id), closed.key).responses.create({ model: closed.id, input: 'x' });
    expect(await api.responses.retrieve(own.id).catch((e: unknown) => e)).to.be.instanceOf(OpenAI.NotFoundError);
    expect(await api.responses.delete(own.id).catch((e: unknown) => e)).to.be.instanceOf(OpenAI.NotFoundError);
    expect((await client(agentUrl(closed.id), closed.key).responses.retrieve(own.id)).id).to.equal(own.id);
  });

  it('writes an activity entry per call: surface OPENAI, its entry, body, answer and credits, and no key', async () => {
    svc.fake.enqueue({ text: 'logged answer' });
    const own = await newAgent('Logged');
    await client(agentUrl(own.id), own.key).chat.completions.create({
      model: own.id,
      messages: [{ role: 'user', content: 'log me' }],
    });
    svc.fake.enqueue({ text: 'logged response' });
    await client(agentUrl(own.id), own.key).responses.create({ model: own.id, input: 'log me too' });
    const stored = await client(agentUrl(own.id), own.key).responses.create({ model: own.id, input: 'keep me' });
    await client(agentUrl(own.id), own.key).responses.retrieve(stored.id);
    await client(agentUrl(own.id), own.key).responses.delete(stored.id);
    await client(agentUrl(own.id), own.key).models.list();
    const entries = await activity(own.id);
    expect(entries.map((e) => [e.entry, e.method]).reverse()).to.deep.equal([
      ['chat.completions', 'POST'],
      ['responses', 'POST'],
      ['responses', 'POST'],
      ['responses', 'GET'],
      ['responses', 'DELETE'],
      ['models', 'GET'],
    ]);
    // Each call is one entry: the runs write none of their own.
    expect(entries.every((e) => e.kind === 'REQUEST')).to.equal(true);
    const chat = entries.find((e) => e.entry === 'chat.completions');
    const resp = entries.find((e) => e.entry === 'responses' && JSON.stringify(e.requestBody).includes('log me too'));
    expect(chat).to.include({ surface: 'OPENAI', status: 200 });
    expect(JSON.stringify(chat.requestBody)).to.include('log me');
    expect(JSON.stringify(chat.response)).to.include('logged answer');
    expect(resp).to.include({ surface: 'OPENAI', status: 200 });
    expect(JSON.stringify(resp.response)).to.include('logged response');
    expect(JSON.stringify(entries)).to.not.include(own.key);
  });
});
