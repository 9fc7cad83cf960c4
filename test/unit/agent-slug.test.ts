import { expect } from 'chai';
import { freeSlug, MAX_SLUG, slugInput, slugOf } from '../../src/domain/core/agent-slug.js';

// The slug rule (issue 51): what a name gives, how a taken one is made unique, what is accepted.

describe('agent slugs', () => {
  it('a name gives lower-case letters, digits and single dashes; accents are dropped; nothing left is "agent"', () => {
    expect(slugOf('Support bot')).to.equal('support-bot');
    expect(slugOf('  --Orders_Bot v2!! ')).to.equal('orders-bot-v2');
    expect(slugOf('Crème brûlée')).to.equal('creme-brulee');
    expect(slugOf('日本語')).to.equal('agent');
    expect(slugOf('')).to.equal('agent');
    const long = slugOf('a'.repeat(50) + ' ' + 'b'.repeat(50));
    expect(long.length).to.be.at.most(MAX_SLUG - 4);
    expect(long).to.not.match(/-$/);
  });

  it('a taken slug gets the first free -2, -3 …, never longer than the limit', () => {
    expect(freeSlug('support-bot', new Set())).to.equal('support-bot');
    expect(freeSlug('support-bot', new Set(['support-bot', 'support-bot-2']))).to.equal('support-bot-3');
    const base = 'x'.repeat(MAX_SLUG);
    const next = freeSlug(base, new Set([base]));
    expect(next).to.have.length(MAX_SLUG);
    expect(next.endsWith('-2')).to.equal(true);
    expect(slugInput.safeParse(next).success).to.equal(true);
  });

  it('accepts what a name gives and refuses upper case, underscores (ids), double and outer dashes', () => {
    for (const ok of ['support-bot', 'a', 'v2', 'support-bot-2'])
      expect(slugInput.safeParse(ok).success, ok).to.be.true;
    for (const bad of ['Support', 'agt_1', 'a--b', '-a', 'a-', '', 'a b', 'x'.repeat(MAX_SLUG + 1)])
      expect(slugInput.safeParse(bad).success, bad).to.be.false;
  });
});
