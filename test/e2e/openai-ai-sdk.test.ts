import { createOpenAI } from '@ai-sdk/openai';
import { createOpenResponses } from '@ai-sdk/open-responses';
import { generateText, jsonSchema, stepCountIs, streamText, tool, type LanguageModel } from 'ai';
import { expect } from 'chai';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';

// The OpenAI-compatible API with the AI SDK as its client: `@ai-sdk/openai` with `baseURL` set to
// the agent's URL (Chat Completions and Responses models) and `@ai-sdk/open-responses` at its
// `/responses`, `generateText` and `streamText`, tool calls included (the SDK runs the tool on the
// client's side and sends its result back, as an application does).

const ADMIN_TOKEN = 'openai-aisdk-admin-token-0123456789';

describe('e2e: the OpenAI-compatible API with the AI SDK as its client', function () {
  this.timeout(120_000);
  let svc: E2eService;
  let agent: string;
  let key: string;
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);

  const weather = () => {
    const calls: unknown[] = [];
    const t = tool({
      description: 'The weather in a city',
      inputSchema: jsonSchema<{ city: string }>({
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      }),
      execute: async (args) => {
        calls.push(args);
        return { city: args.city, degrees: 4 };
      },
    });
    return { tool: t, calls };
  };

  const models = (): Record<string, () => LanguageModel> => {
    const base = `${svc.url}/agents/${agent}/v1`;
    return {
      'Chat Completions (@ai-sdk/openai .chat)': () => createOpenAI({ baseURL: base, apiKey: key }).chat(agent),
      'Responses (@ai-sdk/openai .responses)': () => createOpenAI({ baseURL: base, apiKey: key }).responses(agent),
      'Open Responses (@ai-sdk/open-responses)': () =>
        createOpenResponses({ name: 'agent', url: `${base}/responses`, apiKey: key })(agent),
    };
  };

  before(async () => {
    svc = await startE2eService('openai_aisdk', { adminToken: ADMIN_TOKEN });
    agent = (
      await gql(
        'mutation { createAgent(input: { name: "Weather", instructions: "You report the weather.", defaultModel: "fake-model" }) { id } }',
      )
    ).createAgent.id;
    await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: OPENAI, enabled: true) { id } }', { a: agent });
    key = (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "sdk") { key } }', { a: agent }))
      .createAgentApiKey.key;
  });

  after(async () => {
    await svc?.stop();
  });

  beforeEach(() => svc.fake.reset());

  for (const name of [
    'Chat Completions (@ai-sdk/openai .chat)',
    'Responses (@ai-sdk/openai .responses)',
    'Open Responses (@ai-sdk/open-responses)',
  ]) {
    describe(name, () => {
      it('generateText answers with the agent', async () => {
        svc.fake.enqueue({ text: 'Sunny all day.' });
        const r = await generateText({ model: models()[name]!(), prompt: 'Weather?' });
        expect(r.text).to.equal('Sunny all day.');
        expect(r.usage.inputTokens).to.be.greaterThan(0);
        expect(JSON.stringify(svc.fake.requests[0]!.body.messages)).to.include('You report the weather.');
      });

      it('streamText streams the answer', async () => {
        svc.fake.enqueue({ text: 'Rain later in the evening.' });
        const r = streamText({ model: models()[name]!(), prompt: 'Weather tonight?' });
        const pieces: string[] = [];
        for await (const piece of r.textStream) pieces.push(piece);
        expect(pieces.join('')).to.equal('Rain later in the evening.');
        expect(pieces.length).to.be.greaterThan(1);
      });

      it('generateText runs a tool on the client side and sends its result back', async () => {
        const w = weather();
        svc.fake.enqueue(
          { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
          { text: 'Oslo: 4 degrees.' },
        );
        const r = await generateText({
          model: models()[name]!(),
          prompt: 'Weather in Oslo?',
          tools: { get_weather: w.tool },
          stopWhen: stepCountIs(3),
        });
        expect(w.calls).to.deep.equal([{ city: 'Oslo' }]);
        expect(r.text).to.equal('Oslo: 4 degrees.');
        expect(r.steps).to.have.length(2);
        const second = svc.fake.requests[1]!.body.messages!;
        expect(JSON.stringify(second.find((m) => m.role === 'tool')?.content)).to.include('degrees');
      });

      it('streamText runs a tool on the client side and streams the final answer', async () => {
        const w = weather();
        svc.fake.enqueue(
          { toolCalls: [{ name: 'get_weather', arguments: { city: 'Bergen' } }] },
          { text: 'Bergen: wet, as always.' },
        );
        const r = streamText({
          model: models()[name]!(),
          prompt: 'Weather in Bergen?',
          tools: { get_weather: w.tool },
          stopWhen: stepCountIs(3),
        });
        let text = '';
        for await (const piece of r.textStream) text += piece;
        expect(w.calls).to.deep.equal([{ city: 'Bergen' }]);
        expect(text).to.equal('Bergen: wet, as always.');
      });
    });
  }
});
