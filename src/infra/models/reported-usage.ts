import type { ModelUsage } from '../../domain/models/language-model.ports.js';

/**
 * The usage a provider's raw stream chunk reports, if any, so that a stream that breaks off after
 * it is charged what the provider counted: OpenAI's chat chunks (and compatible servers') carry it in
 * `usage`, normally on the last chunk before `[DONE]`; Anthropic's `message_start` carries the input
 * tokens and each `message_delta` the output tokens so far.
 */
export function reportedUsage(raw: unknown): Partial<ModelUsage> | null {
  if (!isRecord(raw)) return null;
  if (raw.type === 'message_start') {
    const u = isRecord(raw.message) ? raw.message.usage : undefined;
    if (!isRecord(u) || !isCount(u.input_tokens)) return null;
    // Anthropic counts cache writes and reads apart from `input_tokens`; all are input the SDK counts.
    return { inputTokens: u.input_tokens + count(u.cache_creation_input_tokens) + count(u.cache_read_input_tokens) };
  }
  if (raw.type === 'message_delta') {
    const u = raw.usage;
    return isRecord(u) && isCount(u.output_tokens) ? { outputTokens: u.output_tokens } : null;
  }
  const u = raw.usage;
  if (!isRecord(u)) return null;
  const usage: Partial<ModelUsage> = {};
  if (isCount(u.prompt_tokens)) usage.inputTokens = u.prompt_tokens;
  if (isCount(u.completion_tokens)) usage.outputTokens = u.completion_tokens;
  return usage.inputTokens === undefined && usage.outputTokens === undefined ? null : usage;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}

function count(v: unknown): number {
  return isCount(v) ? v : 0;
}

export function sumUsage(list: { inputTokens?: number; outputTokens?: number }[]): ModelUsage {
  return list.reduce<ModelUsage>(
    (acc, u) => ({
      inputTokens: acc.inputTokens + (u.inputTokens ?? 0),
      outputTokens: acc.outputTokens + (u.outputTokens ?? 0),
    }),
    {
      inputTokens: 0,
      outputTokens: 0,
    },
  );
}

/** The figures of a step's usage the provider reported (the SDK leaves the others undefined). */
export function reportedOf(u: { inputTokens?: number; outputTokens?: number }): Partial<ModelUsage> {
  const out: Partial<ModelUsage> = {};
  if (u.inputTokens !== undefined) out.inputTokens = u.inputTokens;
  if (u.outputTokens !== undefined) out.outputTokens = u.outputTokens;
  return out;
}
