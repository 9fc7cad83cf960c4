import { expect } from 'chai';
import type { LoopHeaders, MailAddress } from '../../src/domain/email/inbound-mail.js';
import { answerBudget, normalAddress, shouldAnswer, type AnswerReason } from '../../src/domain/email/loop-rules.js';
import { inboundMail } from '../helpers/inbound-mail.js';

const OWN = ['agent@mail.test', 'Support@Mail.Test'];
const person = (address: string): MailAddress => ({ address, name: '' });

describe('email loop and bulk rules', () => {
  const cases: Array<
    [string, Partial<LoopHeaders>, { from?: MailAddress | null; replyTo?: MailAddress[] }, AnswerReason]
  > = [
    ['a person writing', {}, {}, 'ok'],
    ['Auto-Submitted: no', { autoSubmitted: 'no' }, {}, 'ok'],
    ['Auto-Submitted: No (comment)', { autoSubmitted: ' No (by hand)' }, {}, 'ok'],
    ['Auto-Submitted: auto-replied', { autoSubmitted: 'auto-replied' }, {}, 'auto-submitted'],
    ['Auto-Submitted: auto-generated', { autoSubmitted: 'Auto-Generated' }, {}, 'auto-submitted'],
    [
      'Auto-Submitted: auto-notified; owner-email=x',
      { autoSubmitted: 'auto-notified; owner-email="a@b"' },
      {},
      'auto-submitted',
    ],
    ['Auto-Submitted empty', { autoSubmitted: '' }, {}, 'auto-submitted'],
    ['Precedence: bulk', { precedence: 'bulk' }, {}, 'precedence'],
    ['Precedence: List', { precedence: 'List' }, {}, 'precedence'],
    ['Precedence: junk', { precedence: ' junk ' }, {}, 'precedence'],
    ['Precedence: first-class', { precedence: 'first-class' }, {}, 'ok'],
    ['List-Id', { listId: 'Dev list <dev.lists.example.com>' }, {}, 'mailing-list'],
    ['List-Unsubscribe', { listUnsubscribe: '<mailto:leave@lists.example.com>' }, {}, 'mailing-list'],
    ['List-Id empty', { listId: '  ' }, {}, 'ok'],
    [
      'X-Auto-Response-Suppress: OOF, AutoReply',
      { autoResponseSuppress: 'DR, OOF, AutoReply' },
      {},
      'auto-response-suppressed',
    ],
    ['X-Auto-Response-Suppress: All', { autoResponseSuppress: 'All' }, {}, 'auto-response-suppressed'],
    [
      'X-Auto-Response-Suppress: AutoReply alone',
      { autoResponseSuppress: 'AutoReply' },
      {},
      'auto-response-suppressed',
    ],
    ['X-Auto-Response-Suppress: OOF alone', { autoResponseSuppress: ' oof ' }, {}, 'auto-response-suppressed'],
    ['X-Auto-Response-Suppress: DR only', { autoResponseSuppress: 'DR' }, {}, 'ok'],
    ['null return path (a bounce)', { returnPath: '' }, {}, 'null-sender'],
    ['return path of spaces (a bounce)', { returnPath: '  ' }, {}, 'null-sender'],
    ['unknown return path', { returnPath: null }, {}, 'ok'],
    ['no From', {}, { from: null }, 'no-sender'],
    ['From empty', {}, { from: person(' ') }, 'no-sender'],
    ['From the agent itself', {}, { from: person('agent@mail.test') }, 'own-address'],
    ['From another own address, other case', {}, { from: person('SUPPORT@mail.test') }, 'own-address'],
    ['Reply-To an own address', {}, { replyTo: [person('<agent@MAIL.test>')] }, 'own-address'],
    ['From MAILER-DAEMON', {}, { from: person('MAILER-DAEMON@mx.example.com') }, 'system-sender'],
    ['From postmaster', {}, { from: person('postmaster@example.com') }, 'system-sender'],
    ['return path owner-list', { returnPath: 'owner-dev@lists.example.com' }, {}, 'system-sender'],
    ['From list-request', {}, { from: person('dev-request@lists.example.com') }, 'system-sender'],
    [
      'From the agent, Reply-To elsewhere',
      {},
      { from: person('agent@mail.test'), replyTo: [person('team@example.com')] },
      'own-address',
    ],
    ['Reply-To elsewhere', {}, { replyTo: [person('team@example.com')] }, 'ok'],
  ];
  for (const [name, loop, over, reason] of cases) {
    it(`${name} → ${reason}`, () => {
      const decision = shouldAnswer(inboundMail(over, loop), OWN);
      expect(decision).to.deep.equal({ answer: reason === 'ok', reason });
    });
  }

  it('checks the bulk headers before the sender, so a list message from the agent names the list', () => {
    expect(shouldAnswer(inboundMail({ from: person('agent@mail.test') }, { listId: 'x <x.y>' }), OWN).reason).to.equal(
      'mailing-list',
    );
  });

  it('compares own addresses trimmed, without angle brackets at the ends, case-folded', () => {
    expect(shouldAnswer(inboundMail({ from: person('agent@mail.test') }), ['  <Agent@Mail.Test>  ']).reason).to.equal(
      'own-address',
    );
    expect(normalAddress(' <Agent@Mail.Test> ')).to.equal('agent@mail.test');
    // Only a bracket at either end goes: one inside an odd address is part of it.
    expect(normalAddress('<odd<name>x@y>')).to.equal('odd<name>x@y');
  });

  const budget: Array<[number, number, boolean, number]> = [
    [0, 5, true, 5],
    [4, 5, true, 1],
    [5, 5, false, 0],
    [9, 5, false, 0],
    [0, 0, false, 0],
    [0, -3, false, 0],
    [Number.NaN, 2, true, 2],
    [-4, 2, true, 2],
    [1.5, 2, true, 1],
    [1000, Number.POSITIVE_INFINITY, true, Number.POSITIVE_INFINITY],
    [0, Number.NaN, false, 0],
  ];
  for (const [sent, limit, answer, remaining] of budget) {
    it(`answerBudget(${sent}, ${limit}) → ${answer ? 'answer' : 'rate-limited'}, ${remaining} left`, () => {
      expect(answerBudget(sent, limit)).to.deep.equal({ answer, reason: answer ? 'ok' : 'rate-limited', remaining });
    });
  }
});
