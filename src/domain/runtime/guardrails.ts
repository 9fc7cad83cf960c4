import type { RE2JS } from 're2js';
import { Invalid } from '../errors.js';
import type { Guardrails } from '../core/agent.entities.js';
import { PatternRefused, userPattern } from '../core/patterns.js';
import { PRESETS, REPLACEMENT } from './redact-presets.js';
import type { Json } from '../json.js';

// Guardrails of DESIGN §5, applied by the run pipeline on every surface. Users' patterns run in RE2
// (linear time, ./patterns.ts) and the presets are bounded matchers (./redact-presets.ts): no text
// and no pattern can make a blocked check or a redaction backtrack for seconds.

/** Raised when input matches a blocked pattern; surfaces answer 400 / a tool error / a chat error. */
export class GuardrailBlocked extends Invalid {
  constructor(
    message: string,
    /** The guardrail that refused, by its field name on the agent. */
    readonly guardrail: 'maxInputChars' | 'blockedInputPatterns',
  ) {
    super(message, 'input');
  }
}

/** Replaces every match of a compiled pattern; the boolean check runs first, on the engine's fast path. */
function replaceAll(re: RE2JS, text: string): string {
  return re.test(text) ? re.matcher(text).replaceAll(REPLACEMENT) : text;
}

/** Whether a blocked pattern matches; one the engine cannot run (saved before it was checked) blocks everything. */
function blocks(pattern: string, text: string): boolean {
  try {
    return userPattern(pattern).test(text);
  } catch (err) {
    if (err instanceof PatternRefused)
      throw new GuardrailBlocked(
        "Input was refused: one of this agent's blocked patterns cannot run; a member must update its guardrails",
        'blockedInputPatterns',
      );
    throw err;
  }
}

/** Redacts the matches of a user pattern; one the engine cannot run (saved before it was checked) redacts the whole text. */
function redactPattern(pattern: string, text: string): string {
  let re: RE2JS;
  try {
    re = userPattern(pattern);
  } catch (err) {
    if (err instanceof PatternRefused) return REPLACEMENT;
    throw err;
  }
  return replaceAll(re, text);
}

/** Whether any input guardrail is configured (without one, `checkInput` passes every text). */
export function checksInput(g: Guardrails): boolean {
  return g.maxInputChars != null || g.blockedInputPatterns.length > 0;
}

/** Refuses input longer than maxInputChars or matching a blocked pattern (case-insensitive). */
export function checkInput(g: Guardrails, text: string): void {
  if (g.maxInputChars != null && text.length > g.maxInputChars) {
    throw new GuardrailBlocked(
      `Input is ${text.length} characters; this agent accepts at most ${g.maxInputChars} (guardrail maxInputChars)`,
      'maxInputChars',
    );
  }
  for (const p of g.blockedInputPatterns) {
    if (blocks(p, text))
      throw new GuardrailBlocked(
        "Input was refused by this agent's guardrails (blocked content)",
        'blockedInputPatterns',
      );
  }
}

/** Whether any output redaction is configured. */
export function redacts(g: Guardrails): boolean {
  return g.redactOutputPatterns.length > 0 || g.redactPresets.length > 0;
}

/** Replaces every match of the redaction patterns and presets in a text. */
export function redactText(g: Guardrails, text: string): string {
  let out = text;
  for (const p of g.redactOutputPatterns) out = redactPattern(p, out);
  for (const preset of g.redactPresets) out = PRESETS[preset](out);
  return out;
}

/** Redacts every string inside a JSON value (keys are left as they are). */
export function redactJson(g: Guardrails, value: Json): Json {
  if (!redacts(g)) return value;
  if (typeof value === 'string') return redactText(g, value);
  if (Array.isArray(value)) return value.map((v) => redactJson(g, v));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactJson(g, v)]));
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
