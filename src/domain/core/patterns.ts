import { RE2JS, RE2JSSyntaxException } from 're2js';
import { CompileCache } from '../compile-cache.js';

// User patterns of the guardrails (DESIGN §5) run in RE2 (re2js): time linear in the text, no
// backtracking, so no pattern and no input can make a match run for seconds. RE2 has no
// backreferences and no lookaround; a pattern it cannot run is refused when it is saved.

/**
 * Largest compiled program a user pattern may have. Matching costs up to (text length × program
 * size) steps, so this bounds the constant of the linear time; 200 leaves room for phrases, word
 * lists and token shapes such as `sk-[a-z0-9]{32,64}`.
 */
export const MAX_PATTERN_PROGRAM = 200;
/** Above this estimate a pattern is refused without being compiled (compiling costs its size). */
const MAX_SIZE_ESTIMATE = 20 * MAX_PATTERN_PROGRAM;
const CACHE_SIZE = 256;

/** A pattern the engine cannot run, with the reason (client-safe). */
export class PatternRefused extends Error {}

// JavaScript's \s (Unicode white space) beyond RE2's ASCII \s: vertical tab and the Unicode spaces.
const MORE_SPACE = '\\x0b\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}';
/** JavaScript's \s as the content of an RE2 character class. */
const JS_SPACE = `\\s${MORE_SPACE}`;

/** End (exclusive) of the character class opening at `i`, RE2 rules: `[]a]` and `[^]a]` hold `]`. */
function classEnd(src: string, i: number): number {
  let j = i + 1;
  if (src[j] === '^') j++;
  if (src[j] === ']') j++;
  while (j < src.length) {
    if (src[j] === '\\') j += 2;
    else if (src.startsWith('[:', j) && src.indexOf(':]', j + 2) > 0) j = src.indexOf(':]', j + 2) + 2;
    else if (src[j] === ']') return j + 1;
    else j++;
  }
  return src.length;
}

/**
 * The pattern in RE2 syntax with JavaScript's Unicode meanings kept where they differ: `\uXXXX`
 * and `\u{X}` become `\x{X}`, and `\s` / `\S` outside a class mean Unicode white space as in
 * JavaScript (so a no-break space cannot slip a phrase past a blocked `drop\s+table`).
 */
export function toEngineSyntax(src: string): string {
  let out = '';
  let classClose = -1; // index just past the class being copied, -1 outside one
  for (let i = 0; i < src.length;) {
    if (classClose >= 0 && i >= classClose) classClose = -1;
    const c = src[i]!;
    if (c === '[' && classClose < 0) {
      classClose = classEnd(src, i);
      out += c;
      i++;
      continue;
    }
    if (c !== '\\') {
      out += c;
      i++;
      continue;
    }
    const e = src[i + 1] ?? '';
    const hex4 = /^u([0-9A-Fa-f]{4})/.exec(src.slice(i + 1, i + 6));
    const hexBraced = /^u\{([0-9A-Fa-f]{1,6})\}/.exec(src.slice(i + 1, i + 11));
    const hex = hex4 ?? hexBraced;
    if (hex) {
      out += `\\x{${hex[1]}}`;
      i += 1 + hex[0].length;
    } else if (e === 'Q') {
      const end = src.indexOf('\\E', i + 2);
      const stop = end < 0 ? src.length : end + 2;
      out += src.slice(i, stop);
      i = stop;
    } else if (e === 's') {
      out += classClose < 0 ? `[${JS_SPACE}]` : JS_SPACE;
      i += 2;
    } else if (e === 'S' && classClose < 0) {
      out += `[^${JS_SPACE}]`;
      i += 2;
    } else {
      out += src.slice(i, i + 2);
      i += 2;
    }
  }
  return out;
}

/**
 * An upper estimate of the program a pattern (RE2 syntax) compiles to, read from its text in one
 * pass: a counted repetition `{n,m}` multiplies what it repeats. It lets `(?:<long phrase>){1000}`
 * be refused without spending a second compiling half a million instructions.
 */
export function programSizeEstimate(src: string): number {
  let i = 0;
  const quantifier = (): number | null => {
    const c = src[i];
    if (c === '*' || c === '+' || c === '?') {
      i++;
      return 1;
    }
    if (c !== '{') return null;
    const q = /^\{(\d+)(?:(,)(\d*))?\}/.exec(src.slice(i, i + 40));
    if (!q) return null;
    i += q[0].length;
    const min = Number(q[1]);
    const max = q[2] ? (q[3] ? Number(q[3]) : min + 1) : min;
    return Math.max(1, min, max);
  };
  const atom = (): number => {
    const c = src[i];
    if (c === '\\' && src[i + 1] === 'Q') {
      const end = src.indexOf('\\E', i + 2);
      const stop = end < 0 ? src.length : end;
      const n = stop - (i + 2);
      i = end < 0 ? src.length : end + 2;
      return Math.max(1, n);
    }
    if (c === '\\') {
      i += 2;
      if (src[i] === '{') i = Math.max(i, src.indexOf('}', i) + 1);
      return 1;
    }
    if (c === '[') {
      i = classEnd(src, i);
      return 1;
    }
    if (c === '(') {
      i++;
      const inner = sequence();
      if (src[i] === ')') i++;
      return inner + 2;
    }
    i++;
    return 1;
  };
  const sequence = (): number => {
    let total = 0;
    while (i < src.length && src[i] !== ')') {
      if (src[i] === '|') {
        i++;
        total += 1;
        continue;
      }
      let size = atom();
      for (let q = quantifier(); q !== null; q = quantifier()) size = (size + 1) * q + 2;
      total += size;
    }
    return total;
  };
  let total = 0;
  while (i < src.length) {
    total += sequence();
    if (i < src.length) i++; // an unbalanced ')': RE2 refuses it, the estimate just goes on
  }
  return total;
}

/** Why the engine's parser refused a pattern, in words (its own text names the faulty part). */
function syntaxReason(err: RE2JSSyntaxException, source: string): string {
  const what = err.getDescription();
  const where = err.getPattern();
  // The part is quoted only when it is the user's own text (not the whole rewritten expression).
  const reason = where && source.includes(where) && where !== source ? `${what}: ${where}` : what;
  const unsupported = [
    /\\[1-9]|\\k</.test(source) && 'backreferences',
    /\(\?[=!]/.test(source) && 'lookahead',
    /\(\?<[=!]/.test(source) && 'lookbehind',
  ].filter(Boolean);
  return unsupported.length ? `${reason} (the engine supports no ${unsupported.join(' or ')})` : reason;
}

/** Compiles a user pattern; throws PatternRefused when the engine cannot run it. */
function compile(source: string, ignoreCase: boolean): RE2JS {
  const syntax = toEngineSyntax(source);
  const tooLarge = (size: string) =>
    new PatternRefused(
      `it is too large for the pattern engine (${size} steps, at most ${MAX_PATTERN_PROGRAM}): split it into shorter patterns`,
    );
  const estimate = programSizeEstimate(syntax);
  if (estimate > MAX_SIZE_ESTIMATE) throw tooLarge(`about ${estimate}`);
  let re: RE2JS;
  try {
    re = ignoreCase ? RE2JS.compile(syntax, RE2JS.CASE_INSENSITIVE) : RE2JS.compile(syntax);
  } catch (err) {
    if (err instanceof RE2JSSyntaxException) throw new PatternRefused(syntaxReason(err, source));
    throw new PatternRefused(err instanceof Error ? err.message : String(err));
  }
  if (re.programSize() > MAX_PATTERN_PROGRAM) throw tooLarge(String(re.programSize()));
  return re;
}

// Compiled patterns (or why they were refused).
const cache = new CompileCache<RE2JS, PatternRefused>(CACHE_SIZE, PatternRefused);

/**
 * The compiled form of a user pattern (Unicode; case-insensitive unless asked otherwise: guardrail
 * phrases ignore case, JSON Schema patterns do not), compiled once and cached. Throws
 * PatternRefused when the engine cannot run it.
 */
export function userPattern(source: string, { ignoreCase = true }: { ignoreCase?: boolean } = {}): RE2JS {
  return cache.get(ignoreCase ? `i:${source}` : `s:${source}`, () => compile(source, ignoreCase));
}

/** Why a user pattern cannot run in the engine, or undefined when it can. */
export function patternRefusal(source: string): string | undefined {
  try {
    userPattern(source);
    return undefined;
  } catch (err) {
    if (err instanceof PatternRefused) return err.message;
    throw err;
  }
}
