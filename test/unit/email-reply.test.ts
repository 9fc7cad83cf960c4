import { expect } from 'chai';
import { composeReply, MAX_SUBJECT_CHARS, newMessageId, replySubject } from '../../src/domain/email/reply.js';
import { boundedReferences, MAX_REFERENCES, MAX_REFERENCES_CHARS, messageIds } from '../../src/domain/email/thread.js';
import { Invalid } from '../../src/domain/errors.js';
import { inboundMail } from '../helpers/inbound-mail.js';

const MSG_ID = /^<[a-z0-9]+\.[a-z0-9]+@mail\.test>$/;

describe('email reply composition', () => {
  it('threads the answer: In-Reply-To, References + Message-ID, Re: subject, Auto-Submitted, a new id on the domain', () => {
    const inbound = inboundMail({ subject: 'Order 42', messageId: '<m3@example.com>', references: ['<m1@example.com>', '<m2@example.com>'] });
    const reply = composeReply(inbound, { from: 'Agent <agent@mail.test>', text: 'Done.' });
    expect(reply).to.deep.include({
      from: 'Agent <agent@mail.test>',
      to: ['alice@example.com'],
      subject: 'Re: Order 42',
      text: 'Done.',
      inReplyTo: '<m3@example.com>',
      references: ['<m1@example.com>', '<m2@example.com>', '<m3@example.com>'],
    });
    expect(reply.headers).to.deep.equal({ 'Auto-Submitted': 'auto-replied', 'X-Auto-Response-Suppress': 'All' });
    expect(reply.messageId).to.match(MSG_ID);
    expect(reply.messageId).to.not.equal(composeReply(inbound, { from: 'agent@mail.test', text: '' }).messageId);
  });

  it('answers Reply-To when given, takes an explicit subject and domain, and never lets a subject break a header', () => {
    const inbound = inboundMail({ replyTo: [{ address: 'team@example.com', name: 'Team' }], messageId: null });
    const reply = composeReply(inbound, { from: 'agent@mail.test', text: 'x', subject: 'Your ticket\r\nBcc: victim@example.com', domain: 'Other.Example' });
    expect(reply.to).to.deep.equal(['team@example.com']);
    expect(reply.subject).to.equal('Your ticket Bcc: victim@example.com');
    expect(reply.inReplyTo).to.equal(null);
    expect(reply.references).to.deep.equal([]);
    expect(reply.messageId).to.match(/@other\.example>$/);
  });

  it('refuses to answer a message that names nobody', () => {
    expect(() => composeReply(inboundMail({ from: null }), { from: 'agent@mail.test', text: 'x' })).to.throw(Invalid, /no address to answer/);
  });

  const subjects: Array<[string, string]> = [
    ['Hello', 'Re: Hello'],
    ['Re: Hello', 'Re: Hello'],
    ['RE: Re: re:Hello', 'Re: Hello'],
    ['Aw: Re: Hello', 'Re: Hello'],
    ['AW: SV: Antw: Hello', 'Re: Hello'],
    ['Re[2]: Hello', 'Re: Hello'],
    ['Re (3): Hello', 'Re: Hello'],
    ['Fwd: Hello', 'Re: Fwd: Hello'],
    ['Regarding: Hello', 'Re: Regarding: Hello'],
    ['Are you there', 'Re: Are you there'],
    ['', 'Re:'],
    ['  Re:  ', 'Re:'],
    ['Line\none', 'Re: Line one'],
  ];
  for (const [subject, expected] of subjects) {
    it(`subject ${JSON.stringify(subject)} → ${JSON.stringify(expected)}`, () => expect(replySubject(subject)).to.equal(expected));
  }

  it('bounds a long subject without splitting a character', () => {
    const subject = replySubject('x'.repeat(MAX_SUBJECT_CHARS - 5) + '🎉'.repeat(50));
    expect(subject.length).to.be.at.most(MAX_SUBJECT_CHARS);
    expect(subject).to.not.match(/[\uD800-\uDBFF]$/);
  });

  it('bounds References: keeps the root and the most recent ids', () => {
    const ids = Array.from({ length: 100 }, (_, i) => `<${i}@example.com>`);
    const refs = boundedReferences(ids);
    expect(refs).to.have.length(MAX_REFERENCES);
    expect(refs[0]).to.equal('<0@example.com>');
    expect(refs.at(-1)).to.equal('<99@example.com>');
    const long = Array.from({ length: 30 }, (_, i) => `<${i}${'a'.repeat(200)}@example.com>`);
    expect(boundedReferences(long).join(' ').length).to.be.at.most(MAX_REFERENCES_CHARS);
    expect(boundedReferences(['<a@x>', '<b@x>', '<a@x>'])).to.deep.equal(['<a@x>', '<b@x>']);
  });

  it('reads message ids from header text, bracketing bare ones and dropping junk', () => {
    expect(messageIds('<a@x> junk <b@x>,c@y <no space@x> <>')).to.deep.equal(['<a@x>', '<b@x>', '<c@y>']);
    expect(messageIds(`<${'a'.repeat(300)}@x>`)).to.deep.equal([]);
    expect(messageIds(null)).to.deep.equal([]);
  });

  it('makes message ids from a domain reduced to host characters', () => {
    expect(newMessageId('bad domain>\r\n')).to.match(/@baddomain>$/);
    expect(newMessageId('')).to.match(/@localhost>$/);
  });
});
