import { expect } from 'chai';
import type { Guardrails } from '../../src/domain/core/agent.entities.js';
import { DEFAULT_GUARDRAILS } from '../../src/domain/agents/agent.schemas.js';
import { checkInput, GuardrailBlocked, redactText, StreamRedactor } from '../../src/domain/runtime/guardrails.js';
import { patternRefusal } from '../../src/domain/core/patterns.js';
import { PRESETS } from '../../src/domain/runtime/redact-presets.js';

const g = (over: Partial<Guardrails>): Guardrails => ({ ...DEFAULT_GUARDRAILS, ...over });
const email = PRESETS.email;
/** The expression the e-mail scanner stands for (DESIGN §5). */
const EMAIL_EXPRESSION = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
const byExpression = (text: string) => text.replace(EMAIL_EXPRESSION, '[redacted]');

// A pattern saved before patterns were checked, which the engine cannot run (a back-reference).
const REFUSED = '(a)\\1';

describe('redaction presets: which text each one replaces', () => {
  it('the email preset redacts addresses whose local part is an upper-case A or a 9, the edges of the letter and digit ranges', () => {
    expect(email('from A@example.com ok')).to.equal('from [redacted] ok');
    expect(email('from 9@example.com ok')).to.equal('from [redacted] ok');
    expect(email('from Z0@example.com ok')).to.equal('from [redacted] ok');
  });

  it('the email preset redacts an address whose domain holds a dash', () => {
    expect(email('mail jo@my-site.com today')).to.equal('mail [redacted] today');
  });

  it('the email preset leaves dotted words alone in a text whose only @ starts no address', () => {
    const text = 'ask @team about docs.example and v1.2.release';
    expect(email(text)).to.equal(text);
  });

  it('the email preset still redacts an address after an @ at the very start of the text', () => {
    expect(email('@here mail jo@example.com now')).to.equal('@here mail [redacted] now');
  });

  it('an address glued to the end of another one does not reach back into it', () => {
    const text = 'a@b.coc@d.org';
    expect(email(text)).to.equal('[redacted]@d.org');
    expect(email(text)).to.equal(byExpression(text));
  });

  it('an address whose one-character local part starts right where the previous address ends is redacted too', () => {
    const text = 'jo@example.com+@d.org and more';
    expect(email(text)).to.equal('[redacted][redacted] and more');
    expect(email(text)).to.equal(byExpression(text));
  });

  it('the email preset redacts what the expression it replaces redacts, on texts packed with @ and dots', () => {
    const texts = [
      'x@y.zz@q.rr',
      'a.@b.cc.@d.ee',
      '.@..aa',
      'jo@a.b.cde+f@g.hi',
      '@@a@b.cd@',
      'A9@Z-0.Ab%c@d.Ef',
      'no address here',
      'trailing jo@example.c',
      'jo@example.com',
      'a@b.cd e@f.gh',
      'Ω@ab.cd x+@-.cd',
    ];
    for (const text of texts) expect(email(text), text).to.equal(byExpression(text));
  });
});

describe('guardrails: patterns the engine refuses', () => {
  it('a blocked pattern the engine refuses blocks the input instead of letting it through', () => {
    expect(patternRefusal(REFUSED)).to.be.a('string');
    const rules = g({ blockedInputPatterns: [REFUSED] });
    expect(() => checkInput(rules, 'harmless text')).to.throw(GuardrailBlocked, /cannot run/);
  });

  it('an output redaction pattern the engine refuses replaces the whole text instead of passing it', () => {
    const rules = g({ redactOutputPatterns: [REFUSED] });
    expect(redactText(rules, 'the secret is 42')).to.equal('[redacted]');
  });
});

describe('guardrails: streamed redaction', () => {
  it('the stream redactor releases a finished line before the stream ends', () => {
    const r = new StreamRedactor(g({ redactPresets: ['email'] }));
    expect(r.push('write to jo@example.com\nthen')).to.equal('write to [redacted]\n');
    expect(r.flush()).to.equal('then');
  });

  it('a delta without a line break releases nothing, even under a pattern that matches empty text', () => {
    const rules = g({ redactOutputPatterns: ['z*'] });
    const r = new StreamRedactor(rules);
    const out = [r.push('hello'), r.push(' world'), r.push('\nbye'), r.flush()];
    expect(out[0]).to.equal('');
    expect(out[1]).to.equal('');
    expect(out.join('')).to.equal(redactText(rules, 'hello world\n') + redactText(rules, 'bye'));
  });
});
