import { expect } from 'chai';
import { jsonSyntaxError, malformedJsonMessage, quotingHint } from '../../src/rest/json-syntax.js';

// The position a malformed body is refused at comes from a small scanner of its own (V8's messages
// differ between Node versions and often give none). It must agree with JSON.parse on what is JSON.

/** A deterministic PRNG (mulberry32), so a failure can be replayed. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const parses = (s: string) => {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
};

describe('JSON syntax errors of request bodies', () => {
  it('agrees with JSON.parse on valid bodies and on every one-character edit of them', () => {
    const valid = [
      '{"query": "{ viewer { id } }", "variables": {"a": [1, -2.5e3, true, false, null, "x\\u00e9\\n"]}}',
      ' [ ] ',
      '{"a":{"b":[{"c":[[]]}]}}',
      '0',
      '"\\"\\\\\\/\\b\\f\\n\\r\\t"',
    ];
    const alphabet = [
      '{',
      '}',
      '[',
      ']',
      '"',
      "'",
      '\\',
      ',',
      ':',
      ' ',
      '1',
      '0',
      '-',
      '.',
      'e',
      't',
      'n',
      'x',
      '\u0001',
      '\n',
    ];
    const rnd = prng(32);
    let checked = 0;
    for (const base of valid) {
      expect(jsonSyntaxError(base), base).to.equal(null);
      for (let i = 0; i <= base.length; i++) {
        for (let k = 0; k < 6; k++) {
          const c = alphabet[Math.floor(rnd() * alphabet.length)]!;
          const edits = [
            base.slice(0, i) + c + base.slice(i),
            base.slice(0, i) + c + base.slice(i + 1),
            base.slice(0, i) + base.slice(i + 1),
          ];
          for (const s of edits) {
            expect(jsonSyntaxError(s) === null, JSON.stringify(s)).to.equal(parses(s));
            checked++;
          }
        }
      }
    }
    expect(checked).to.be.greaterThan(1000);
  });

  it('scans a body nested 100,000 levels deep without exhausting the stack', () => {
    expect(jsonSyntaxError('['.repeat(100_000) + ']'.repeat(100_000))).to.equal(null);
    expect(jsonSyntaxError('['.repeat(100_000))).to.deep.equal({ offset: 100_000, expected: 'a JSON value' });
  });

  it('names line, column and the cause of a shell-escaped body', () => {
    const msg = malformedJsonMessage('{\\"query\\": \\"{ viewer { id } }\\"}');
    expect(msg).to.match(
      /^Malformed JSON body at line 1, column 2 \(character 2\): expected a property name in double quotes, found a backslash\. /,
    );
    expect(msg).to.match(/shell/);
    expect(malformedJsonMessage("{\n  'query': 1}")).to.match(
      /^Malformed JSON body at line 2, column 3 \(character 5\): expected a property name in double quotes, found a single quote\. .*double quotes, not single quotes/,
    );
    expect(malformedJsonMessage('{"query": ')).to.match(
      /^Malformed JSON body at line 1, column 11 \(character 11\): expected a JSON value, but the body ends there\./,
    );
  });

  it('says that quotes inside a JSON string are written \\"…\\" when a GraphQL string ended the JSON one early', () => {
    const hintOf = (text: string) => quotingHint(text, jsonSyntaxError(text)!);
    const unescaped = '{"query": "mutation { createAgent(input: {name: "My agent"}) { id } }"}';
    expect(hintOf(unescaped)).to.equal('innerQuotes');
    expect(hintOf('{"query": "{ a(name: " x") }"}')).to.equal('innerQuotes');
    expect(hintOf('["a"b"]')).to.equal('innerQuotes');
    const msg = malformedJsonMessage(unescaped);
    expect(msg).to.match(/^Malformed JSON body at line 1, column 50 \(character 50\): expected ',' or '}', found M\. /);
    expect(msg).to.include('write the quotes inside it as \\"…\\"').and.not.include('-d ');
    // The other causes keep their hints: shell escapes, single quotes, a missing comma between members.
    expect(hintOf('{\\"query\\": 1}')).to.equal('shellEscapes');
    expect(hintOf("{'query': 1}")).to.equal('singleQuotes');
    expect(hintOf('{"a": "x" "b": 1}')).to.equal('shellQuotes');
    expect(hintOf('{"a": 1 x}')).to.equal('shellQuotes');
    expect(hintOf('{"a" "b"}')).to.equal('shellQuotes');
  });
});
