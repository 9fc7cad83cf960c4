import { expect } from 'chai';
import type { Guardrails } from '../../src/domain/model.js';
import { checkInput, GuardrailBlocked, redactJson, redactText, StreamRedactor } from '../../src/domain/runtime/guardrails.js';
import { DEFAULT_GUARDRAILS } from '../../src/domain/agents/agent.schemas.js';

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
    expect(redactJson(rules, { 'secret-key': 'secret-abc', list: ['x secret-def', 3] })).to.deep.equal({ 'secret-key': '[redacted]', list: ['x [redacted]', 3] });
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
    expect(redactText(rules, 'mail ops@example.io and x_y%z@sub.example.co.uk')).to.equal('mail [redacted] and [redacted]');
    expect(redactText(rules, 'see example.com, @handle, user@localhost, a@b.c')).to.equal('see example.com, @handle, user@localhost, a@b.c');
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
    expect(redactText(rules, 'call 555 123 4567, mail a@example.org')).to.equal('call 555 123 4567, mail a@example.org');
  });

  it('user redaction patterns are case-insensitive, replace every match, and combine with presets', () => {
    const rules = g({ redactOutputPatterns: ['token-\\d+'], redactPresets: ['email'] });
    expect(redactText(rules, 'TOKEN-1 and token-22 for bob@example.org')).to.equal('[redacted] and [redacted] for [redacted]');
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
});
