import type { InboundMail } from './inbound-mail.js';

/** Why a message is (not) answered automatically; stored with the message so the console can say so. */
export type AnswerReason =
  | 'ok'
  | 'auto-submitted'
  | 'precedence'
  | 'mailing-list'
  | 'auto-response-suppressed'
  | 'own-address'
  | 'system-sender'
  | 'null-sender'
  | 'no-sender'
  | 'unauthenticated'
  | 'not-allowed-sender'
  | 'rate-limited'
  | 'channel-rate-limited';

/** Whether to answer, and why. */
export interface AnswerDecision {
  answer: boolean;
  reason: AnswerReason;
}

/** Local parts that are mail systems or list machinery, never people (RFC 3834 §2, RFC 2142). */
const SYSTEM_LOCAL_PARTS = new Set(['mailer-daemon', 'postmaster']);

/**
 * Whether an inbound message may get an automatic answer (RFC 3834 §2): not when it was itself
 * automatic (`Auto-Submitted` other than `no`), bulk or list mail (`Precedence: bulk|list|junk`,
 * `List-Id`, `List-Unsubscribe`), when its sender asked for no auto-replies
 * (`X-Auto-Response-Suppress: All|AutoReply|OOF`), a bounce (null return path), from a mail system
 * (MAILER-DAEMON, postmaster, owner-*, *-request), or from — or answerable at — one of the agent's
 * own addresses. A message not answered is still stored. Pure; the caller stores `reason`.
 */
export function shouldAnswer(mail: InboundMail, ownAddresses: readonly string[]): AnswerDecision {
  const no = (reason: AnswerReason): AnswerDecision => ({ answer: false, reason });
  const { loop } = mail;
  const autoSubmitted = headerToken(loop.autoSubmitted);
  if (autoSubmitted !== null && autoSubmitted !== 'no') return no('auto-submitted');
  if (['bulk', 'list', 'junk'].includes(headerToken(loop.precedence) ?? '')) return no('precedence');
  if (present(loop.listId) || present(loop.listUnsubscribe)) return no('mailing-list');
  if (suppressesAutoReplies(loop.autoResponseSuppress)) return no('auto-response-suppressed');
  if (loop.returnPath !== null && loop.returnPath.trim() === '') return no('null-sender');
  const sender = mail.from?.address.trim() ?? '';
  if (sender === '') return no('no-sender');
  const own = new Set(ownAddresses.map(normalAddress));
  // The answer goes to Reply-To when given, else to From; From is checked in both cases.
  if ([sender, ...mail.replyTo.map((a) => a.address)].some((a) => own.has(normalAddress(a)))) return no('own-address');
  if ([sender, loop.returnPath].some((a) => a !== null && isSystemAddress(a))) return no('system-sender');
  return { answer: true, reason: 'ok' };
}

/**
 * The per-sender rate rule: answer while fewer than `limit` answers went to this sender in the
 * last hour (the caller counts them). A limit of 0 (or less, or not a number) answers nobody,
 * Infinity everybody; a count that is not a number counts as none sent.
 */
export function answerBudget(sentToSenderInLastHour: number, limit: number): AnswerDecision & { remaining: number } {
  const sent = Number.isFinite(sentToSenderInLastHour) ? Math.max(0, Math.floor(sentToSenderInLastHour)) : 0;
  const cap = Number.isNaN(limit) ? 0 : Math.max(0, Math.floor(limit));
  const remaining = Math.max(0, cap - sent);
  return remaining > 0
    ? { answer: true, reason: 'ok', remaining }
    : { answer: false, reason: 'rate-limited', remaining };
}

/** An address compared as mail systems compare in practice: trimmed, angle brackets off, case-folded. */
export function normalAddress(address: string): string {
  return address.trim().replace(/^<|>$/g, '').toLowerCase();
}

/** The first token of a header value, lower-cased (`auto-replied; foo=bar` → `auto-replied`); null when absent. */
function headerToken(value: string | null): string | null {
  if (value === null) return null;
  return value
    .trim()
    .split(/[\s;(]/, 1)[0]!
    .toLowerCase();
}

function present(value: string | null): boolean {
  return value !== null && value.trim() !== '';
}

function suppressesAutoReplies(value: string | null): boolean {
  if (value === null) return false;
  return value.split(',').some((v) => ['all', 'autoreply', 'oof'].includes(v.trim().toLowerCase()));
}

function isSystemAddress(address: string): boolean {
  const local = normalAddress(address).split('@', 1)[0]!;
  return SYSTEM_LOCAL_PARTS.has(local) || local.startsWith('owner-') || local.endsWith('-request');
}
