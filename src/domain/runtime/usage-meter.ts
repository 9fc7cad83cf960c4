import type { ModelCall, ModelMessage, ModelUsage, UsageReport } from '../models/language-model.ports.js';

// What a model call used, as far as it is known when it ends — normally, by the caller going away, or
// by a provider failure (docs/runtime.md "What an aborted or failed run is charged"). A step the
// provider finished is counted as it reported it; the step it was still answering, from what it
// reported so far, else estimated: its prompt's characters / 4 and its streamed output's / 4.

/** Characters per token of the estimate (the usual rule of thumb for English text and JSON). */
export const CHARS_PER_TOKEN = 4;
/** What one image part of a prompt counts for, in characters (about 1,000 tokens). */
export const IMAGE_CHARS = 4_000;

/** Tokens estimated for a number of characters (a started token counts whole). */
export function tokensOf(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** The characters of a model call's prompt: its system text, conversation and tool definitions. */
export function promptChars(call: Pick<ModelCall, 'system' | 'messages' | 'tools'>): number {
  let chars = call.system.length;
  for (const m of call.messages) chars += messageChars(m);
  for (const t of call.tools) chars += t.name.length + t.description.length + JSON.stringify(t.inputSchema).length;
  return chars;
}

function messageChars(m: ModelMessage): number {
  if (m.role === 'tool') return m.toolName.length + m.content.length;
  if (m.role === 'assistant')
    return m.content.length + (m.toolCalls ?? []).reduce((n, c) => n + c.name.length + c.arguments.length, 0);
  if (typeof m.content === 'string') return m.content.length;
  return m.content.reduce((n, p) => n + (p.type === 'text' ? p.text.length : IMAGE_CHARS), 0);
}

/** The step the provider is answering: the prompt it was sent, the output streamed, usage reported so far. */
interface OpenStep {
  promptChars: number;
  outputChars: number;
  inputTokens?: number;
  outputTokens?: number;
}

/**
 * Counts a model call's usage step by step as the adapter reports it. `used()` is what the call is
 * charged: the finished steps plus the open one, at any moment — also after an abort or a failure.
 */
export class UsageMeter implements UsageReport {
  private readonly finished: ModelUsage = { inputTokens: 0, outputTokens: 0 };
  /** The characters the next step's prompt has: the call's prompt, earlier steps' output and tool results. */
  private contextChars: number;
  private open: OpenStep | null = null;

  constructor(initialPromptChars: number) {
    this.contextChars = initialPromptChars;
  }

  stepStarted(): void {
    this.open = { promptChars: this.contextChars, outputChars: 0 };
  }

  output(chars: number): void {
    if (this.open) this.open.outputChars += chars;
  }

  reported(usage: Partial<ModelUsage>): void {
    if (!this.open) return;
    if (usage.inputTokens !== undefined) this.open.inputTokens = usage.inputTokens;
    if (usage.outputTokens !== undefined) this.open.outputTokens = usage.outputTokens;
  }

  toolResult(chars: number): void {
    this.contextChars += chars;
  }

  stepFinished(usage: Partial<ModelUsage>): void {
    if (!this.open) this.stepStarted();
    const step = this.open!;
    this.reported(usage);
    const counted = countOf(step);
    this.finished.inputTokens += counted.inputTokens;
    this.finished.outputTokens += counted.outputTokens;
    this.contextChars += step.outputChars;
    this.open = null;
  }

  /** The usage to charge now: the finished steps' and the open step's. */
  used(): ModelUsage {
    if (!this.open) return { ...this.finished };
    const open = countOf(this.open);
    return {
      inputTokens: this.finished.inputTokens + open.inputTokens,
      outputTokens: this.finished.outputTokens + open.outputTokens,
    };
  }
}

/** A step's usage: each figure as the provider reported it, else estimated from its characters. */
function countOf(step: OpenStep): ModelUsage {
  return {
    inputTokens: step.inputTokens ?? tokensOf(step.promptChars),
    outputTokens: step.outputTokens ?? tokensOf(step.outputChars),
  };
}
