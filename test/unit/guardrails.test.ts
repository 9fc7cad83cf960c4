import { expect } from 'chai';
import fc from 'fast-check';
import type { Guardrails, RedactPreset } from '../../src/domain/core/agent.entities.js';
import {
  checkInput,
  GuardrailBlocked,
  redactJson,
  redactText,
  StreamRedactor,
} from '../../src/domain/runtime/guardrails.js';
import {
  MAX_PATTERN_PROGRAM,
  patternRefusal,
  programSizeEstimate,
  toEngineSyntax,
  userPattern,
} from '../../src/domain/core/patterns.js';
import { DEFAULT_GUARDRAILS, guardrailsInput } from '../../src/domain/agents/agent.schemas.js';
import { parse } from '../../src/domain/validation.js';

const g = (over: Partial<Guardrails>): Guardrails => ({ ...DEFAULT_GUARDRAILS, ...over });

describe('guardrails', () => {
  it('blocks phrases and regular expressions case-insensitively, and lets other input through', () => {
    const rules = g({ blockedInputPatterns: ['drop table', '\\bssn\\b'] });
    expect(() => checkInput(rules, 'please DROP TABLE users')).to.throw(GuardrailBlocked);
    expect(() => checkInput(rules, 'my SSN is 1')).to.throw(GuardrailBlocked);
    expect(() => checkInput(rules, 'lessons learned')).to.not.throw();
  });

  it('refuses input over maxInputChars and accepts exactly the limit', () => {
    expect(() => checkInput(g({ maxInputChars: 5 }), '123456')).to.throw(/at most 5/);
    expect(() => checkInput(g({ maxInputChars: 5 }), '12345')).to.not.throw();
  });

  it('redacts each preset and leaves short numbers alone', () => {
    const all = g({ redactPresets: ['email', 'phone', 'creditCard'] });
    expect(redactText(all, 'write to a.b+c@mail.example.org now')).to.equal('write to [redacted] now');
    expect(redactText(all, 'call (030) 1234-5678 today')).to.equal('call [redacted] today');
    expect(redactText(all, 'card 5500-0000-0000-0004 ok')).to.equal('card [redacted] ok');
    expect(redactText(all, 'order 42 costs 19.99')).to.equal('order 42 costs 19.99');
    expect(redactText(g({ redactPresets: ['email'] }), 'call 555 123 4567')).to.equal('call 555 123 4567');
  });

  it('redacts strings inside JSON output, not keys', () => {
    const rules = g({ redactOutputPatterns: ['secret-\\w+'] });
    expect(redactJson(rules, { 'secret-key': 'secret-abc', list: ['x secret-def', 3] })).to.deep.equal({
      'secret-key': '[redacted]',
      list: ['x [redacted]', 3],
    });
  });

  it('stream redaction releases whole lines, so a match split across deltas is still caught', () => {
    const r = new StreamRedactor(g({ redactPresets: ['email'] }));
    const out = [r.push('contact jo'), r.push('hn@exam'), r.push('ple.com\nnext '), r.push('line'), r.flush()];
    expect(out.join('')).to.equal('contact [redacted]\nnext line');
    expect(out[0]).to.equal('');
    const plain = new StreamRedactor(DEFAULT_GUARDRAILS);
    expect(plain.push('as is')).to.equal('as is');
  });

  it('the email preset redacts addresses only: a bare domain, an @ without a dot or a one-letter top-level domain stay', () => {
    const rules = g({ redactPresets: ['email'] });
    expect(redactText(rules, 'mail ops@example.io and x_y%z@sub.example.co.uk')).to.equal(
      'mail [redacted] and [redacted]',
    );
    expect(redactText(rules, 'see example.com, @handle, user@localhost, a@b.c')).to.equal(
      'see example.com, @handle, user@localhost, a@b.c',
    );
  });

  it('the phone preset redacts numbers of 7 digits or more, with or without country code and separators, and keeps 6-digit ones', () => {
    const rules = g({ redactPresets: ['phone'] });
    expect(redactText(rules, 'ring 555 1234 now')).to.equal('ring [redacted] now');
    expect(redactText(rules, 'ring 5551234 now')).to.equal('ring [redacted] now');
    expect(redactText(rules, 'ring +49 30 1234567 now')).to.equal('ring [redacted] now');
    expect(redactText(rules, 'ring 555.123.4567 now')).to.equal('ring [redacted] now');
    expect(redactText(rules, 'code 12 34 56 here')).to.equal('code 12 34 56 here');
    expect(redactText(rules, 'ticket 123456 here')).to.equal('ticket 123456 here');
    // Digits glued to letters are identifiers, not phone numbers.
    expect(redactText(rules, 'id abc5551234567 here')).to.equal('id abc5551234567 here');
  });

  it('the credit-card preset alone redacts 13 to 19 digits, spaced or dashed, and nothing shorter or longer', () => {
    const rules = g({ redactPresets: ['creditCard'] });
    expect(redactText(rules, 'card 4111 1111 1111 1111 ok')).to.equal('card [redacted] ok');
    expect(redactText(rules, 'card 4111111111111 ok')).to.equal('card [redacted] ok'); // 13 digits
    expect(redactText(rules, 'card 4111111111111111111 ok')).to.equal('card [redacted] ok'); // 19 digits
    expect(redactText(rules, 'ref 411111111111 ok')).to.equal('ref 411111111111 ok'); // 12 digits
    expect(redactText(rules, 'ref 41111111111111111111 ok')).to.equal('ref 41111111111111111111 ok'); // 20 digits
    // The card preset does not redact phone numbers or e-mail addresses.
    expect(redactText(rules, 'call 555 123 4567, mail a@example.org')).to.equal(
      'call 555 123 4567, mail a@example.org',
    );
  });

  it('user redaction patterns are case-insensitive, replace every match, and combine with presets', () => {
    const rules = g({ redactOutputPatterns: ['token-\\d+'], redactPresets: ['email'] });
    expect(redactText(rules, 'TOKEN-1 and token-22 for bob@example.org')).to.equal(
      '[redacted] and [redacted] for [redacted]',
    );
    expect(redactText(g({}), 'TOKEN-1 bob@example.org')).to.equal('TOKEN-1 bob@example.org');
  });

  it('blocked patterns match anywhere in the input, in any case, and every pattern is checked', () => {
    const rules = g({ blockedInputPatterns: ['first', 'Second'] });
    expect(() => checkInput(rules, 'the SECOND one')).to.throw(GuardrailBlocked, /guardrails/);
    expect(() => checkInput(rules, 'xfirstx')).to.throw(GuardrailBlocked);
    expect(() => checkInput(g({ maxInputChars: 3, blockedInputPatterns: [] }), 'abc')).to.not.throw();
    const err = (() => {
      try {
        checkInput(rules, 'first');
      } catch (e) {
        return e as GuardrailBlocked;
      }
      return undefined;
    })();
    expect(err?.field).to.equal('input');
  });

  it('redactJson leaves non-strings and structure alone, and returns the same value without rules', () => {
    const rules = g({ redactPresets: ['email'] });
    const value = { n: 1, ok: true, none: null, nested: [{ to: 'a@example.org' }] };
    expect(redactJson(rules, value)).to.deep.equal({ n: 1, ok: true, none: null, nested: [{ to: '[redacted]' }] });
    expect(redactJson(rules, 'a@example.org')).to.equal('[redacted]');
    expect(redactJson(g({}), value)).to.equal(value);
  });

  it('stream redaction releases each finished line as soon as its line break arrives, and the tail on flush', () => {
    const r = new StreamRedactor(g({ redactPresets: ['email'] }));
    expect(r.push('first line a@example.org\nsecond')).to.equal('first line [redacted]\n');
    expect(r.push(' part')).to.equal('');
    expect(r.push(' b@example.org\nthird\n')).to.equal('second part [redacted]\nthird\n');
    expect(r.flush()).to.equal('');
    expect(r.push('\nafter an empty line')).to.equal('\n');
    expect(r.flush()).to.equal('after an empty line');
    expect(r.push('tail c@example.org')).to.equal('');
    expect(r.flush()).to.equal('tail [redacted]');
    expect(r.flush()).to.equal('');
  });

  // The presets as they were written for JavaScript's backtracking engine (with lookaround); the RE2
  // versions must redact exactly what these did, only in linear time.
  const FORMER: Record<RedactPreset, RegExp> = {
    email: /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g,
    phone: /(?<![\w+])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?)?\d{2,4}(?:[\s.-]?\d{2,4}){1,3}(?!\w)/g,
    creditCard: /(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)/g,
  };
  const formerRedaction = (preset: RedactPreset, text: string) =>
    text.replace(FORMER[preset], (m) => (preset === 'phone' && m.replace(/\D/g, '').length < 7 ? m : '[redacted]'));

  it('each preset redacts what its former backtracking expression did, on random texts of digits, separators, letters and @', () => {
    const pieces = [
      '0',
      '1',
      '4',
      '5',
      '9',
      '12',
      '555',
      ' ',
      '-',
      '.',
      '+',
      '(',
      ')',
      'a',
      'Z',
      '_',
      '%',
      '@',
      'ex.com',
      'co',
      '\u00a0',
      '\n',
      '\v',
      'é',
      '😀',
    ];
    const text = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((a) => a.join(''));
    for (const preset of ['email', 'phone', 'creditCard'] as const) {
      fc.assert(
        fc.property(text, (t) => redactText(g({ redactPresets: [preset] }), t) === formerRedaction(preset, t)),
        { numRuns: preset === 'email' ? 2000 : 300 },
      );
    }
  });

  it('the email preset takes the longest domain that ends in a dot and two letters, and the next address starts after the last one', () => {
    const rules = g({ redactPresets: ['email'] });
    expect(redactText(rules, 'a@b.cc-d a@b.c.de1 x@y@z.io')).to.equal('[redacted]-d [redacted]1 x@[redacted]');
    expect(redactText(rules, 'a@b.cc_x@y.zz and a@b.cc.x@y.zz')).to.equal(
      '[redacted][redacted] and [redacted][redacted]',
    );
    expect(redactText(rules, '@x.com a@.com a@b.c ')).to.equal('@x.com a@.com a@b.c ');
  });

  it('the phone and credit-card presets look at the characters around a number: a word character or + before, a word character or digit after', () => {
    const phone = g({ redactPresets: ['phone'] });
    expect(redactText(phone, 'x+5551234 and _5551234 and 5551234_ and 5551234')).to.equal(
      'x+5551234 and _5551234 and 5551234_ and [redacted]',
    );
    // The character after one number is the one before the next.
    expect(redactText(phone, '5551234,5559876;(030) 1234567')).to.equal('[redacted],[redacted];[redacted]');
    expect(redactText(phone, '+49\u00a030\u00a01234567')).to.equal('[redacted]');
    const card = g({ redactPresets: ['creditCard'] });
    expect(redactText(card, '4111111111111111,4111-1111-1111-1111')).to.equal('[redacted],[redacted]');
    expect(redactText(card, 'x4111111111111111y')).to.equal('x[redacted]y');
  });

  it('the email preset redacts 80,000 "a"s followed by an address, and leaves 80,000 "a"s alone (the backtracking version took seconds)', () => {
    const rules = g({ redactPresets: ['email', 'phone', 'creditCard'] });
    const as = 'a'.repeat(80_000);
    expect(redactText(rules, as)).to.equal(as);
    expect(redactText(rules, `${as} x@example.org`)).to.equal(`${as} [redacted]`);
    expect(redactText(rules, `${as}@example.org`)).to.equal('[redacted]');
  });

  it('a blocked (a+)+$ runs in linear time: 28 "a"s and a "!" pass, 28 "a"s are refused', () => {
    const rules = g({ blockedInputPatterns: ['(a+)+$'] });
    expect(() => checkInput(rules, `${'a'.repeat(28)}!`)).to.not.throw();
    expect(() => checkInput(rules, 'a'.repeat(28))).to.throw(GuardrailBlocked);
  });

  it('a redaction (a+)+$ replaces a trailing run of "a"s and leaves "a"s followed by "!" alone', () => {
    const rules = g({ redactOutputPatterns: ['(a+)+$'] });
    expect(redactText(rules, `${'a'.repeat(28)}!`)).to.equal(`${'a'.repeat(28)}!`);
    expect(redactText(rules, `x ${'a'.repeat(28)}`)).to.equal('x [redacted]');
  });

  it('user patterns keep the Unicode meanings they had: case folding beyond ASCII, \\u escapes, \\s for every space, . for a whole character', () => {
    expect(() => checkInput(g({ blockedInputPatterns: ['drop\\s+table'] }), 'DROP\u00a0TABLE')).to.throw(
      GuardrailBlocked,
    );
    expect(() => checkInput(g({ blockedInputPatterns: ['drop\\s+table'] }), 'DROP\u2003\vTABLE')).to.throw(
      GuardrailBlocked,
    );
    expect(() => checkInput(g({ blockedInputPatterns: ['drop\\Stable'] }), 'drop\u00a0table')).to.not.throw();
    expect(() => checkInput(g({ blockedInputPatterns: ['crème'] }), 'CRÈME brûlée')).to.throw(GuardrailBlocked);
    expect(() => checkInput(g({ blockedInputPatterns: ['cr\\u00e8me'] }), 'CRÈME')).to.throw(GuardrailBlocked);
    expect(() => checkInput(g({ blockedInputPatterns: ['\\u{1F600}'] }), 'hi 😀')).to.throw(GuardrailBlocked);
    expect(redactText(g({ redactOutputPatterns: ['^.$'] }), '😀')).to.equal('[redacted]');
    expect(redactText(g({ redactOutputPatterns: ['[\\s]+'] }), 'a\u00a0\u00a0b')).to.equal('a[redacted]b');
  });

  it('a pattern the engine cannot run is refused with the reason: backreferences, lookaround, bad syntax, too large', () => {
    expect(patternRefusal('(a)\\1')).to.match(/invalid escape sequence: \\1 \(the engine supports no backreferences\)/);
    expect(patternRefusal('(?<n>a)\\k<n>')).to.match(/backreferences/);
    expect(patternRefusal('foo(?=bar)')).to.match(/lookahead/);
    expect(patternRefusal('(?<!x)foo')).to.match(/lookbehind/);
    expect(patternRefusal('(unclosed')).to.equal('missing closing )');
    expect(patternRefusal('a{1001}')).to.match(/invalid repeat count/);
    expect(patternRefusal('x'.repeat(MAX_PATTERN_PROGRAM + 1))).to.match(
      /too large for the pattern engine \(\d+ steps, at most 200\)/,
    );
    // Refused from its text alone: compiling it would mean half a million instructions.
    expect(patternRefusal(`(?:${'a'.repeat(490)}){1000}`)).to.match(
      /too large for the pattern engine \(about \d+ steps/,
    );
    for (const ok of [
      'drop table',
      '(a+)+$',
      'sk-[a-z0-9]{32,64}',
      '\\bssn\\b',
      '(?P<id>\\d+)-(?<n>x)',
      '[[:alpha:]]+',
      '\\p{Greek}',
      '\\Q(a)\\1\\E',
    ]) {
      expect(patternRefusal(ok), ok).to.equal(undefined);
    }
  });

  it('saving guardrails refuses such a pattern, naming it and its list', () => {
    const save = (input: unknown) => () => parse(guardrailsInput, input, 'input');
    expect(save({ blockedInputPatterns: ['fine', '(a)\\1'] })).to.throw(
      'input.blockedInputPatterns.1: the pattern `(a)\\1` cannot run in the linear-time pattern engine: invalid escape sequence',
    );
    expect(save({ redactOutputPatterns: ['(?=x)'] })).to.throw(
      /^input\.redactOutputPatterns\.0: the pattern `\(\?=x\)` cannot run/,
    );
    expect(save({ blockedInputPatterns: ['(a+)+$'], redactOutputPatterns: ['token-\\d+'] })()).to.deep.equal({
      blockedInputPatterns: ['(a+)+$'],
      redactOutputPatterns: ['token-\\d+'],
    });
  });

  it('a saved pattern the engine cannot run (stored before patterns were checked) fails closed', () => {
    expect(() => checkInput(g({ blockedInputPatterns: ['(a)\\1'] }), 'anything')).to.throw(
      GuardrailBlocked,
      /cannot run/,
    );
    expect(redactText(g({ redactOutputPatterns: ['(?=x)'] }), 'the whole output')).to.equal('[redacted]');
  });

  it('each pattern is compiled once, and the cache of compiled patterns is bounded', () => {
    const first = userPattern('cache-probe-\\d+');
    expect(userPattern('cache-probe-\\d+')).to.equal(first);
    for (let i = 0; i < 300; i++) userPattern(`filler-${i}`);
    expect(userPattern('cache-probe-\\d+')).to.not.equal(first);
  });

  it('patterns are read as RE2 with JavaScript escapes translated, and their size is estimated from the text', () => {
    expect(toEngineSyntax('\\u00e9\\u{1F600}\\Q\\s\\E[^\\s]\\\\s')).to.equal(
      '\\x{00e9}\\x{1F600}\\Q\\s\\E[^\\s\\x0b\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}]\\\\s',
    );
    expect(toEngineSyntax('[]\\s]\\s')).to.match(/^\[\]\\s.*\]\[\\s.*\]$/);
    expect(programSizeEstimate('abc')).to.equal(3);
    expect(programSizeEstimate('(?:ab){10}')).to.be.at.least(userPattern('(?:ab){10}').programSize());
    expect(programSizeEstimate('(?:a{10}){10}')).to.be.at.least(100);
    expect(programSizeEstimate('a|b|c')).to.equal(5);
  });
});
