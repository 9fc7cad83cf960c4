import { Invalid } from '../errors.js';
import type { Guardrails, RedactPreset } from '../model.js';
import type { Json } from './ports.js';

// Guardrails of DESIGN §5, applied by the run pipeline on every surface.

/** Raised when input matches a blocked pattern; surfaces answer 400 / a tool error / a chat error. */
export class GuardrailBlocked extends Invalid {
  constructor(message: string) {
    super(message, 'input');
  }
}

const PRESETS: Record<RedactPreset, RegExp> = {
  email: /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g,
  // International or North-American style numbers with at least 7 digits.
  phone: /(?<![\w+])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?)?\d{2,4}(?:[\s.-]?\d{2,4}){1,3}(?!\w)/g,
  creditCard: /(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)/g,
};
const REPLACEMENT = '[redacted]';

function compile(pattern: string): RegExp {
  return new RegExp(pattern, 'giu');
}

/** Refuses input longer than maxInputChars or matching a blocked pattern (case-insensitive). */
export function checkInput(g: Guardrails, text: string): void {
  if (g.maxInputChars != null && text.length > g.maxInputChars) {
    throw new GuardrailBlocked(`Input is ${text.length} characters; this agent accepts at most ${g.maxInputChars}`);
  }
  for (const p of g.blockedInputPatterns) {
    if (compile(p).test(text)) throw new GuardrailBlocked('Input was refused by this agent\'s guardrails (blocked content)');
  }
}

/** Whether any output redaction is configured. */
export function redacts(g: Guardrails): boolean {
  return g.redactOutputPatterns.length > 0 || g.redactPresets.length > 0;
}

/** Replaces every match of the redaction patterns and presets in a text. */
export function redactText(g: Guardrails, text: string): string {
  let out = text;
  for (const p of g.redactOutputPatterns) out = out.replace(compile(p), REPLACEMENT);
  for (const preset of g.redactPresets) {
    out = out.replace(PRESETS[preset], (m) => (preset === 'phone' && m.replace(/\D/g, '').length < 7 ? m : REPLACEMENT));
  }
  return out;
}

/** Redacts every string inside a JSON value (keys are left as they are). */
export function redactJson(g: Guardrails, value: Json): Json {
  if (!redacts(g)) return value;
  if (typeof value === 'string') return redactText(g, value);
  if (Array.isArray(value)) return value.map((v) => redactJson(g, v));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactJson(g, v)]));
  return value;
}

/**
 * Redacts a stream of text deltas. Text is released up to the last line break (patterns are matched
 * within lines), the rest when the stream ends; without redaction rules deltas pass unchanged.
 */
export class StreamRedactor {
  private pending = '';
  constructor(private readonly g: Guardrails) {}

  push(delta: string): string {
    if (!redacts(this.g)) return delta;
    this.pending += delta;
    const cut = this.pending.lastIndexOf('\n');
    if (cut < 0) return '';
    const ready = this.pending.slice(0, cut + 1);
    this.pending = this.pending.slice(cut + 1);
    return redactText(this.g, ready);
  }

  flush(): string {
    const rest = this.pending;
    this.pending = '';
    return rest ? redactText(this.g, rest) : '';
  }
}
