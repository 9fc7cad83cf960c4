import { expect } from 'chai';
import { APICallError, generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { startOpenAiServer, type FakeOpenAi } from '../helpers/openai-server.js';

describe('fake OpenAI server (driven through the AI SDK)', () => {
  let server: FakeOpenAi;
  // includeUsage makes openai-compatible send stream_options.include_usage (it does not by default).
  const compatible = (includeUsage = true) =>
    createOpenAICompatible({ name: 'fake', baseURL: server.url, apiKey: 'test-key', includeUsage });

  before(async () => {
    server = await startOpenAiServer();
  });
  afterEach(() => server.reset());
  after(() => server.close());

  it('generateText gets the scripted text and usage; the request carries model, messages and auth', async () => {
    server.enqueue({ text: 'Hello there, friend', usage: { prompt: 11, completion: 3 } });
    const result = await generateText({ model: compatible()('my-model-7'), system: 'Be brief.', prompt: 'Say hi' });

    expect(result.text).to.equal('Hello there, friend');
    expect(result.finishReason).to.equal('stop');
    expect(result.usage.inputTokens).to.equal(11);
    expect(result.usage.outputTokens).to.equal(3);
    expect(result.response.modelId).to.equal('my-model-7');
    expect(server.requests).to.have.length(1);
    const [req] = server.requests;
    expect(req!.method).to.equal('POST');
    expect(req!.path).to.equal('/v1/chat/completions');
    expect(req!.headers.authorization).to.equal('Bearer test-key');
    expect(req!.body.model).to.equal('my-model-7');
    expect(req!.body.stream).to.not.equal(true);
    expect(req!.body.messages).to.deep.equal([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Say hi' },
    ]);
  });

  it('answers an empty script with an echo of the last user message and word-count usage', async () => {
    const result = await generateText({ model: compatible()('m'), prompt: 'ping one two' });
    expect(result.text).to.equal('echo: ping one two');
    expect(result.usage.inputTokens).to.equal(3);
    expect(result.usage.outputTokens).to.equal(4);
    expect(server.pending()).to.equal(0);
  });

  it('streamText yields the text as several ordered deltas, then the usage', async () => {
    server.enqueue({ text: 'one two three four', chunkDelayMs: 5 });
    const result = streamText({ model: compatible()('m'), prompt: 'count please' });
    const deltas: string[] = [];
    for await (const d of result.textStream) deltas.push(d);

    expect(deltas).to.deep.equal(['one ', 'two ', 'three ', 'four']);
    expect(await result.finishReason).to.equal('stop');
    expect(await result.usage).to.include({ inputTokens: 2, outputTokens: 4, totalTokens: 6 });
    expect(server.requests[0]!.body).to.include({ stream: true });
    expect(server.requests[0]!.body.stream_options).to.deep.equal({ include_usage: true });
  });

  it('sends no usage chunk when the client did not ask for it (openai-compatible without includeUsage)', async () => {
    server.enqueue({ text: 'no usage here' });
    const result = streamText({ model: compatible(false)('m'), prompt: 'x' });
    expect(await result.text).to.equal('no usage here');
    expect((await result.usage).inputTokens).to.equal(undefined);
    expect(server.requests[0]!.body.stream_options).to.equal(undefined);
  });

  it('runs a tool loop: the tool executes with the arguments, the second request carries the result', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'weather', arguments: { city: 'Paris', days: 2 } }] },
      { text: 'Sunny in Paris.' },
    );
    const calls: unknown[] = [];
    const weather = tool({
      description: 'Weather forecast',
      inputSchema: jsonSchema<{ city: string; days: number }>({
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'number' } },
        required: ['city', 'days'],
      }),
      execute: async (input) => {
        calls.push(input);
        return { forecast: 'sunny' };
      },
    });
    const result = await generateText({
      model: compatible()('m'),
      prompt: 'Weather?',
      tools: { weather },
      stopWhen: stepCountIs(3),
    });

    expect(calls).to.deep.equal([{ city: 'Paris', days: 2 }]);
    expect(result.text).to.equal('Sunny in Paris.');
    expect(result.steps).to.have.length(2);
    expect(result.steps[0]!.finishReason).to.equal('tool-calls');
    expect(server.requests).to.have.length(2);
    expect(server.requests[0]!.body.tools).to.have.length(1);
    const second = server.requests[1]!.body.messages!;
    const assistant = second.find((m) => m.role === 'assistant')!;
    const callId = assistant.tool_calls![0]!.id;
    expect(assistant.tool_calls![0]!.function).to.deep.equal({
      name: 'weather',
      arguments: '{"city":"Paris","days":2}',
    });
    const toolMsg = second.find((m) => m.role === 'tool')!;
    expect(toolMsg.tool_call_id).to.equal(callId);
    expect(JSON.parse(toolMsg.content as string)).to.deep.equal({ forecast: 'sunny' });
  });

  it('streams tool calls as deltas that the SDK reassembles', async () => {
    server.enqueue(
      {
        toolCalls: [
          { name: 'add', arguments: { a: 2, b: 3 } },
          { name: 'add', arguments: { a: 10, b: 1 } },
        ],
      },
      { text: 'Results are 5 and 11.' },
    );
    const add = tool({
      inputSchema: jsonSchema<{ a: number; b: number }>({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
      }),
      execute: async ({ a, b }) => a + b,
    });
    const result = streamText({ model: compatible()('m'), prompt: 'add', tools: { add }, stopWhen: stepCountIs(3) });
    expect(await result.text).to.equal('Results are 5 and 11.');
    const steps = await result.steps;
    expect(steps[0]!.toolCalls.map((c) => c.input)).to.deep.equal([
      { a: 2, b: 3 },
      { a: 10, b: 1 },
    ]);
    expect(steps[0]!.toolResults.map((r) => r.output)).to.deep.equal([5, 11]);
    const toolMsgs = server.requests[1]!.body.messages!.filter((m) => m.role === 'tool');
    expect(toolMsgs.map((m) => m.content)).to.deep.equal(['5', '11']);
  });

  it('surfaces a scripted 500 as an APICallError with the status and message', async () => {
    server.enqueue({ status: 500 });
    let caught: unknown;
    try {
      await generateText({ model: compatible()('m'), prompt: 'x', maxRetries: 0 });
    } catch (err) {
      caught = err;
    }
    expect(APICallError.isInstance(caught)).to.equal(true);
    expect((caught as APICallError).statusCode).to.equal(500);
    expect((caught as APICallError).message).to.contain('Scripted failure');
  });

  it('answers a custom error body', async () => {
    server.enqueue({ status: 429, errorBody: { error: { message: 'slow down', type: 'rate_limit' } } });
    const err = await generateText({ model: compatible()('m'), prompt: 'x', maxRetries: 0 }).catch((e: unknown) => e);
    expect((err as APICallError).statusCode).to.equal(429);
    expect((err as APICallError).message).to.equal('slow down');
  });

  it('records an aborted stream and keeps serving', async () => {
    server.enqueue({ text: 'a b c d e f g h i j', chunkDelayMs: 50 });
    const controller = new AbortController();
    const result = streamText({
      model: compatible()('m'),
      prompt: 'x',
      abortSignal: controller.signal,
      onError: () => {},
    });
    const seen: string[] = [];
    try {
      for await (const d of result.textStream) {
        seen.push(d);
        if (seen.length === 2) controller.abort();
      }
    } catch {
      // the SDK may end the stream or throw on abort; either is fine here
    }
    await server.idle();
    expect(seen.length).to.be.lessThan(10);
    expect(server.requests[0]!.aborted).to.equal(true);

    const after = await generateText({ model: compatible()('m'), prompt: 'still alive' });
    expect(after.text).to.equal('echo: still alive');
    expect(server.requests[1]!.aborted).to.equal(undefined);
  });

  it('works with createOpenAI(...).chat() for generateText and streamText', async () => {
    const openai = createOpenAI({ baseURL: server.url, apiKey: 'sk-test' });
    server.enqueue({ text: 'from openai provider' }, { text: 'streamed from openai' });
    const gen = await generateText({ model: openai.chat('gpt-fake'), prompt: 'hi' });
    expect(gen.text).to.equal('from openai provider');
    expect(gen.usage).to.include({ inputTokens: 1, outputTokens: 3 });

    const stream = streamText({ model: openai.chat('gpt-fake'), prompt: 'hi there' });
    expect(await stream.text).to.equal('streamed from openai');
    expect(await stream.usage).to.include({ inputTokens: 2, outputTokens: 3 });
    expect(server.requests.map((r) => r.body.model)).to.deep.equal(['gpt-fake', 'gpt-fake']);
    expect(server.requests[0]!.headers.authorization).to.equal('Bearer sk-test');
  });

  it('lists models and 404s unknown routes', async () => {
    const models = (await (await fetch(`${server.url}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).to.deep.equal(['fake-model', 'fake-model-mini', 'fake-model-large']);
    const missing = await fetch(`${server.url}/embeddings`, { method: 'POST', body: '{}' });
    expect(missing.status).to.equal(404);
    // Model-list reads are kept apart, so that tests counting a run's model calls see only those.
    expect(server.listRequests.map((r) => r.path)).to.deep.equal(['/v1/models']);
    expect(server.requests.map((r) => r.path)).to.deep.equal(['/v1/embeddings']);
  });
});
