import { expect } from 'chai';
import {
  CHARS_PER_TOKEN,
  IMAGE_CHARS,
  promptChars,
  tokensOf,
  UsageMeter,
} from '../../src/domain/runtime/usage-meter.js';
import { reportedUsage } from '../../src/infra/models/reported-usage.js';

// What a model call is charged when it ends early (docs/runtime.md): finished steps as the provider
// reported them, the open step as reported so far or estimated at 4 characters a token.

describe('usage meter: what a model call used when it ends', () => {
  it('estimates tokens at 4 characters each, a started token counting whole', () => {
    expect(CHARS_PER_TOKEN).to.equal(4);
    expect([0, 1, 4, 5, 8, 9].map(tokensOf)).to.deep.equal([0, 1, 1, 2, 2, 3]);
  });

  it("counts a prompt's system text, every kind of turn, and the tools offered", () => {
    const tool = { name: 'find', description: 'Finds.', inputSchema: { type: 'object' } };
    expect(promptChars({ system: '', messages: [], tools: [] })).to.equal(0);
    expect(promptChars({ system: 'abc', messages: [], tools: [] })).to.equal(3);
    expect(promptChars({ system: '', messages: [{ role: 'user', content: 'hello' }], tools: [] })).to.equal(5);
    const parts = [
      { type: 'text' as const, text: 'look' },
      { type: 'image' as const, url: `data:image/png;base64,${'A'.repeat(100_000)}` },
    ];
    expect(promptChars({ system: '', messages: [{ role: 'user', content: parts }], tools: [] })).to.equal(
      4 + IMAGE_CHARS,
    );
    expect(IMAGE_CHARS).to.equal(4000);
    expect(promptChars({ system: '', messages: [{ role: 'assistant', content: 'ok' }], tools: [] })).to.equal(2);
    const call = { id: 'c1', name: 'find', arguments: '{"q":1}' };
    expect(
      promptChars({ system: '', messages: [{ role: 'assistant', content: 'ok', toolCalls: [call, call] }], tools: [] }),
    ).to.equal(2 + 2 * 11);
    expect(
      promptChars({
        system: '',
        messages: [{ role: 'tool', toolCallId: 'c1', toolName: 'find', content: '[1,2]' }],
        tools: [],
      }),
    ).to.equal(9);
    expect(promptChars({ system: 'ab', messages: [{ role: 'user', content: 'cd' }], tools: [tool, tool] })).to.equal(
      4 + 2 * (4 + 6 + 17),
    );
  });

  it('nothing used before the provider began answering', () => {
    const m = new UsageMeter(400);
    expect(m.used()).to.deep.equal({ inputTokens: 0, outputTokens: 0 });
    m.output(40);
    m.reported({ inputTokens: 9, outputTokens: 9 });
    expect(m.used()).to.deep.equal({ inputTokens: 0, outputTokens: 0 });
  });

  it('an open step is its prompt and streamed output estimated, each replaced by what the provider reported', () => {
    const m = new UsageMeter(401);
    m.stepStarted();
    expect(m.used()).to.deep.equal({ inputTokens: 101, outputTokens: 0 });
    m.output(10);
    m.output(3);
    expect(m.used()).to.deep.equal({ inputTokens: 101, outputTokens: 4 });
    m.reported({ inputTokens: 50 });
    expect(m.used()).to.deep.equal({ inputTokens: 50, outputTokens: 4 });
    m.reported({ outputTokens: 7 });
    m.reported({});
    expect(m.used()).to.deep.equal({ inputTokens: 50, outputTokens: 7 });
    m.reported({ inputTokens: 0, outputTokens: 0 });
    expect(m.used()).to.deep.equal({ inputTokens: 0, outputTokens: 0 });
  });

  it('finished steps count as reported (estimated where not); the next prompt holds their output and the tool results', () => {
    const m = new UsageMeter(400);
    m.stepStarted();
    m.output(20);
    m.toolResult(80);
    m.stepFinished({ inputTokens: 100, outputTokens: 50 });
    expect(m.used()).to.deep.equal({ inputTokens: 100, outputTokens: 50 });
    m.output(1000); // between steps: no step is open
    expect(m.used()).to.deep.equal({ inputTokens: 100, outputTokens: 50 });
    m.stepStarted(); // 400 + 20 + 80 characters of prompt
    expect(m.used()).to.deep.equal({ inputTokens: 225, outputTokens: 50 });
    m.output(8);
    m.stepFinished({ outputTokens: 3 });
    expect(m.used()).to.deep.equal({ inputTokens: 225, outputTokens: 53 });
    m.stepStarted(); // + 8 characters of output
    m.stepFinished({});
    expect(m.used()).to.deep.equal({ inputTokens: 352, outputTokens: 53 });
  });

  it('a step finished without having been seen to start still counts', () => {
    const m = new UsageMeter(40);
    m.stepFinished({ outputTokens: 2 });
    expect(m.used()).to.deep.equal({ inputTokens: 10, outputTokens: 2 });
    m.stepStarted();
    expect(m.used()).to.deep.equal({ inputTokens: 20, outputTokens: 2 });
  });
});

describe('reported usage in raw provider chunks', () => {
  it("reads OpenAI's (and compatible servers') usage chunk", () => {
    expect(
      reportedUsage({ choices: [], usage: { prompt_tokens: 300, completion_tokens: 100, total_tokens: 400 } }),
    ).to.deep.equal({ inputTokens: 300, outputTokens: 100 });
    expect(reportedUsage({ usage: { prompt_tokens: 3 } })).to.deep.equal({ inputTokens: 3 });
    expect(reportedUsage({ usage: { completion_tokens: 0 } })).to.deep.equal({ outputTokens: 0 });
  });

  it("reads Anthropic's message_start (input, cache writes and reads) and message_delta (output so far)", () => {
    expect(
      reportedUsage({ type: 'message_start', message: { usage: { input_tokens: 10, output_tokens: 1 } } }),
    ).to.deep.equal({ inputTokens: 10 });
    expect(
      reportedUsage({
        type: 'message_start',
        message: { usage: { input_tokens: 10, cache_creation_input_tokens: 5, cache_read_input_tokens: 7 } },
      }),
    ).to.deep.equal({ inputTokens: 22 });
    expect(reportedUsage({ type: 'message_delta', usage: { output_tokens: 42 } })).to.deep.equal({ outputTokens: 42 });
  });

  it('ignores chunks without usage, and figures that are no counts', () => {
    for (const raw of [
      null,
      'data',
      [1],
      { choices: [{ delta: { content: 'hi' } }] },
      { usage: null },
      { usage: [] },
      { usage: {} },
      { usage: { prompt_tokens: -1, completion_tokens: 'many' } },
      { usage: { prompt_tokens: Infinity } },
      { type: 'message_start', message: { usage: { output_tokens: 1 } } },
      { type: 'message_start', message: 'x' },
      { type: 'message_start' },
      { type: 'message_delta', usage: { input_tokens: 4 } },
      { type: 'message_delta' },
      { type: 'content_block_delta', delta: { text: 'x' } },
    ]) {
      expect(reportedUsage(raw), JSON.stringify(raw)).to.equal(null);
    }
    expect(
      reportedUsage({ type: 'message_start', message: { usage: { input_tokens: 10, cache_read_input_tokens: -3 } } }),
    ).to.deep.equal({ inputTokens: 10 });
  });
});
