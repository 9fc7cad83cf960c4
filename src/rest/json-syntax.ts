// What a client is told about a request body that is not JSON: where it stops being JSON and the
// usual cause. V8's own messages differ between Node versions and do not always give a position,
// so the position comes from the small scanner below (it only finds the first error; JSON.parse
// still does the parsing).

/** The first syntax error of `text` as JSON: its offset and what was expected there; null when it is JSON. */
export function jsonSyntaxError(text: string): { offset: number; expected: string } | null {
  let i = 0;
  const n = text.length;
  const ws = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  // What each open container expects next; iterative so that deep nesting cannot exhaust the stack.
  const stack: ('array' | 'object')[] = [];
  const fail = (expected: string) => ({ offset: i, expected });

  const string = (): boolean => {
    i++; // the opening quote
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return false;
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else {
          i++;
          return false;
        }
      } else i++;
    }
    return false;
  };
  const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

  /** One scalar or the start of a container; false on an error at `i`. */
  const value = (): boolean => {
    const c = text[i];
    if (c === '{' || c === '[') {
      stack.push(c === '{' ? 'object' : 'array');
      i++;
      return true;
    }
    if (c === '"') return string();
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return true;
      }
    }
    NUMBER.lastIndex = i;
    if (NUMBER.test(text)) {
      i = NUMBER.lastIndex;
      return true;
    }
    return false;
  };

  ws();
  if (!value()) return fail('a JSON value');
  // `fresh`: the container at the top of the stack was just opened (no member yet).
  let fresh = stack.length > 0;
  while (stack.length > 0) {
    ws();
    const top = stack[stack.length - 1]!;
    const close = top === 'object' ? '}' : ']';
    if (text[i] === close) {
      stack.pop();
      i++;
      fresh = false;
      continue;
    }
    if (!fresh) {
      if (text[i] !== ',') return fail(`',' or '${close}'`);
      i++;
      ws();
    }
    if (top === 'object') {
      if (text[i] !== '"' || !string()) return fail('a property name in double quotes');
      ws();
      if (text[i] !== ':') return fail("':'");
      i++;
      ws();
    }
    const depth = stack.length;
    if (!value()) return fail('a JSON value');
    fresh = stack.length > depth;
  }
  ws();
  return i < n ? fail('the end of the body') : null;
}

/** Line and column (both from 1) of an offset. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** The usual causes of a syntax error, each with what to do (see `quotingHint`). */
export const QUOTING_HINTS = {
  shellEscapes:
    'A backslash before a quote outside a string usually means the shell passed its escapes through: in a shell, put the whole body in single quotes without escaping the double quotes inside, e.g. -d \'{"query": "{ viewer { id } }"}\'',
  singleQuotes:
    'JSON strings and property names take double quotes, not single quotes; in a shell, put the whole body in single quotes: -d \'{"query": "…"}\'',
  innerQuotes:
    'A double quote inside a JSON string ends that string: write the quotes inside it as \\"…\\", e.g. {"query": "mutation { createAgent(input: {name: \\"My agent\\"}) { id } }"}',
  shellQuotes:
    'Check the quotes: in a shell, put the whole body in single quotes so that the shell leaves its double quotes alone: -d \'{"query": "…"}\'',
} as const;

/**
 * Which cause a syntax error most likely has. A backslash before a quote outside a string, or single
 * quotes, most often come from shell quoting: the body was escaped for one shell and sent by
 * another. A string followed by more text where a `,` or the container's end belongs is a string
 * that ended early: a GraphQL string inside the JSON string whose quotes were not escaped.
 */
export function quotingHint(text: string, err: { offset: number; expected: string }): keyof typeof QUOTING_HINTS {
  const near = text.slice(Math.max(0, err.offset - 2), err.offset + 2);
  if (near.includes('\\')) return 'shellEscapes';
  if (near.includes("'")) return 'singleQuotes';
  const before = text.slice(0, err.offset).trimEnd();
  const at = text[err.offset];
  if (err.expected.startsWith("','") && before.endsWith('"') && at !== undefined && at !== '"') return 'innerQuotes';
  return 'shellQuotes';
}

/** The 400 message of a body that is not JSON: where it stops being JSON, what was expected there, and the usual cause. */
export function malformedJsonMessage(text: string): string {
  const err = jsonSyntaxError(text);
  if (!err) return 'Malformed JSON body';
  const { line, column } = lineColumn(text, err.offset);
  const found = foundAt(text, err.offset);
  const hint = QUOTING_HINTS[quotingHint(text, err)];
  return `Malformed JSON body at line ${line}, column ${column} (character ${err.offset + 1}): expected ${err.expected}, ${found}. ${hint}`;
}

/** What stands at the error, named so that it survives being quoted in a JSON answer. */
function foundAt(text: string, offset: number): string {
  const c = text.codePointAt(offset);
  if (c === undefined) return 'but the body ends there';
  if (c === 0x5c) return 'found a backslash';
  if (c === 0x27) return 'found a single quote';
  if (c === 0x22) return 'found a double quote';
  if (c > 0x20 && c < 0x7f) return `found ${String.fromCodePoint(c)}`;
  return `found the character U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
}
