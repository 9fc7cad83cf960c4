import { DomainError } from '../errors.js';
import type { ModelMessage, ToolDefinition } from '../models/language-model.ports.js';
import type { RunResume } from './approval-gate.ports.js';

/**
 * The conversation a paused run continues with: the stored turns, the decided call's result (the
 * tool's own when approved, a refusal by a person otherwise) and, for other calls of the same turn
 * that never ran, a result saying so (every call of a turn needs its result before the model goes on).
 */
export async function resumedMessages(resume: RunResume, tools: ToolDefinition[]): Promise<ModelMessage[]> {
  const { call, decision } = resume;
  const content = decision.approved
    ? await runApproved(call.name, call.arguments, call.id, tools)
    : {
        error: decision.expired
          ? 'Nobody approved this call in time; it was not run'
          : 'A person refused this call; it was not run',
        ...(decision.reason ? { reason: decision.reason } : {}),
      };
  const messages = [...resume.messages, toolResult(call.id, call.name, content)];
  const answered = new Set(messages.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])));
  const last = [...resume.messages].reverse().find((m) => m.role === 'assistant');
  for (const c of last?.role === 'assistant' ? (last.toolCalls ?? []) : [])
    if (!answered.has(c.id))
      messages.push(
        toolResult(c.id, c.name, { error: 'Not run: another call of this turn waited for approval; call it again' }),
      );
  return messages;
}

function toolResult(id: string, name: string, content: unknown): ModelMessage {
  return { role: 'tool', toolCallId: id, toolName: name, content: JSON.stringify(content) };
}

/** Runs the approved call with its stored arguments: refusals are the model's to read, internals stay hidden. */
async function runApproved(name: string, args: string, id: string, tools: ToolDefinition[]): Promise<unknown> {
  const tool = tools.find((t) => t.name === name);
  if (!tool?.execute) return { error: `The tool ${name} is no longer available to this agent; it was not run` };
  let parsed: Record<string, unknown>;
  try {
    const v: unknown = JSON.parse(args);
    parsed = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return { error: 'The call’s arguments were not JSON; it was not run' };
  }
  try {
    return await tool.execute(parsed, undefined, id);
  } catch (err) {
    if (err instanceof DomainError) return { error: err.message, code: err.code };
    return { error: 'The tool failed unexpectedly' };
  }
}
