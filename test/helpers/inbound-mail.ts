import type { InboundMail, LoopHeaders } from '../../src/domain/email/inbound-mail.js';

/** A plain person-to-agent message, with `over` replacing fields and `loop` replacing loop headers. */
export function inboundMail(
  over: Partial<Omit<InboundMail, 'loop'>> = {},
  loop: Partial<LoopHeaders> = {},
): InboundMail {
  return {
    from: { address: 'alice@example.com', name: 'Alice' },
    replyTo: [],
    to: [{ address: 'agent@mail.test', name: '' }],
    cc: [],
    subject: 'Question',
    text: 'Hello',
    html: null,
    messageId: '<m1@example.com>',
    inReplyTo: null,
    references: [],
    threadId: '<m1@example.com>',
    attachments: [],
    ...over,
    loop: {
      autoSubmitted: null,
      precedence: null,
      listId: null,
      listUnsubscribe: null,
      autoResponseSuppress: null,
      returnPath: 'alice@example.com',
      ...loop,
    },
  };
}
