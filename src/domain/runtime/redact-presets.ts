import type { RedactPreset } from '../core/agent.entities.js';

// The redaction presets of DESIGN §5, each bounded by the length of the text.
//
// - email: a scanner, not a regular expression. The expression it replaces,
//   /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, rescanned a run of address characters from
//   each of its positions, so 80,000 "a"s cost 3.2 billion steps. The scanner reads each character
//   a bounded number of times and redacts exactly what the expression did.
// - phone and creditCard: expressions whose every repetition is bounded ({1,3}, {2,4}, {12,18}) and
//   whose lookaround reads one character, so each position costs a bounded number of steps. RE2
//   versions of them (lookaround replaced by matching the neighbouring character) redact the same,
//   but spend 20–200 µs per match in re2js's NFA: a text dense with numbers took 100 times longer.

export const REPLACEMENT = '[redacted]';

const code = (c: string) => c.charCodeAt(0);
const isLetter = (c: number) => (c >= code('a') && c <= code('z')) || (c >= code('A') && c <= code('Z'));
const isDigit = (c: number) => c >= code('0') && c <= code('9');
/** [A-Za-z0-9._%+-]: the characters before the @. */
const isLocal = (c: number) =>
  isLetter(c) ||
  isDigit(c) ||
  c === code('.') ||
  c === code('_') ||
  c === code('%') ||
  c === code('+') ||
  c === code('-');
/** [A-Za-z0-9.-]: the characters after the @. */
const isDomain = (c: number) => isLetter(c) || isDigit(c) || c === code('.') || c === code('-');

/**
 * The match of an address around the @ at `at`, starting no earlier than `from`: the local part is
 * the run of local characters before the @, the domain runs up to the last `.` followed by two
 * letters or more, and ends after those letters. Undefined when there is none.
 */
function addressAround(text: string, at: number, from: number): { start: number; end: number } | undefined {
  let start = at;
  while (start > from && isLocal(text.charCodeAt(start - 1))) start--;
  if (start === at) return undefined;
  let runEnd = at + 1;
  while (runEnd < text.length && isDomain(text.charCodeAt(runEnd))) runEnd++;
  // The domain holds one character at least before its last dot.
  for (let dot = runEnd - 3; dot >= at + 2; dot--) {
    if (
      text.charCodeAt(dot) !== code('.') ||
      !isLetter(text.charCodeAt(dot + 1)) ||
      !isLetter(text.charCodeAt(dot + 2))
    )
      continue;
    let end = dot + 3;
    while (end < text.length && isLetter(text.charCodeAt(end))) end++;
    return { start, end };
  }
  return undefined;
}

/** Replaces every e-mail address, as /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g did, in one pass. */
export function redactEmails(text: string): string {
  let out = '';
  let copied = 0; // the end of the last address: the next one starts at or after it
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    const address = addressAround(text, at, copied);
    if (!address) continue;
    out += text.slice(copied, address.start) + REPLACEMENT;
    copied = address.end;
    if (copied > at + 1) at = copied - 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** International or North-American style numbers, not inside a word; fewer than 7 digits are left as they are. */
const PHONE = /(?<![\w+])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?)?\d{2,4}(?:[\s.-]?\d{2,4}){1,3}(?!\w)/g;
const MIN_PHONE_DIGITS = 7;
/** 13 to 19 digits, each optionally followed by one space or dash; no digit right before or after. */
const CREDIT_CARD = /(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)/g;

export const PRESETS: Record<RedactPreset, (text: string) => string> = {
  email: redactEmails,
  phone: (text) => text.replace(PHONE, (m) => (m.replace(/\D/g, '').length < MIN_PHONE_DIGITS ? m : REPLACEMENT)),
  creditCard: (text) => text.replace(CREDIT_CARD, REPLACEMENT),
};
