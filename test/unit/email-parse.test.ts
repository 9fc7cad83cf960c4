import { expect } from 'chai';
import MailComposer from 'nodemailer/lib/mail-composer';
import { parseInbound, UnparseableMail } from '../../src/surfaces/email/parse-inbound.js';
import { Invalid } from '../../src/domain/errors.js';

/** A message as a real client builds it (nodemailer's composer), never hand-assembled MIME. */
async function compose(options: ConstructorParameters<typeof MailComposer>[0]): Promise<Buffer> {
  return new MailComposer(options).compile().build();
}

const HTML = '<p>Hi <b>agent</b><script>alert(1)</script><img src="cid:logo@x"></p>';

describe('email parsing (mailparser)', () => {
  it('parses a multipart message: addresses, text, HTML as given, threading ids, attachments', async () => {
    const raw = await compose({
      from: 'Alice <alice@example.com>',
      to: ['agent@mail.test', 'Team: bob@example.com, carol@example.com;'],
      cc: 'Dave <dave@example.com>',
      replyTo: 'alice+replies@example.com',
      subject: 'Invoice — März',
      text: 'Plain body',
      html: HTML,
      messageId: '<m3@example.com>',
      inReplyTo: '<m2@example.com>',
      references: ['<m1@example.com>', '<m2@example.com>'],
      headers: { 'Auto-Submitted': 'auto-generated', Precedence: 'bulk', 'List-Id': 'Dev <dev.example.com>' },
      attachments: [
        { filename: 'invoice.pdf', content: Buffer.alloc(3000, 1), contentType: 'application/pdf' },
        { filename: 'logo.png', content: Buffer.alloc(10, 2), contentType: 'image/png', cid: 'logo@x' },
        { filename: 'notes.txt', content: 'a note' },
      ],
    });
    const mail = await parseInbound(raw, { attachmentBytes: 2000 }, { mailFrom: 'bounces@example.com' });
    expect(mail.from).to.deep.equal({ address: 'alice@example.com', name: 'Alice' });
    expect(mail.to.map((a) => a.address)).to.deep.equal(['agent@mail.test', 'bob@example.com', 'carol@example.com']);
    expect(mail.cc).to.deep.equal([{ address: 'dave@example.com', name: 'Dave' }]);
    expect(mail.replyTo.map((a) => a.address)).to.deep.equal(['alice+replies@example.com']);
    expect(mail.subject).to.equal('Invoice — März');
    expect(mail.text.trim()).to.equal('Plain body');
    expect(mail.html).to.equal(HTML);
    expect(mail).to.deep.include({
      messageId: '<m3@example.com>',
      inReplyTo: '<m2@example.com>',
      references: ['<m1@example.com>', '<m2@example.com>'],
      threadId: '<m1@example.com>',
    });
    expect(mail.loop).to.deep.equal({
      autoSubmitted: 'auto-generated',
      precedence: 'bulk',
      listId: 'Dev <dev.example.com>',
      listUnsubscribe: null,
      autoResponseSuppress: null,
      returnPath: 'bounces@example.com',
    });
    const byName = Object.fromEntries(mail.attachments.map((a) => [a.filename, a]));
    expect(Object.keys(byName).sort()).to.deep.equal(['invoice.pdf', 'logo.png', 'notes.txt']);
    expect(byName['invoice.pdf']).to.deep.equal({
      filename: 'invoice.pdf',
      contentType: 'application/pdf',
      size: 3000,
    });
    expect(byName['logo.png']!.content).to.deep.equal(Buffer.alloc(10, 2));
    expect(byName['notes.txt']).to.deep.include({ contentType: 'text/plain', size: 6 });
    expect(byName['notes.txt']!.content!.toString()).to.equal('a note');
  });

  it('keeps attachment content within the per-message budget, lists the rest, and lists at most attachmentsListed', async () => {
    const attachments = [1, 2, 3, 4].map((n) => ({ filename: `f${n}.bin`, content: Buffer.alloc(400, n) }));
    const raw = await compose({ from: 'a@example.com', subject: 's', text: 't', attachments });
    const mail = await parseInbound(raw, { attachmentBytes: 1000, attachmentsTotalBytes: 1000, attachmentsListed: 3 });
    expect(mail.attachments.map((a) => [a.filename, a.size, a.content?.length ?? null])).to.deep.equal([
      ['f1.bin', 400, 400],
      ['f2.bin', 400, 400],
      ['f3.bin', 400, null],
    ]);
  });

  it('threads by In-Reply-To without References, by its own id without either; none without ids', async () => {
    const reply = await parseInbound(Buffer.from('From: a@x\r\nMessage-ID: <2@x>\r\nIn-Reply-To: <1@x>\r\n\r\nhi'));
    expect([reply.threadId, reply.references]).to.deep.equal(['<1@x>', []]);
    const first = await parseInbound(Buffer.from('From: a@x\r\nMessage-ID: <1@x>\r\n\r\nhi'));
    expect(first.threadId).to.equal('<1@x>');
    const none = await parseInbound(Buffer.from('From: a@x\r\nSubject: s\r\n\r\nhi'));
    expect([none.messageId, none.threadId, none.html, none.text.trim()]).to.deep.equal([null, null, null, 'hi']);
  });

  it('reads Return-Path from the header when no envelope is given; <> is the null sender', async () => {
    const bounce = await parseInbound(Buffer.from('Return-Path: <>\r\nFrom: MAILER-DAEMON@x\r\n\r\nfailed'));
    expect(bounce.loop.returnPath).to.equal('');
    const folded = await parseInbound(
      Buffer.from('Return-Path: <b@x>\r\nAuto-Submitted:\r\n auto-replied\r\nFrom: a@x\r\n\r\n'),
    );
    expect(folded.loop).to.deep.include({ returnPath: 'b@x', autoSubmitted: 'auto-replied' });
  });

  it('makes U+0000 and lone surrogates storable in every string', async () => {
    const raw = await compose({
      from: 'Ev\u0000e <eve@example.com>',
      subject: 'nul\u0000 and \uD800 lone',
      text: 'body\u0000\uDC00',
      html: '<p>\u0000</p>',
      attachments: [{ filename: 'a\u0000.txt', content: 'x' }],
    });
    const mail = await parseInbound(raw);
    const strings = JSON.stringify({
      ...mail,
      attachments: mail.attachments.map((a) => ({ ...a, content: undefined })),
    });
    expect(strings).to.not.match(
      /\\u0000|\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}/i,
    );
    expect(mail.subject).to.include('\uFFFD');
  });

  const junk: Array<[string, Buffer]> = [
    ['empty', Buffer.alloc(0)],
    ['one line of text', Buffer.from('hello world')],
    ['binary', Buffer.from([0xff, 0xfe, 0, 1, 2, 0x80])],
  ];
  for (const [name, raw] of junk) {
    it(`refuses ${name} with UnparseableMail (an Invalid)`, async () => {
      const err = await parseInbound(raw).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(UnparseableMail).and.instanceOf(Invalid);
    });
  }

  it('parses malformed mail without throwing: broken multipart, bad encodings, junk ids', async () => {
    const raw = Buffer.from(
      'From: "unterminated <a@x\r\nTo: ,,,@@\r\nSubject: =?utf-8?B?####?=\r\nMessage-ID: not an id\r\nReferences: <ok@x> garbage <>\r\n' +
        'Content-Type: multipart/mixed; boundary=zz\r\n\r\n--zz\r\nContent-Type: text/plain; charset=utf-7\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!notbase64\r\n--zz\r\nContent-Type: application/octet-stream\r\n\r\n',
    );
    const mail = await parseInbound(raw);
    expect(mail.references).to.deep.equal(['<ok@x>']);
    expect(mail.messageId).to.equal(null);
    expect(mail.threadId).to.equal('<ok@x>');
    expect(mail.subject).to.be.a('string');
  });
});
