import { expect } from 'chai';
import { TaskState } from '@a2a-js/sdk';
import type { RunEvent, RunResult } from '../../src/domain/runtime/run.types.js';
import type { ResponseState } from '../../src/surfaces/openai/response-object.js';
import { a2aTaskEvents } from '../../src/surfaces/a2a/a2a.events.js';
import { chatEvents } from '../../src/surfaces/chat/chat.events.js';
import { httpApiEvents } from '../../src/surfaces/http-api/http-api.events.js';
import { mcpProgress } from '../../src/surfaces/mcp/mcp.events.js';
import { chatCompletionChunks, responseEvents } from '../../src/surfaces/openai/openai.events.js';
import { encodeRunEvent, type RunEventEncoder } from '../../src/surfaces/shared/run-events.js';

// Each run-event encoder on one fixed event sequence: two deltas, then the run's end (a success,
// or an error), and an unexpected failure after the stream opened.

const result = (over: Partial<RunResult> = {}): RunResult => ({
  runId: 'run_1',
  output: 'Hello world',
  usage: { inputTokens: 3, outputTokens: 2 },
  credits: 0.5,
  model: 'test-model',
  logs: [],
  durationMs: 5,
  ...over,
});
const failedRun = result({ output: null, error: { kind: 'model', message: 'The model could not be reached' } });
const EVENTS = (end: RunResult): RunEvent[] => [
  { type: 'delta', text: 'Hello' },
  { type: 'delta', text: ' world' },
  { type: 'done', result: end },
];

/** Every frame an encoder gives for a run: `start`, then each event's. */
function run<F>(encoder: RunEventEncoder<F>, end: RunResult): F[] {
  return [...(encoder.start?.() ?? []), ...EVENTS(end).flatMap((ev) => encodeRunEvent(encoder, ev))];
}

describe('run-event encoders', () => {
  it('chat: start, delta…, done {output, credits}; error {error} for a failed run or an unexpected failure', () => {
    expect(run(chatEvents('conv_1', 'run_1'), result())).to.deep.equal([
      { event: 'start', data: { conversationId: 'conv_1', runId: 'run_1' } },
      { event: 'delta', data: { text: 'Hello' } },
      { event: 'delta', data: { text: ' world' } },
      { event: 'done', data: { output: 'Hello world', credits: 0.5 } },
    ]);
    expect(run(chatEvents('conv_1', 'run_1'), failedRun).at(-1)).to.deep.equal({
      event: 'error',
      data: { error: 'The model could not be reached' },
    });
    expect(chatEvents('c', 'r').error()).to.deep.equal([{ event: 'error', data: { error: 'The run failed' } }]);
  });

  it('HTTP API: no start; delta…, done {output, runId, credits} or error {error, runId}', () => {
    const e = httpApiEvents('run_1');
    expect(e.start).to.equal(undefined);
    expect(run(e, result())).to.deep.equal([
      { event: 'delta', data: { text: 'Hello' } },
      { event: 'delta', data: { text: ' world' } },
      { event: 'done', data: { output: 'Hello world', runId: 'run_1', credits: 0.5 } },
    ]);
    expect(run(httpApiEvents('run_1'), failedRun).at(-1)).to.deep.equal({
      event: 'error',
      data: { error: 'The model could not be reached', runId: 'run_1' },
    });
    expect(e.error()).to.deep.equal([{ event: 'error', data: { error: 'The run failed', runId: 'run_1' } }]);
  });

  it('OpenAI chat completions: role chunk, content chunks, finish chunk, usage when asked, [DONE]', () => {
    const ids = { id: 'chatcmpl-1', created: 1, model: 'agent' };
    const frames = run(chatCompletionChunks(ids, true, 'run_1'), result());
    const deltas = frames.slice(0, -2).map((f) => (f.data as any).choices[0]);
    expect(deltas.map((c) => c.delta)).to.deep.equal([
      { role: 'assistant', content: '' },
      { content: 'Hello' },
      { content: ' world' },
      {},
    ]);
    expect(deltas.at(-1).finish_reason).to.equal('stop');
    expect(frames.at(-2)!.data).to.include({ run_id: 'run_1', credits: 0.5 });
    expect(frames.at(-1)).to.deep.equal({ data: '[DONE]' });
    expect(frames.every((f) => f.event === undefined)).to.equal(true);
    const failed = run(chatCompletionChunks(ids, false, 'run_1'), failedRun).slice(-2);
    expect(failed).to.deep.equal([
      {
        data: {
          error: {
            message: 'The model could not be reached',
            type: 'server_error',
            code: 'model',
            param: null,
            run_id: 'run_1',
          },
        },
      },
      { data: '[DONE]' },
    ]);
    expect(chatCompletionChunks(ids, false, 'run_1').error()).to.deep.equal([
      {
        data: {
          error: { message: 'The run failed', type: 'server_error', code: 'run_failed', param: null, run_id: 'run_1' },
        },
      },
    ]);
  });

  it('OpenAI Responses: the semantic events in order, numbered, each sent as its type', () => {
    const state = (): ResponseState => ({
      id: 'resp_1',
      createdAt: 1,
      status: 'in_progress',
      echo: {
        model: 'agent',
        instructions: null,
        tools: [],
        toolChoice: 'auto',
        text: { format: { type: 'text' } },
        temperature: null,
        topP: null,
        maxOutputTokens: null,
        metadata: {},
      },
      previousResponseId: null,
      store: true,
      output: [],
    });
    const s = state();
    const frames = run(responseEvents(s), result());
    expect(frames.map((f) => f.event)).to.deep.equal([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(frames.map((f) => (f.data as any).sequence_number)).to.deep.equal([...frames.keys()]);
    expect(frames.every((f) => (f.data as any).type === f.event)).to.equal(true);
    expect(s.status).to.equal('completed');
    expect(run(responseEvents(state()), failedRun).at(-1)!.event).to.equal('response.failed');
    const broken = responseEvents(state());
    broken.start!();
    expect(broken.error().map((f) => f.event)).to.deep.equal(['response.failed']);
  });

  it('A2A: submitted and working, an artifact chunk per delta, the whole answer last, completed; failed; canceled', () => {
    const e = a2aTaskEvents('task_1', 'ctx_1', () => ({ answer: 42 }));
    const frames = [
      ...e.opened({
        messageId: 'm',
        contextId: 'ctx_1',
        taskId: 'task_1',
        role: 1,
        parts: [],
        metadata: {},
        extensions: [],
        referenceTaskIds: [],
      } as any),
      ...run(e, result()),
    ] as any[];
    const summary = frames.map((f) =>
      f.kind === 'statusUpdate'
        ? f.data.status.state
        : f.kind === 'artifactUpdate'
          ? `${f.data.append ? '+' : ''}${f.data.artifact.parts.map((p: any) => JSON.stringify(p.content.value)).join(',')}${f.data.lastChunk ? '!' : ''}`
          : f.kind,
    );
    expect(summary).to.deep.equal([
      'task',
      TaskState.TASK_STATE_WORKING,
      '"Hello"',
      '+" world"',
      '"Hello world",{"answer":42}!',
      TaskState.TASK_STATE_COMPLETED,
    ]);
    expect(frames[4].data.metadata).to.deep.equal({ runId: 'run_1', credits: 0.5 });
    const failed = JSON.stringify(a2aTaskEvents('t', 'c', () => undefined).end(failedRun));
    expect(failed).to.include('The model could not be reached').and.include(String(TaskState.TASK_STATE_FAILED));
    expect(JSON.stringify(e.canceled())).to.include('The task was canceled');
    expect(JSON.stringify(e.error())).to.include('The run failed');
  });

  it('MCP progress: only with a progress token, at most once per interval, counting characters; nothing at the end', () => {
    let now = 1_000;
    const p = mcpProgress('tok', 250, () => now);
    expect(p.delta('Hello')).to.deep.equal([
      {
        method: 'notifications/progress',
        params: { progressToken: 'tok', progress: 5, message: '5 characters written' },
      },
    ]);
    now += 100;
    expect(p.delta(' world')).to.deep.equal([]);
    now += 200;
    expect(p.delta('!')[0]!.params.progress).to.equal(12);
    expect(p.end(result())).to.deep.equal([]);
    expect(mcpProgress(undefined, 250, () => now).delta('Hello')).to.deep.equal([]);
  });
});
