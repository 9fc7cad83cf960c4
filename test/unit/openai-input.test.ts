import { expect } from 'chai';
import { Invalid } from '../../src/domain/errors.js';
import { completionIds, completionObject, closingChunks } from '../../src/surfaces/openai/chat-completion-object.js';
import { readChatCompletion } from '../../src/surfaces/openai/chat-completions.js';
import { answerTurn, textOfDialogue } from '../../src/domain/surfaces/dialogue-turns.js';
import { paramName } from '../../src/surfaces/openai/openai-input.js';
import { readResponseRequest } from '../../src/surfaces/openai/responses.js';
import {
  outputItems,
  ResponseEvents,
  responseObject,
  statusOf,
  type ResponseState,
} from '../../src/surfaces/openai/response-object.js';
import type { RunResult } from '../../src/domain/runtime/run.types.js';

// The readers of the OpenAI-compatible API's two dialects: what a request becomes for the run, and
// every refusal naming its parameter as OpenAI's `param` does.

const OWN = ['query_records'];

function refusal(fn: () => unknown): { param: string | undefined; message: string } {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(Invalid);
    return { param: (err as Invalid).field, message: (err as Invalid).message };
  }
  throw new Error('expected a refusal');
}

const chat = (body: Record<string, unknown>) => readChatCompletion({ model: 'agent', ...body }, OWN);
const user = (content: unknown) => ({ role: 'user', content });

const result = (over: Partial<RunResult> = {}): RunResult => ({
  runId: 'run_1',
  output: 'hi',
  usage: { inputTokens: 3, outputTokens: 2 },
  credits: 0.5,
  model: 'm',
  logs: [],
  durationMs: 1,
  finishReason: 'stop',
  ...over,
});

describe('OpenAI-compatible API: Chat Completions requests', () => {
  it('puts system and developer text after the agent, keeps the turns, and names a tool result by its call', () => {
    const c = chat({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Use metric units.' }] },
        user('Weather?'),
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '4 degrees' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'weather' } },
      temperature: 0.5,
      top_p: 0.9,
      stop: 'END',
      max_tokens: 10,
      max_completion_tokens: 20,
      stream: true,
      stream_options: { include_usage: true },
      response_format: { type: 'json_schema', json_schema: { name: 'w', schema: { type: 'object' } } },
    });
    expect(c.dialogue.system).to.equal('Be brief.\n\nUse metric units.');
    expect(c.dialogue.messages).to.deep.equal([
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' }] },
      { role: 'tool', toolCallId: 'call_1', toolName: 'weather', content: '4 degrees' },
    ]);
    expect(c.dialogue.clientTools.map((t) => [t.name, t.execute])).to.deep.equal([['weather', undefined]]);
    expect(c.dialogue.clientTools[0]!.inputSchema).to.deep.equal({
      type: 'object',
      properties: { city: { type: 'string' } },
    });
    expect(c.dialogue.settings).to.deep.equal({
      temperature: 0.5,
      topP: 0.9,
      stopSequences: ['END'],
      responseFormat: { type: 'json_schema', name: 'w', schema: { type: 'object' } },
      toolChoice: { name: 'weather' },
    });
    expect(c.dialogue.maxOutputTokens).to.equal(20);
    expect(c).to.include({ stream: true, includeUsage: true, model: 'agent' });
  });

  it('takes max_tokens when max_completion_tokens is absent, json_object as JSON, and no settings when none are sent', () => {
    expect(chat({ messages: [user('a')], max_tokens: 7 }).dialogue.maxOutputTokens).to.equal(7);
    expect(chat({ messages: [user('a')], response_format: { type: 'json_object' } }).dialogue.settings).to.deep.equal({
      responseFormat: { type: 'json' },
    });
    const plain = chat({ messages: [user('a')], response_format: { type: 'text' }, tool_choice: 'auto' });
    expect(plain.dialogue.settings).to.deep.equal({ toolChoice: 'auto' });
    expect(plain.dialogue.maxOutputTokens).to.equal(undefined);
    expect(plain).to.include({ stream: false, includeUsage: false });
    expect(chat({ messages: [user('a')], n: 1, logprobs: false }).dialogue.messages).to.have.length(1);
  });

  it('notes image parts by parameter and reads text parts as text', () => {
    const c = chat({
      messages: [
        user([
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ]),
      ],
    });
    expect(c.images).to.deep.equal(['messages[0].content[1].image_url']);
    expect(c.dialogue.messages[0]).to.deep.equal({
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image', url: 'data:image/png;base64,AAAA' },
      ],
    });
  });

  const refused: [string, Record<string, unknown>, string, RegExp][] = [
    ['no messages', { messages: [] }, 'messages', /at least one message/],
    ['an unknown role', { messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role', /./],
    ['the function role', { messages: [{ role: 'function', name: 'f', content: 'x' }] }, 'messages[0].role', /legacy/],
    [
      'a tool result for no call',
      { messages: [user('a'), { role: 'tool', tool_call_id: 'nope', content: 'x' }] },
      'messages[1].tool_call_id',
      /no earlier assistant turn/,
    ],
    ['n of 2', { messages: [user('a')], n: 2 }, 'n', /one choice/],
    ['logprobs', { messages: [user('a')], logprobs: true }, 'logprobs', /not supported/],
    ['top_logprobs', { messages: [user('a')], top_logprobs: 2 }, 'top_logprobs', /not supported/],
    ['audio', { messages: [user('a')], audio: { voice: 'alloy', format: 'mp3' } }, 'audio', /audio/],
    ['audio modality', { messages: [user('a')], modalities: ['text', 'audio'] }, 'modalities', /text/],
    ['legacy functions', { messages: [user('a')], functions: [] }, 'functions', /tools/],
    ['a temperature over 2', { messages: [user('a')], temperature: 3 }, 'temperature', /./],
    ['max_tokens of 0', { messages: [user('a')], max_tokens: 0 }, 'max_tokens', /./],
    ['five stop sequences', { messages: [user('a')], stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop', /at most 4/],
    [
      'an audio part',
      { messages: [user([{ type: 'input_audio', input_audio: {} }])] },
      'messages[0].content[0].type',
      /input_audio/,
    ],
    [
      'an image in a system message',
      { messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x.test/a.png' } }] }] },
      'messages[0].content[0].type',
      /send text/,
    ],
    [
      'an image by a file URL',
      { messages: [user([{ type: 'image_url', image_url: { url: 'file:///etc/passwd' } }])] },
      'messages[0].content[0].image_url',
      /http\(s\) URL or a data:image/,
    ],
    [
      'a tool named like the agent',
      { messages: [user('a')], tools: [{ type: 'function', function: { name: 'query_records' } }] },
      'tools[0].function.name',
      /agent's own tools/,
    ],
    [
      'a tool declared twice',
      {
        messages: [user('a')],
        tools: [
          { type: 'function', function: { name: 'f' } },
          { type: 'function', function: { name: 'f' } },
        ],
      },
      'tools[1].function.name',
      /twice/,
    ],
    [
      'a tool name with a space',
      { messages: [user('a')], tools: [{ type: 'function', function: { name: 'my tool' } }] },
      'tools[0].function.name',
      /letters, digits/,
    ],
    [
      'parameters that are not an object schema',
      { messages: [user('a')], tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'string' } } }] },
      'tools[0].function.parameters',
      /type object/,
    ],
    [
      'a tool choice naming no tool',
      { messages: [user('a')], tool_choice: { type: 'function', function: { name: 'ghost' } } },
      'tool_choice',
      /no tool named 'ghost'/,
    ],
    [
      'a json_schema format without its schema',
      { messages: [user('a')], response_format: { type: 'json_schema', json_schema: { name: 'x' } } },
      'response_format.json_schema.schema',
      /schema/,
    ],
  ];
  for (const [what, body, param, message] of refused) {
    it(`refuses ${what}, naming ${param}`, () => {
      const r = refusal(() => chat(body));
      expect(r.param).to.equal(param);
      expect(r.message).to.match(message);
      expect(r.message.startsWith(`${param}: `)).to.equal(true);
    });
  }

  it('refuses a body that is no JSON object', () => {
    for (const body of [undefined, null, 'text', [1], 3])
      expect(refusal(() => readChatCompletion(body, OWN)).message).to.equal('The request body must be a JSON object');
  });

  it('shapes the completion: tool calls with null content, usage in tokens, credits and run id', () => {
    const ids = { id: 'chatcmpl-run_1', created: 5, model: 'agt_1' };
    const withCalls = completionObject(
      ids,
      result({ output: '', finishReason: 'tool_calls', toolCalls: [{ id: 'call_9', name: 'f', arguments: '{}' }] }),
    ) as any;
    expect(withCalls.choices[0].message).to.deep.equal({
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'f', arguments: '{}' } }],
    });
    expect(withCalls.choices[0].finish_reason).to.equal('tool_calls');
    expect(withCalls.usage).to.deep.equal({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
    expect(withCalls).to.include({ credits: 0.5, run_id: 'run_1', object: 'chat.completion', model: 'agt_1' });
    const plain = completionObject(ids, result()) as any;
    expect(plain.choices[0].message.content).to.equal('hi');
    expect(plain.choices[0].message).to.not.have.property('tool_calls');

    const closing = closingChunks(
      ids,
      result({ toolCalls: [{ id: 'c', name: 'f', arguments: '{"a":1}' }], finishReason: 'tool_calls' }),
      true,
    ) as any[];
    expect(closing.map((c) => (c.choices.length ? c.choices[0].finish_reason : 'usage'))).to.deep.equal([
      null,
      'tool_calls',
      'usage',
    ]);
    expect(closing[0].choices[0].delta.tool_calls).to.deep.equal([
      { index: 0, id: 'c', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
    ]);
    expect(closing[2]).to.deep.include({ choices: [], credits: 0.5, run_id: 'run_1' });
    expect(closingChunks(ids, result(), false)).to.have.length(1);
  });
});

describe('OpenAI-compatible API: Responses requests', () => {
  const read = (body: Record<string, unknown>, context: Parameters<typeof readResponseRequest>[1] = []) =>
    readResponseRequest({ model: 'agent', ...body }, context, OWN, 'agt_1');

  it('reads text input as one user turn, and instructions as this response’s system text', () => {
    const r = read({
      input: 'Hello',
      instructions: 'Be brief.',
      store: false,
      stream: true,
      max_output_tokens: 9,
      temperature: 1,
    });
    expect(r.turns).to.deep.equal([{ role: 'user', content: 'Hello' }]);
    expect(r.dialogue.system).to.equal('Be brief.');
    expect(r.dialogue.maxOutputTokens).to.equal(9);
    expect(r).to.include({ store: false, stream: true, previousResponseId: null });
    expect(r.echo).to.deep.include({ model: 'agt_1', instructions: 'Be brief.', temperature: 1, maxOutputTokens: 9 });
  });

  it('reads items: messages, calls joined to the assistant turn before them, outputs named by a call of the stored context', () => {
    const context = [
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'old', name: 'lookup', arguments: '{}' }] },
    ];
    const r = read(
      {
        previous_response_id: 'resp_1',
        input: [
          { type: 'function_call_output', call_id: 'old', output: 'found' },
          { role: 'developer', content: 'Metric units.' },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'And now?' }] },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
          { type: 'function_call', call_id: 'new', name: 'lookup', arguments: '{"q":1}' },
          { type: 'function_call_output', call_id: 'new', output: [{ type: 'input_text', text: 'done' }] },
          { type: 'reasoning', id: 'rs_1', summary: [] },
        ],
        tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object' } }],
        text: { format: { type: 'json_schema', name: 'x', schema: { type: 'object' } } },
        tool_choice: 'required',
      },
      context,
    );
    expect(r.turns).to.deep.equal([
      { role: 'tool', toolCallId: 'old', toolName: 'lookup', content: 'found' },
      { role: 'user', content: [{ type: 'text', text: 'And now?' }] },
      { role: 'assistant', content: 'Checking.', toolCalls: [{ id: 'new', name: 'lookup', arguments: '{"q":1}' }] },
      { role: 'tool', toolCallId: 'new', toolName: 'lookup', content: 'done' },
    ]);
    expect(r.dialogue.system).to.equal('Metric units.');
    expect(r.previousResponseId).to.equal('resp_1');
    expect(r.dialogue.settings).to.deep.equal({
      responseFormat: { type: 'json_schema', name: 'x', schema: { type: 'object' } },
      toolChoice: 'required',
    });
    // A call with no assistant turn before it starts one.
    expect(read({ input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }] }).turns).to.deep.equal([
      { role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'f', arguments: '{}' }] },
    ]);
  });

  const refused: [string, Record<string, unknown>, string, RegExp][] = [
    ['no input', {}, 'input', /./],
    ['background mode', { input: 'a', background: true }, 'background', /background/],
    ['a conversation', { input: 'a', conversation: 'conv_1' }, 'conversation', /previous_response_id/],
    ['a stored prompt', { input: 'a', prompt: { id: 'p' } }, 'prompt', /instructions/],
    ['a built-in tool', { input: 'a', tools: [{ type: 'web_search' }] }, 'tools[0].type', /only function tools/],
    [
      'a function tool without a name',
      { input: 'a', tools: [{ type: 'function' }] },
      'tools[0].name',
      /needs its name/,
    ],
    ['an item reference', { input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input[0].type', /item_reference/],
    [
      'an output for no call',
      { input: [{ type: 'function_call_output', call_id: 'x', output: 'y' }] },
      'input[0].call_id',
      /no earlier assistant turn/,
    ],
    [
      'a file part',
      { input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] },
      'input[0].content[0].type',
      /input_file/,
    ],
    [
      'an image by file id',
      { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'f' }] }] },
      'input[0].content[0].image_url',
      /file ids/,
    ],
    [
      'a tool choice naming no tool',
      { input: 'a', tool_choice: { type: 'function', name: 'ghost' } },
      'tool_choice',
      /ghost/,
    ],
    [
      'a json_schema format without its schema',
      { input: 'a', text: { format: { type: 'json_schema', name: 'x' } } },
      'text.format.schema',
      /schema/,
    ],
  ];
  for (const [what, body, param, message] of refused) {
    it(`refuses ${what}, naming ${param}`, () => {
      const r = refusal(() => read(body));
      expect(r.param).to.equal(param);
      expect(r.message).to.match(message);
    });
  }

  it('builds the output items and the response object; the stream events follow OpenAI’s order', () => {
    const r = result({
      output: 'Hi there',
      toolCalls: [{ id: 'call_1', name: 'f', arguments: '{}' }],
      finishReason: 'tool_calls',
    });
    const items = outputItems(r) as any[];
    expect(items.map((i) => i.type)).to.deep.equal(['message', 'function_call']);
    expect(items[1]).to.include({ call_id: 'call_1', name: 'f', arguments: '{}', status: 'completed' });
    expect(
      outputItems(result({ output: '', toolCalls: [{ id: 'c', name: 'f', arguments: '{}' }] })).map((i: any) => i.type),
    ).to.deep.equal(['function_call']);

    const echo = read({ input: 'a' }).echo;
    const state: ResponseState = {
      id: 'resp_1',
      createdAt: 1,
      status: 'in_progress',
      echo,
      previousResponseId: null,
      store: true,
      output: [],
    };
    const events = new ResponseEvents(state);
    const all = [...events.start(), ...events.delta('Hi '), ...events.delta('there'), ...events.finish(r)];
    expect(all.map((e) => e.type)).to.deep.equal([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(all.map((e) => e.sequence_number)).to.deep.equal(all.map((_, i) => i));
    expect(all[6]).to.include({ text: 'Hi there' });
    expect(all[9]).to.include({ output_index: 1 });
    const done = all[13]!.response as any;
    expect(done).to.include({ status: 'completed', credits: 0.5, run_id: 'run_1' });
    expect(done.output.map((o: any) => o.type)).to.deep.equal(['message', 'function_call']);
    expect(responseObject({ ...state, status: 'incomplete' })).to.deep.include({
      incomplete_details: { reason: 'max_output_tokens' },
    });

    const cut = new ResponseEvents({ ...state, output: [] });
    const ended = cut.finish(result({ finishReason: 'length' }));
    expect(ended[ended.length - 1]!.type).to.equal('response.incomplete');
    const failed = new ResponseEvents({ ...state, output: [] }).finish(
      result({ output: null, error: { kind: 'model', message: 'The model failed' } }),
    );
    expect(failed.map((e) => e.type)).to.deep.equal(['response.failed']);
    expect((failed[0]!.response as any).error).to.deep.equal({ code: 'server_error', message: 'The model failed' });
  });
});

describe('OpenAI-compatible API: parameters and the guardrails text', () => {
  it('writes paths as OpenAI names parameters', () => {
    expect(paramName(['messages', 2, 'content', 0, 'image_url'])).to.equal('messages[2].content[0].image_url');
    expect(paramName(['model'])).to.equal('model');
    expect(paramName([])).to.equal('');
  });

  it('gives the guardrails every text the caller sent, assistant turns and tool arguments included', () => {
    const text = textOfDialogue('sys', [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'u1' },
          { type: 'image', url: 'https://x.test/a.png' },
        ],
      },
      { role: 'assistant', content: 'a1', toolCalls: [{ id: 'c', name: 'f', arguments: '{"x":"args"}' }] },
      { role: 'tool', toolCallId: 'c', toolName: 'f', content: 't1' },
      { role: 'user', content: 'u2' },
    ]);
    expect(text).to.equal('sys\n\nu1\n\na1\n\n{"x":"args"}\n\nt1\n\nu2');
  });
});

describe('OpenAI-compatible API: answers, whole', () => {
  const ids = { id: 'chatcmpl-run_1', created: 5, model: 'agt_1' };

  it('a completion and its chunks, field by field', () => {
    expect(completionObject(ids, result({ output: { a: 1 } }))).to.deep.equal({
      id: 'chatcmpl-run_1',
      object: 'chat.completion',
      created: 5,
      model: 'agt_1',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: '{"a":1}', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      credits: 0.5,
      run_id: 'run_1',
    });
    expect(completionObject(ids, result({ output: null, finishReason: undefined })) as any).to.deep.include({
      choices: [
        { index: 0, message: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: 'stop' },
      ],
    });
    expect(closingChunks(ids, result({ finishReason: 'length' }), true)).to.deep.equal([
      {
        id: 'chatcmpl-run_1',
        object: 'chat.completion.chunk',
        created: 5,
        model: 'agt_1',
        choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'length' }],
      },
      {
        id: 'chatcmpl-run_1',
        object: 'chat.completion.chunk',
        created: 5,
        model: 'agt_1',
        choices: [],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
        credits: 0.5,
        run_id: 'run_1',
      },
    ]);
  });

  it('a response object, field by field, and what a run adds to its conversation', () => {
    const echo = readResponseRequest(
      {
        input: 'a',
        instructions: 'Be brief.',
        temperature: 0.5,
        top_p: 0.9,
        max_output_tokens: 30,
        metadata: { k: 'v' },
        tool_choice: 'none',
        tools: [{ type: 'function', name: 'f', description: 'd', parameters: { type: 'object' } }],
      },
      [],
      OWN,
      'agt_1',
    ).echo;
    const state: ResponseState = {
      id: 'resp_1',
      createdAt: 7,
      status: 'in_progress',
      echo,
      previousResponseId: 'resp_0',
      store: false,
      output: [{ type: 'message' }],
    };
    expect(responseObject(state)).to.deep.equal({
      id: 'resp_1',
      object: 'response',
      created_at: 7,
      status: 'in_progress',
      error: null,
      incomplete_details: null,
      instructions: 'Be brief.',
      max_output_tokens: 30,
      model: 'agt_1',
      output: [{ type: 'message' }],
      parallel_tool_calls: true,
      previous_response_id: 'resp_0',
      reasoning: { effort: null, summary: null },
      store: false,
      temperature: 0.5,
      text: { format: { type: 'text' } },
      tool_choice: 'none',
      tools: [{ type: 'function', name: 'f', description: 'd', parameters: { type: 'object' }, strict: null }],
      top_p: 0.9,
      truncation: 'disabled',
      usage: null,
      metadata: { k: 'v' },
      credits: 0,
      run_id: null,
    });
    const done = responseObject({ ...state, status: 'completed', result: result() }) as any;
    expect(done.completed_at).to.be.a('number');
    expect(done.usage).to.deep.equal({
      input_tokens: 3,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 2,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 5,
    });
    expect(responseObject({ ...state, status: 'failed', error: { code: 'x', message: 'y' } })).to.deep.include({
      error: { code: 'x', message: 'y' },
      incomplete_details: null,
    });
    const defaults = readResponseRequest({ input: 'a' }, [], OWN, 'agt_1').echo;
    expect(defaults).to.deep.equal({
      model: 'agt_1',
      instructions: null,
      tools: [],
      toolChoice: 'auto',
      text: { format: { type: 'text' } },
      temperature: null,
      topP: null,
      maxOutputTokens: null,
      metadata: {},
    });

    const [message] = outputItems(result({ output: 'Hi' })) as any[];
    expect(message).to.deep.equal({
      type: 'message',
      id: message.id,
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Hi', annotations: [], logprobs: [] }],
    });
    expect(message.id).to.match(/^msg_/);
    expect((outputItems(result({ output: { a: 1 } })) as any[])[0].content[0].text).to.equal('{"a":1}');
    expect((outputItems(result({ output: null })) as any[])[0].content[0].text).to.equal('');
    const call = (
      outputItems(result({ output: '', toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }] })) as any[]
    )[0];
    expect(call).to.deep.equal({
      type: 'function_call',
      id: call.id,
      call_id: 'c1',
      name: 'f',
      arguments: '{}',
      status: 'completed',
    });
    expect(call.id).to.match(/^fc_/);

    expect(answerTurn(result({ output: 'Hi' }))).to.deep.equal({ role: 'assistant', content: 'Hi' });
    expect(answerTurn(result({ output: null, toolCalls: [{ id: 'c', name: 'f', arguments: '{}' }] }))).to.deep.equal({
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'c', name: 'f', arguments: '{}' }],
    });
    expect(answerTurn(result({ output: { a: 1 } }))).to.deep.equal({ role: 'assistant', content: '{"a":1}' });
    expect(statusOf(result())).to.equal('completed');
    expect(statusOf(result({ finishReason: 'length' }))).to.equal('incomplete');
    expect(statusOf(result({ error: { kind: 'model', message: 'x' } }))).to.equal('failed');
  });

  it('the stream events of a response with no text and one tool call, field by field', () => {
    const echo = readResponseRequest({ input: 'a' }, [], OWN, 'agt_1').echo;
    const state: ResponseState = {
      id: 'resp_1',
      createdAt: 7,
      status: 'in_progress',
      echo,
      previousResponseId: null,
      store: true,
      output: [],
    };
    const events = new ResponseEvents(state);
    const start = events.start();
    expect(
      start.map((e) => [e.type, e.sequence_number, (e.response as any).status, (e.response as any).output]),
    ).to.deep.equal([
      ['response.created', 0, 'in_progress', []],
      ['response.in_progress', 1, 'in_progress', []],
    ]);
    const end = events.finish(
      result({ output: '', finishReason: 'tool_calls', toolCalls: [{ id: 'c1', name: 'f', arguments: '{"x":1}' }] }),
    );
    const id = (end[0]!.item as any).id;
    expect(end.slice(0, 4)).to.deep.equal([
      {
        type: 'response.output_item.added',
        sequence_number: 2,
        output_index: 0,
        item: { type: 'function_call', id, call_id: 'c1', name: 'f', arguments: '', status: 'in_progress' },
      },
      {
        type: 'response.function_call_arguments.delta',
        sequence_number: 3,
        item_id: id,
        output_index: 0,
        delta: '{"x":1}',
      },
      {
        type: 'response.function_call_arguments.done',
        sequence_number: 4,
        item_id: id,
        output_index: 0,
        name: 'f',
        arguments: '{"x":1}',
      },
      {
        type: 'response.output_item.done',
        sequence_number: 5,
        output_index: 0,
        item: { type: 'function_call', id, call_id: 'c1', name: 'f', arguments: '{"x":1}', status: 'completed' },
      },
    ]);
    expect(end[4]!.type).to.equal('response.completed');
    expect(state.output).to.have.length(1);

    const texted = new ResponseEvents({ ...state, output: [] });
    texted.start();
    const added = texted.delta('Hi');
    const msgId = (added[0]!.item as any).id;
    expect(added).to.deep.equal([
      {
        type: 'response.output_item.added',
        sequence_number: 2,
        output_index: 0,
        item: { type: 'message', id: msgId, status: 'in_progress', role: 'assistant', content: [] },
      },
      {
        type: 'response.content_part.added',
        sequence_number: 3,
        item_id: msgId,
        output_index: 0,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      },
      {
        type: 'response.output_text.delta',
        sequence_number: 4,
        item_id: msgId,
        output_index: 0,
        content_index: 0,
        delta: 'Hi',
        logprobs: [],
      },
    ]);
    const closing = texted.finish(result({ output: 'Hi' }));
    expect(closing.slice(0, 3)).to.deep.equal([
      {
        type: 'response.output_text.done',
        sequence_number: 5,
        item_id: msgId,
        output_index: 0,
        content_index: 0,
        text: 'Hi',
        logprobs: [],
      },
      {
        type: 'response.content_part.done',
        sequence_number: 6,
        item_id: msgId,
        output_index: 0,
        content_index: 0,
        part: { type: 'output_text', text: 'Hi', annotations: [], logprobs: [] },
      },
      {
        type: 'response.output_item.done',
        sequence_number: 7,
        output_index: 0,
        item: {
          type: 'message',
          id: msgId,
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Hi', annotations: [], logprobs: [] }],
        },
      },
    ]);

    const failed = new ResponseEvents({ ...state, output: [] });
    const f = failed.failed('The run failed');
    expect(f.map((e) => e.type)).to.deep.equal(['response.failed']);
    expect((f[0]!.response as any).error).to.deep.equal({ code: 'server_error', message: 'The run failed' });
    const timedOut = new ResponseEvents({ ...state, output: [] }).finish(
      result({ output: null, error: { kind: 'timeout', message: 'too slow' } }),
    );
    expect((timedOut[0]!.response as any).error).to.deep.equal({ code: 'timeout', message: 'too slow' });
  });
});

describe('OpenAI-compatible API: the readers, edge by edge', () => {
  const read = (body: Record<string, unknown>, context: Parameters<typeof readResponseRequest>[1] = []) =>
    readResponseRequest({ model: 'agent', ...body }, context, OWN, 'agt_1');
  const tool = (name: string) => ({ type: 'function', function: { name } });

  it('accepts what is only named like a refused parameter: null values, n of 1, text modalities, background false', () => {
    expect(
      chat({ messages: [user('a')], n: null, audio: null, modalities: ['text'] }).dialogue.messages,
    ).to.have.length(1);
    expect(chat({ messages: [user('a')], modalities: 'text' }).dialogue.messages).to.have.length(1);
    expect(read({ input: 'a', background: false, n: 1 }).turns).to.have.length(1);
  });

  it('says exactly why a refused parameter is refused', () => {
    expect(refusal(() => chat({ messages: [user('a')], audio: {} })).message).to.equal(
      'audio: audio output is not supported',
    );
    expect(refusal(() => chat({ messages: [user('a')], function_call: 'auto' })).message).to.equal(
      'function_call: the legacy function_call parameter is not supported; use tool_choice',
    );
    expect(refusal(() => chat({ messages: [user('a')], modalities: ['audio'] })).message).to.equal(
      'modalities: only text output is supported',
    );
    expect(refusal(() => read({ input: 'a', background: true })).message).to.equal(
      'background: background responses are not supported; stream, or wait for the answer',
    );
    expect(refusal(() => read({ input: 'a', n: 2 })).message).to.equal('n: only one answer per request is supported');
    expect(refusal(() => read({ input: 'a', top_logprobs: 1 })).message).to.equal(
      'top_logprobs: log probabilities are not supported',
    );
    expect(
      refusal(() => chat({ messages: [user('a')], response_format: { type: 'json_schema', json_schema: {} } })).message,
    ).to.equal('response_format.json_schema.schema: a json_schema format needs its schema');
    expect(refusal(() => chat({ messages: [{ role: 'user', content: 5 }] })).message).to.equal(
      'messages[0].content: Invalid input: expected string or array',
    );
  });

  it('reads every kind of text part, and names the one that is not text', () => {
    const c = chat({
      messages: [
        {
          role: 'system',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
        { role: 'system', content: '' },
        user([{ type: 'text', text: 'x' }]),
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] },
        { role: 'assistant', content: 'Earlier answer' },
      ],
      stop: ['x', 'y'],
    });
    expect(c.dialogue.system).to.equal('ab');
    expect(c.dialogue.messages).to.deep.equal([
      { role: 'user', content: [{ type: 'text', text: 'x' }] },
      { role: 'assistant', content: 'no' },
      { role: 'assistant', content: 'Earlier answer' },
    ]);
    expect(c.dialogue.settings.stopSequences).to.deep.equal(['x', 'y']);
    expect(c.dialogue).to.not.have.property('maxOutputTokens');
    const bad: [Record<string, unknown>, string, string][] = [
      [
        { messages: [{ role: 'system', content: [{ type: 'text' }] }] },
        'messages[0].content[0].text',
        'a text part needs its text as a string',
      ],
      [
        { messages: [{ role: 'assistant', content: [{ type: 'refusal' }] }] },
        'messages[0].content[0].refusal',
        'a refusal part needs its refusal as a string',
      ],
      [
        { messages: [user([{ type: 'text', text: 3 }])] },
        'messages[0].content[0].text',
        'a text part needs its text as a string',
      ],
      [
        { messages: [user([{ type: 'image_url' }])] },
        'messages[0].content[0].image_url.url',
        'an image_url part needs image_url.url',
      ],
      [
        { messages: [user([{ type: 'image_url', image_url: {} }])] },
        'messages[0].content[0].image_url.url',
        'an image_url part needs image_url.url',
      ],
      [
        {
          messages: [
            user('a'),
            {
              role: 'assistant',
              tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
            },
            {
              role: 'tool',
              tool_call_id: 'c',
              content: [{ type: 'image_url', image_url: { url: 'https://x.test/a.png' } }],
            },
          ],
        },
        'messages[2].content[0].type',
        "a part of type 'image_url' is not supported here; send text",
      ],
    ];
    for (const [body, param, why] of bad) expect(refusal(() => chat(body)).message, param).to.equal(`${param}: ${why}`);
  });

  it('takes images only by http(s) or data:image URLs at the start of the URL', () => {
    for (const url of ['http://x.test/a.png', 'HTTPS://x.test/a.png', 'data:image/png;base64,AAAA'])
      expect(chat({ messages: [user([{ type: 'image_url', image_url: { url } }])] }).images).to.have.length(1);
    for (const url of [
      'ftp://x.test/https://a.png',
      'xdata:image/png;base64,AAAA',
      'javascript:alert(1)',
      'data:text/html;base64,AAAA',
    ]) {
      expect(
        refusal(() => chat({ messages: [user([{ type: 'image_url', image_url: { url } }])] })).param,
        url,
      ).to.equal('messages[0].content[0].image_url');
    }
  });

  it('declares the caller’s tools: a default schema and description, at most 128, a choice among them or the agent’s', () => {
    const plain = chat({ messages: [user('a')], tools: [tool('f')] }).dialogue.clientTools[0]!;
    expect(plain).to.deep.equal({ name: 'f', description: '', inputSchema: { type: 'object', properties: {} } });
    expect(
      chat({
        messages: [user('a')],
        tools: [{ type: 'function', function: { name: 'g', parameters: { properties: { x: { type: 'string' } } } } }],
      }).dialogue.clientTools[0]!.inputSchema,
    ).to.deep.equal({ type: 'object', properties: { x: { type: 'string' } } });
    const many = (n: number) => Array.from({ length: n }, (_, i) => tool(`t${i}`));
    expect(chat({ messages: [user('a')], tools: many(128) }).dialogue.clientTools).to.have.length(128);
    expect(refusal(() => chat({ messages: [user('a')], tools: many(129) })).message).to.equal(
      'tools: at most 128 tools',
    );
    expect(
      chat({ messages: [user('a')], tool_choice: { type: 'function', function: { name: 'query_records' } } }).dialogue
        .settings.toolChoice,
    ).to.deep.equal({ name: 'query_records' });
    expect(
      refusal(() =>
        chat({
          messages: [user('a')],
          tools: [tool('f')],
          tool_choice: { type: 'function', function: { name: 'ghost' } },
        }),
      ).param,
    ).to.equal('tool_choice');
    expect(refusal(() => read({ input: 'a', tools: [{ type: 'function', name: 'bad name' }] })).param).to.equal(
      'tools[0].name',
    );
  });

  it('reads Responses items by their own schema, naming the bad field', () => {
    const bad: [unknown[], string, string][] = [
      [[{ type: 'message', role: 'user', content: 5 }], 'input[0].content', 'Invalid input: expected string or array'],
      [
        [{ type: 'message', role: 'robot', content: 'x' }],
        'input[0].role',
        'Invalid option: expected one of "user"|"assistant"|"system"|"developer"',
      ],
      [
        [{ type: 'message', content: 'x' }],
        'input[0].role',
        "a message's role is user, assistant, system or developer",
      ],
      [
        [{ type: 'function_call_output', output: 'x' }],
        'input[0].call_id',
        'Invalid input: expected string, received undefined',
      ],
      [
        [{ type: 'function_call', call_id: 'c', arguments: '{}' }],
        'input[0].name',
        'Invalid input: expected string, received undefined',
      ],
      [
        [{ role: 'user', content: [{ type: 'input_text', text: 5 }] }],
        'input[0].content[0].text',
        'this part needs its text as a string',
      ],
      [
        [{ role: 'assistant', content: [{ type: 'refusal' }] }],
        'input[0].content[0].refusal',
        'this part needs its refusal as a string',
      ],
      [
        [{ role: 'system', content: [{ type: 'input_image', image_url: 'https://x.test/a.png' }] }],
        'input[0].content[0].type',
        "a part of type 'input_image' is not supported here; send text",
      ],
    ];
    for (const [input, param, why] of bad)
      expect(refusal(() => read({ input })).message, param).to.equal(`${param}: ${why}`);
    const r = read({
      input: [
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] },
        { role: 'user', content: [{ type: 'input_image', image_url: 'https://x.test/a.png' }] },
      ],
      text: { format: { type: 'json_object' } },
    });
    expect(r.turns[0]).to.deep.equal({ role: 'assistant', content: 'no' });
    expect(r.images).to.deep.equal(['input[1].content[0].image_url']);
    expect(r.dialogue.settings.responseFormat).to.deep.equal({ type: 'json' });
    // A stored context whose turns carry no calls still names the calls of those that do.
    const ctx = [
      { role: 'user' as const, content: 'q' },
      { role: 'assistant' as const, content: 'a' },
      { role: 'tool' as const, toolCallId: 'z', toolName: 'f', content: 'r' },
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'k', name: 'g', arguments: '{}' }] },
    ];
    expect(
      read({ input: [{ type: 'function_call_output', call_id: 'k', output: 'done' }] }, ctx).turns[0],
    ).to.deep.include({ toolName: 'g' });
  });

  it('gives the guardrails each user part on its own line, and no empty turn', () => {
    expect(
      textOfDialogue('', [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
        { role: 'assistant', content: '' },
        { role: 'user', content: 'c' },
      ]),
    ).to.equal('a\nb\n\nc');
  });

  it('names a completion by its run and the second it was made', () => {
    expect(completionIds('run_9', 'agt_1', new Date(12_345_678))).to.deep.equal({
      id: 'chatcmpl-run_9',
      created: 12_345,
      model: 'agt_1',
    });
    expect(
      closingChunks({ id: 'i', created: 1, model: 'm' }, result({ finishReason: undefined }), false),
    ).to.deep.equal([
      {
        id: 'i',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'm',
        choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }],
      },
    ]);
  });

  it('response events: ids by kind, the output stored on the state, no call events for a failed run', () => {
    const echo = read({ input: 'a' }).echo;
    const state: ResponseState = {
      id: 'resp_1',
      createdAt: 7,
      status: 'in_progress',
      echo,
      previousResponseId: null,
      store: true,
      output: [],
    };
    const events = new ResponseEvents(state);
    const [added] = events.delta('x');
    expect((added!.item as any).id).to.match(/^msg_/);
    const end = events.finish(result({ output: 'x', toolCalls: [{ id: 'c', name: 'f', arguments: '{}' }] }));
    expect((end.find((e) => e.type === 'response.output_item.added')!.item as any).id).to.match(/^fc_/);
    expect(state.status).to.equal('completed');
    expect(state.output.map((o: any) => [o.type, o.status])).to.deep.equal([
      ['message', 'completed'],
      ['function_call', 'completed'],
    ]);
    const done = end[end.length - 1]!.response as any;
    expect(Math.abs(done.completed_at - Date.now() / 1000)).to.be.lessThan(5);
    const plain = new ResponseEvents({ ...state, output: [] }).finish(result({ output: 'y' }));
    expect(plain.map((e) => e.type)).to.deep.equal([
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const failed = new ResponseEvents({ ...state, output: [] }).finish(
      result({
        output: null,
        toolCalls: [{ id: 'c', name: 'f', arguments: '{}' }],
        error: { kind: 'model', message: 'x' },
      }),
    );
    expect(failed.map((e) => e.type)).to.deep.equal(['response.failed']);
    expect(outputItems(result({ output: 'Hi' }))).to.have.length(1);
  });
});
