import type { ModelMessage } from '../models/language-model.ports.js';
import type { RunResult } from '../runtime/run.types.js';

// A caller's conversation as the run takes it (model messages), whatever protocol it came in:
// the text the input guardrails check, and the turn a finished run adds to it.

/**
 * Everything the caller wrote in a conversation, one text: what the input guardrails check (blocked
 * patterns, maxInputChars). Every turn counts, the assistant's too: the caller sends them all.
 */
export function textOfDialogue(system: string, messages: readonly ModelMessage[]): string {
  const parts: string[] = system ? [system] : [];
  for (const m of messages) {
    if (m.role === 'user')
      parts.push(
        typeof m.content === 'string'
          ? m.content
          : m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n'),
      );
    else if (m.role === 'assistant') parts.push(m.content, ...(m.toolCalls ?? []).map((c) => c.arguments));
    else parts.push(m.content);
  }
  return parts.filter(Boolean).join('\n\n');
}

/** The turn a finished run adds to its conversation: the answer, with its tool calls. */
export function answerTurn(r: RunResult): ModelMessage {
  const text = typeof r.output === 'string' ? r.output : r.output === null ? '' : JSON.stringify(r.output);
  return { role: 'assistant', content: text, ...(r.toolCalls?.length ? { toolCalls: r.toolCalls } : {}) };
}
