import { expect } from 'chai';
import type { Guardrails } from '../../src/domain/core/agent.entities.js';
import { checkInput, GuardrailBlocked } from '../../src/domain/runtime/guardrails.js';
import { patternRefusal, userPattern } from '../../src/domain/core/patterns.js';
import { DEFAULT_GUARDRAILS } from '../../src/domain/agents/agent.schemas.js';

// What a user's pattern (a guardrail's blocked pattern, a JSON Schema `pattern`) matches and which
// patterns are refused when saved, with which words. Patterns keep their JavaScript meaning where
// RE2's differs (\s is Unicode white space), and RE2's class syntax is read as RE2 reads it.

const blocking = (pattern: string): Guardrails => ({ ...DEFAULT_GUARDRAILS, blockedInputPatterns: [pattern] });
const blocks = (pattern: string, text: string): boolean => {
  try {
    checkInput(blocking(pattern), text);
    return false;
  } catch (err) {
    if (err instanceof GuardrailBlocked) return true;
    throw err;
  }
};
/** JSON Schema reading: case-sensitive. */
const matches = (pattern: string, text: string): boolean => userPattern(pattern, { ignoreCase: false }).test(text);

describe('user patterns: what they match', () => {
  it('a blocked `drop\\s+table` blocks "drop table" written with a no-break space, and `\\S` still matches any other character', () => {
    expect(blocks('drop\\s+table', 'DROP\u00a0TABLE')).to.equal(true);
    expect(blocks('drop\\s+table', 'drop\u3000\u2028table')).to.equal(true);
    expect(blocks('drop\\Stable', 'drop-table')).to.equal(true);
    expect(blocks('drop\\Stable', 'drop\u00a0table')).to.equal(false);
    expect(matches('^\\S+$', 'a\u00a0b')).to.equal(false);
    expect(matches('^\\S+$', 'a-b')).to.equal(true);
  });

  it('other escapes keep their meaning: \\d is a digit, not "anything but a space"', () => {
    expect(matches('^\\d+$', '2024')).to.equal(true);
    expect(matches('^\\d+$', 'abcd')).to.equal(false);
    expect(matches('^a\\.b$', 'a.b')).to.equal(true);
    expect(matches('^a\\.b$', 'axb')).to.equal(false);
  });

  it("\\s inside a class is Unicode white space too, next to the class's other members", () => {
    expect(blocks('[\\s]', 'a\u00a0b')).to.equal(true);
    expect(blocks('x[-\\s]y', 'x\u00a0y')).to.equal(true);
    expect(blocks('x[-\\s]y', 'x-y')).to.equal(true);
    expect(matches('^a[,;\\s]+b$', 'a,\u00a0;b')).to.equal(true);
  });

  it('a \\s right after a class is Unicode white space (the class ends at its own `]`)', () => {
    expect(blocks('x[ab]\\s+y', 'xa\u00a0y')).to.equal(true);
    expect(blocks('x[ab]\\s+y', 'xa y')).to.equal(true);
    expect(blocks('x[a]\\sy', 'xa y')).to.equal(true);
  });

  it('a `]` first in a class is a member: `[]\\s]` and `[^]\\s]` hold `]` and the spaces', () => {
    expect(matches('x[]\\s]y', 'x]y')).to.equal(true);
    expect(matches('x[]\\s]y', 'x\u00a0y')).to.equal(true);
    expect(matches('x[^]\\s]y', 'xay')).to.equal(true);
    expect(matches('x[^]\\s]y', 'x]y')).to.equal(false);
    expect(matches('x[^]\\s]y', 'x\u00a0y')).to.equal(false);
  });

  it('an escaped `\\]` does not end a class', () => {
    expect(matches('x[\\]\\s]y', 'x]y')).to.equal(true);
    expect(matches('x[\\]\\s]y', 'x\u00a0y')).to.equal(true);
    expect(matches('x[\\]\\s]y', 'x]]y')).to.equal(false);
  });

  it('a POSIX class such as [[:alpha:]] sits inside a class without ending it', () => {
    expect(matches('^[[:alpha:]\\s]+$', 'ab\u00a0c d')).to.equal(true);
    expect(matches('^[[:alpha:]\\s]+$', 'ab1')).to.equal(false);
    expect(matches('^[[:digit:][:alpha:]]+$', 'a1b2')).to.equal(true);
  });

  it('a `[:` that opens no POSIX class is just two members: `[:;]\\s:]` is a smiley after a space', () => {
    expect(blocks('[:;]\\s:]', 'ha ; :] ok')).to.equal(true);
    expect(blocks('[:;]\\s:]', 'ha :\u00a0:]')).to.equal(true);
    expect(blocks('[:;]\\s:]', 'ha ;:] ok')).to.equal(false);
    expect(matches('^[[:;]+$', '[:;')).to.equal(true);
  });

  it('text between \\Q and \\E is literal, backslashes and brackets included', () => {
    expect(blocks('\\Qcost\\s[usd]\\E', 'the cost\\s[usd] line')).to.equal(true);
    expect(blocks('\\Qcost\\s[usd]\\E', 'the cost [usd] line')).to.equal(false);
    // Without \E the quote runs to the end of the pattern.
    expect(blocks('\\Qc:\\s[x]', 'at c:\\s[x]')).to.equal(true);
    expect(blocks('say \\Qc:\\s[x]', 'say c:\\s[x]')).to.equal(true);
    // Two quoted parts in a row.
    expect(matches('^\\Qa.\\E\\Q*b\\E$', 'a.*b')).to.equal(true);
    expect(matches('^\\Qa.\\E\\Q*b\\E$', 'ax*b')).to.equal(false);
  });

  it('\\uXXXX and \\u{X} escapes name the character they name in JavaScript', () => {
    expect(blocks('caf\\u00e9', 'CAFÉ')).to.equal(true);
    expect(blocks('\\u{1F600}\\s', 'hi 😀\u00a0')).to.equal(true);
    expect(blocks('\\u{1F600}', 'hi 😁')).to.equal(false);
  });

  it('braces that are no counted repetition are literal text, not an error', () => {
    expect(patternRefusal('{"a": 1}')).to.equal(undefined);
    expect(blocks('{"role": *"system"}', 'x {"role": "system"} y')).to.equal(true);
    expect(patternRefusal('a{x}')).to.equal(undefined);
    expect(matches('^a{x}$', 'a{x}')).to.equal(true);
  });

  it('guardrail patterns ignore case and JSON Schema patterns do not, whichever was compiled first', () => {
    expect(matches('Case-Rule', 'case-rule')).to.equal(false);
    expect(blocks('Case-Rule', 'case-rule')).to.equal(true);
    expect(blocks('Other-Rule', 'OTHER-RULE')).to.equal(true);
    expect(matches('Other-Rule', 'OTHER-RULE')).to.equal(false);
    // Each pattern is its own: a second guardrail phrase does not answer with the first one.
    expect(blocks('first-phrase', 'second-phrase')).to.equal(false);
    expect(blocks('second-phrase', 'first-phrase')).to.equal(false);
  });
});

describe('user patterns: which are refused, in which words', () => {
  it("the refusal quotes the faulty part of the user's pattern and names the feature the engine lacks", () => {
    expect(patternRefusal('(a)\\1')).to.equal('invalid escape sequence: \\1 (the engine supports no backreferences)');
    expect(patternRefusal('(?<n>a)\\k<n>')).to.match(/\(the engine supports no backreferences\)$/);
    expect(patternRefusal('foo(?=bar)')).to.equal(
      'invalid or unsupported Perl syntax: (?= (the engine supports no lookahead)',
    );
    expect(patternRefusal('foo(?!bar)')).to.match(/\(the engine supports no lookahead\)$/);
    expect(patternRefusal('(?<!x)foo')).to.equal('invalid named capture (the engine supports no lookbehind)');
    expect(patternRefusal('(a)\\1(?=x)')).to.equal(
      'invalid escape sequence: \\1 (the engine supports no backreferences or lookahead)',
    );
  });

  it('a plain syntax error names no missing feature, even in a pattern with a non-capturing group', () => {
    expect(patternRefusal('(?:a)**')).to.equal('invalid nested repetition operator: **');
    expect(patternRefusal('[z-a]')).to.equal('invalid character class range: z-a');
    expect(patternRefusal('(unclosed')).to.equal('missing closing )');
  });

  it('the refusal does not quote a part that is the whole pattern or text the user did not write', () => {
    expect(patternRefusal('*')).to.equal('missing argument to repetition operator');
    const reason = patternRefusal('[\\u0100-\\u0041]');
    expect(reason).to.match(/^invalid character class range/);
    expect(reason).to.not.contain('x{');
  });

  it('huge counted repetitions are refused as too large, from the text, before compiling', () => {
    expect(patternRefusal('(?:ab){600}')).to.match(
      /^it is too large for the pattern engine \(about \d+ steps, at most 200\): split it into shorter patterns$/,
    );
    expect(patternRefusal('(?:ab){571,}')).to.match(/\(about \d+ steps, at most 200\)/);
    expect(patternRefusal(`\\Q${'abcdefghij'.repeat(4)}\\E{200}`)).to.match(/\(about \d+ steps/);
    expect(patternRefusal('(?:[a-z]\\d){900}')).to.match(/\(about \d+ steps/);
    // Just under the estimate's bound, the compiled size decides, and is given exactly.
    expect(patternRefusal('(?:ab){100}')).to.match(/too large for the pattern engine \(\d+ steps, at most 200\)/);
    expect(patternRefusal('sk-[a-z0-9]{32,64}')).to.equal(undefined);
  });
});
