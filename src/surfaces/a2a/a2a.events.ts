import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Artifact, type Message, type Part } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutionEvent } from '@a2a-js/sdk/server';
import type { RunResult } from '../../domain/runtime/run.types.js';
import type { RunEventEncoder } from '../shared/run-events.js';

/** The one artifact a task's answer is. */
const ANSWER = 'answer';

const text = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: {},
  filename: '',
  mediaType: 'text/plain',
});
const data = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: {},
  filename: '',
  mediaType: 'application/json',
});

function agentMessage(taskId: string, contextId: string, parts: Part[]): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

function answer(parts: Part[]): Artifact {
  return { artifactId: ANSWER, name: ANSWER, description: '', parts, metadata: {}, extensions: [] };
}

/** A task's events besides the run's: the task opening, and its cancellation. */
export interface A2aTaskEncoder extends RunEventEncoder<AgentExecutionEvent> {
  /** The task `submitted` with the caller's message, then `working`. */
  opened(userMessage: Message): AgentExecutionEvent[];
  /** The task `canceled` (a CancelTask reached its run). */
  canceled(): AgentExecutionEvent[];
}

/**
 * A message's run as an A2A task's events: `submitted` → `working` → the answer as the `answer`
 * artifact, a chunk per delta → the last chunk holding the whole answer (text, and the structured
 * output as a data part when the tool has one) → `completed`; or `failed` with the run's error
 * (`error`: "The run failed"), or `canceled`. `structuredOf` is the tool's structured output of a
 * result, if any.
 */
export function a2aTaskEvents(
  taskId: string,
  contextId: string,
  structuredOf: (r: RunResult) => unknown,
): A2aTaskEncoder {
  let chunks = 0;
  const status = (state: TaskState, message?: Message) =>
    AgentEvent.statusUpdate({
      taskId,
      contextId,
      status: { state, message, timestamp: new Date().toISOString() },
      metadata: {},
    });
  const failed = (message: string) => [
    status(TaskState.TASK_STATE_FAILED, agentMessage(taskId, contextId, [text(message)])),
  ];
  return {
    opened: (userMessage) => [
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [userMessage],
        metadata: {},
      }),
      status(TaskState.TASK_STATE_WORKING),
    ],
    delta: (value) => [
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: answer([text(value)]),
        append: chunks++ > 0,
        lastChunk: false,
        metadata: {},
      }),
    ],
    end(r) {
      if (r.error) return failed(r.error.message);
      // A call waiting for a person (issue 54): an interrupted state; the approval is decided elsewhere.
      if (r.approval) {
        const { id, toolName, expiresAt } = r.approval;
        const parts = [text(String(r.output)), data({ approvalId: id, toolName, expiresAt: expiresAt.toISOString() })];
        return [status(TaskState.TASK_STATE_INPUT_REQUIRED, agentMessage(taskId, contextId, parts))];
      }
      const structured = structuredOf(r);
      const output = typeof r.output === 'string' ? r.output : JSON.stringify(r.output);
      // The last chunk holds the whole answer: a client that kept no chunk still has it.
      const parts = structured ? [text(output), data(structured)] : [text(output)];
      return [
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: answer(parts),
          append: false,
          lastChunk: true,
          metadata: { runId: r.runId, credits: r.credits },
        }),
        status(TaskState.TASK_STATE_COMPLETED),
      ];
    },
    error: () => failed('The run failed'),
    canceled: () => [
      status(TaskState.TASK_STATE_CANCELED, agentMessage(taskId, contextId, [text('The task was canceled')])),
    ],
  };
}
