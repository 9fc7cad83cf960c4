import { expect } from 'chai';
import { composeReply, MAX_SUBJECT_CHARS, newMessageId, replySubject } from '../../src/domain/email/reply.js';
import {
  boundedReferences,
  MAX_MESSAGE_ID_CHARS,
  MAX_REFERENCES,
  MAX_REFERENCES_CHARS,
  messageIds,
} from '../../src/domain/email/thread.js';
import { Invalid } from '../../src/domain/errors.js';
import { inboundMail } from '../helpers/inbound-mail.js';

const MSG_ID = /^<[a-z0-9]{16}\.[a-z0-9]+@mail\.test>$/;

describe('email reply composition', () => {
  it('threads the answer: In-Reply-To, References + Message-ID, Re: subject, Auto-Submitted, a new id on the domain', () => {
    const inbound = inboundMail({
      subject: 'Order 42',
      messageId: '<m3@example.com>',
      references: ['<m1@example.com>', '<m2@example.com>'],
    });
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
    const reply = composeReply(inbound, {
      from: 'agent@mail.test',
      text: 'x',
      subject: 'Your ticket\r\nBcc: victim@example.com',
      domain: 'Other.Example',
    });
    expect(reply.to).to.deep.equal(['team@example.com']);
    expect(reply.subject).to.equal('Your ticket Bcc: victim@example.com');
    expect(reply.inReplyTo).to.equal(null);
    expect(reply.references).to.deep.equal([]);
    expect(reply.messageId).to.match(/@other\.example>$/);
  });

  it('answers only the non-empty Reply-To addresses, trims an explicit subject, and takes the domain of From up to its bracket', () => {
    const inbound = inboundMail({
      replyTo: [
        { address: '', name: '' },
        { address: '  ', name: 'Blank' },
        { address: 'team@example.com', name: '' },
      ],
    });
    const reply = composeReply(inbound, {
      from: 'Agent <agent@Mail.Test> (bot)',
      text: 'x',
      subject: '  Your ticket \t',
    });
    expect(reply.to).to.deep.equal(['team@example.com']);
    expect(reply.subject).to.equal('Your ticket');
    expect(reply.messageId).to.match(MSG_ID);
    expect(composeReply(inbound, { from: 'agent', text: 'x' }).messageId).to.match(/@localhost>$/);
    expect(composeReply(inbound, { from: '@mail.test', text: 'x' }).messageId).to.match(MSG_ID);
    expect(() =>
      composeReply(inboundMail({ replyTo: [{ address: ' ', name: '' }] }), { from: 'agent@mail.test', text: 'x' }),
    ).to.throw(Invalid);
    expect(() =>
      composeReply(inboundMail({ from: { address: '', name: 'Nobody' } }), { from: 'agent@mail.test', text: 'x' }),
    ).to.throw(Invalid);
  });

  it('refuses to answer a message that names nobody', () => {
    expect(() => composeReply(inboundMail({ from: null }), { from: 'agent@mail.test', text: 'x' })).to.throw(
      Invalid,
      /no address to answer/,
    );
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
    it(`subject ${JSON.stringify(subject)} → ${JSON.stringify(expected)}`, () =>
      expect(replySubject(subject)).to.equal(expected));
  }

  it('bounds a long subject without splitting a character', () => {
    // 'Re: ' + 245 characters: the cut falls inside the first 🎉, which goes whole.
    expect(replySubject('x'.repeat(MAX_SUBJECT_CHARS - 5) + '🎉'.repeat(50))).to.equal(
      'Re: ' + 'x'.repeat(MAX_SUBJECT_CHARS - 5),
    );
    // 'Re: ' + 244 characters: the cut falls after the first 🎉, which stays.
    expect(replySubject('x'.repeat(MAX_SUBJECT_CHARS - 6) + '🎉'.repeat(50))).to.equal(
      'Re: ' + 'x'.repeat(MAX_SUBJECT_CHARS - 6) + '🎉',
    );
    expect(replySubject('🎉 party')).to.equal('Re: 🎉 party');
    expect(replySubject('y'.repeat(MAX_SUBJECT_CHARS - 4))).to.have.length(MAX_SUBJECT_CHARS);
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
    // The bound is exact: ids and the spaces between them fill MAX_REFERENCES_CHARS, not one more.
    const filling = `<${'b'.repeat(MAX_REFERENCES_CHARS - 5 - 1 - 4)}@x>`;
    expect(['<a@x>', filling].join(' ')).to.have.length(MAX_REFERENCES_CHARS);
    expect(boundedReferences(['<a@x>', filling])).to.deep.equal(['<a@x>', filling]);
    const over = `<${'b'.repeat(MAX_REFERENCES_CHARS - 5 - 1 - 3)}@x>`;
    expect(boundedReferences(['<a@x>', over])).to.deep.equal(['<a@x>']);
  });

  it('reads message ids from header text, bracketing bare ones and dropping junk', () => {
    expect(messageIds('<a@x> junk <b@x>,c@y <no space@x> <>')).to.deep.equal(['<a@x>', '<b@x>', '<c@y>']);
    expect(messageIds(`<${'a'.repeat(300)}@x>`)).to.deep.equal([]);
    expect(messageIds('cd@yz')).to.deep.equal(['<cd@yz>']);
    expect(messageIds(['cd@yz', 'ef@gh'])).to.deep.equal(['<cd@yz>', '<ef@gh>']);
    expect(messageIds('junk only')).to.deep.equal([]);
    const longest = `<${'a'.repeat(MAX_MESSAGE_ID_CHARS - 4)}@x>`;
    expect(longest).to.have.length(MAX_MESSAGE_ID_CHARS);
    expect(messageIds(longest)).to.deep.equal([longest]);
    expect(messageIds(`<a${longest.slice(1)}`)).to.deep.equal([]);
    expect(messageIds(null)).to.deep.equal([]);
  });

  it('makes message ids from a domain reduced to host characters', () => {
    expect(newMessageId('bad domain>\r\n')).to.match(/@baddomain>$/);
    expect(newMessageId('')).to.match(/@localhost>$/);
  });
});
