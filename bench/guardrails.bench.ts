// Guardrail patterns: how long redacting a large output and checking a hostile input take on the
// calling thread (the event loop), now that users' patterns run in RE2 (linear time) and the presets
// are bounded matchers. Run: `npm run bench -- guardrails`. The two reproductions of the security
// issue have targets (< 100 ms): redacting 80,000 "a"s with each preset (the backtracking email
// preset took 3.4–9.4 s) and a blocked `(a+)+$` on 28 "a"s and a "!" (15 s); so do the costliest
// inputs found for each preset. A missed target is printed and makes the benchmark exit non-zero.
// The last two rows have no target: they are the bound a member's own pattern can reach, the
// largest pattern allowed, written to defeat the engine's fast path, on a text built against it.
import { DEFAULT_GUARDRAILS } from '../src/domain/agents/agent.schemas.js';
import type { Guardrails, RedactPreset } from '../src/domain/core/agent.entities.js';
import { checkInput, GuardrailBlocked, redactText } from '../src/domain/runtime/guardrails.js';
import { patternRefusal, userPattern } from '../src/domain/core/patterns.js';

const SIZE = 80_000;
const TIMES = Number(process.env.BENCH_RUNS ?? 7);
const TARGET_MS = 100;

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const g = (over: Partial<Guardrails>): Guardrails => ({ ...DEFAULT_GUARDRAILS, ...over });
const fill = (unit: string, tail = '') =>
  unit.repeat(Math.ceil((SIZE - tail.length) / unit.length)).slice(0, SIZE - tail.length) + tail;

/** Median wall time of `fn` in ms, after one warm-up call (compiles, JIT). */
function median(fn: () => void): number {
  fn();
  const ms: number[] = [];
  for (let i = 0; i < TIMES; i++) {
    const t = performance.now();
    fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return round(ms[Math.floor(ms.length / 2)]!, 2);
}

/** Whether checkInput refuses the text. */
function blocked(rules: Guardrails, text: string): boolean {
  try {
    checkInput(rules, text);
    return false;
  } catch (err) {
    if (err instanceof GuardrailBlocked) return true;
    throw err;
  }
}

// A text of random "a"/"b" defeats the lazy DFA of `a[ab]{K}c` (2^K states), so the engine falls
// back to its NFA: the slowest path, (text length × program size).
let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const randomAb = Array.from({ length: SIZE - 1 }, () => (random() < 0.5 ? 'a' : 'b')).join('');
let k = 1;
while (patternRefusal(`a[ab]{${k + 1}}c`) === undefined) k++;
const atLimit = `a[ab]{${k}}c`;

interface Row {
  case: string;
  chars: number;
  'ms (median)': number;
  target: string;
}
const rows: Row[] = [];
const missed: string[] = [];
function measure(name: string, text: string, fn: (text: string) => void, withTarget: boolean): void {
  const ms = median(() => fn(text));
  rows.push({ case: name, chars: text.length, 'ms (median)': ms, target: withTarget ? `< ${TARGET_MS}` : '' });
  if (withTarget && ms >= TARGET_MS) missed.push(`${name}: ${ms} ms, target < ${TARGET_MS} ms`);
}
const redactWith = (preset: RedactPreset) => (text: string) => void redactText(g({ redactPresets: [preset] }), text);

// The reproductions.
const as = 'a'.repeat(SIZE);
for (const preset of ['email', 'phone', 'creditCard'] as const)
  measure(`${preset} preset, 80,000 "a"s`, as, redactWith(preset), true);
const redos = g({ blockedInputPatterns: ['(a+)+$'] });
measure(
  'blocked (a+)+$, 28 "a"s + "!"',
  `${'a'.repeat(28)}!`,
  (t) => {
    if (blocked(redos, t)) throw new Error('(a+)+$ must not match');
  },
  true,
);

// The costliest inputs found for each preset (dense matches; one long run; digits everywhere).
measure('email preset, "a@a." repeated', fill('a@a.'), redactWith('email'), true);
measure('email preset, "a@b.co " repeated', fill('a@b.co '), redactWith('email'), true);
measure('email preset, "a"s then one address', fill('a', ' x@example.org'), redactWith('email'), true);
measure('phone preset, digits then one number', fill('1', ' 555 123 4567'), redactWith('phone'), true);
measure('phone preset, "12 " repeated', fill('12 '), redactWith('phone'), true);
measure('creditCard preset, "1 " repeated', fill('1 '), redactWith('creditCard'), true);
measure(
  'all presets, prose with numbers and addresses',
  fill('call 555 123 4567 or mail ann@example.org, card 4111 1111 1111 1111; '),
  (t) => {
    redactText(g({ redactPresets: ['email', 'phone', 'creditCard'] }), t);
  },
  true,
);
measure('blocked (a+)+$, 80,000 "a"s + "!"', `${'a'.repeat(SIZE - 1)}!`, (t) => void blocked(redos, t), true);

// The bound of a member's own pattern: the largest one allowed, made to defeat the DFA.
measure(
  `blocked ${atLimit} (${userPattern(atLimit).programSize()} steps), random a/b`,
  randomAb,
  (t) => void blocked(g({ blockedInputPatterns: [atLimit] }), t),
  false,
);
measure(
  `redaction ${atLimit}, random a/b + "c"`,
  `${randomAb}c`,
  (t) => void redactText(g({ redactOutputPatterns: [atLimit] }), t),
  false,
);

console.log(`Guardrail patterns on the calling thread; medians of ${TIMES} runs; target < ${TARGET_MS} ms where given`);
console.table(rows);
if (missed.length) {
  console.log(`Missed targets:\n  ${missed.join('\n  ')}`);
  process.exitCode = 1;
}
