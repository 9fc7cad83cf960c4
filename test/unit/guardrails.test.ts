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
});
