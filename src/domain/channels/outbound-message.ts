import type { AnswerReason } from '../email/loop-rules.js';
import { composeReply, cutText, newMessageId } from '../email/reply.js';
import { boundedReferences } from '../email/thread.js';
import { newId } from '../ids.js';
import type { Json } from '../json.js';
import type { Message } from '../messages/message.entities.js';
import type { Channel } from '../entries/channel.entities.js';

/** The longest text message sent: what a Twilio-compatible API takes in one message (segments are its business). */
export const MAX_SMS_CHARS = 1600;
/** The longest email text sent (characters); a longer answer is cut. */
export const MAX_EMAIL_CHARS = 100_000;

/** What an email keeps beside the columns of `messages`, in `provider.email`. */
export interface EmailDetails {
  /** Threading: the References ids (bounded), oldest first. */
  references: string[];
  /** Outbound: headers sent with it (`Auto-Submitted`). */
  headers?: Record<string, string>;
  /** Inbound: who else it went to, where answers go, the HTML part as given (never rendered), and why it is (not) answered. */
  cc?: string[];
  replyTo?: string[];
  html?: string | null;
  answer?: AnswerReason;
  /** Inbound, answered: the one address the answer goes to (the authenticated From:, or an allowed Reply-To:). */
  answerTo?: string;
  /** Inbound: whether From: was authenticated, how, and what the checks found. */
  auth?: { authenticated: boolean; method: string; summary: string };
  attachments?: { filename: string | null; contentType: string; size: number; kept: boolean }[];
  /** Inbound: how it arrived (`smtp` with the envelope, or the provider's webhook). */
  via?: string;
  envelope?: { mailFrom: string; remoteAddress: string | null; secure: boolean };
}

/** The email details of a stored message (empty references when it has none, or is not an email). */
export function emailDetailsOf(m: Message): EmailDetails {
  const p = m.provider;
  const email = p && typeof p === 'object' && !Array.isArray(p) ? p.email : null;
  if (!email || typeof email !== 'object' || Array.isArray(email)) return { references: [] };
  const strings = (v: Json | undefined) =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  const headers =
    email.headers && typeof email.headers === 'object' && !Array.isArray(email.headers) ? email.headers : {};
  return {
    references: strings(email.references),
    headers: Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => typeof e[1] === 'string')),
    replyTo: strings(email.replyTo),
  };
}

/** An outbound message to store as `queued` (the channel queue sends it). */
export interface OutboundDraft {
  channel: Channel;
  workspaceId: string;
  to: string[];
  text: string;
  subject?: string | null;
  threadId: string | null;
  inReplyTo?: string | null;
  references?: string[];
  headers?: Record<string, string>;
  runId: string | null;
}

/**
 * The outbound message of `d`, due now. SMS: one recipient, text cut to MAX_SMS_CHARS. Email: the
 * recipients joined with `, `, text cut to MAX_EMAIL_CHARS, a new Message-ID on `mailDomain` (the
 * channel's own domain when unset) — the id threads the answers to it, and de-duplicates it.
 */
export function outboundMessage(d: OutboundDraft, now: Date, mailDomain: string): Message {
  const email = d.channel.kind === 'EMAIL';
  const details: EmailDetails = { references: boundedReferences(d.references ?? []), headers: d.headers ?? {} };
  return {
    id: newId('msg'),
    workspaceId: d.workspaceId,
    agentId: d.channel.agentId,
    direction: 'outbound',
    channel: email ? 'email' : 'sms',
    from: d.channel.address,
    to: email ? d.to.join(', ') : (d.to[0] ?? ''),
    subject: email ? (d.subject ?? '') : null,
    body: cutText(d.text, email ? MAX_EMAIL_CHARS : MAX_SMS_CHARS),
    sentAt: now,
    createdAt: now,
    channelId: d.channel.id,
    threadId: d.threadId,
    messageId: email
      ? newMessageId(mailDomain || d.channel.address.slice(d.channel.address.lastIndexOf('@') + 1))
      : null,
    inReplyTo: d.inReplyTo ?? null,
    status: 'queued',
    attempts: 0,
    failures: 0,
    nextAttemptAt: now,
    lockedUntil: null,
    lastError: null,
    runId: d.runId,
    provider: email ? { email: details as unknown as Json } : null,
  };
}

/**
 * The agent's answer to a stored inbound message, threaded: SMS to its sender; email through
 * composeReply to the one address decided when it was received (`answerTo`: the authenticated
 * From:, or a Reply-To: the channel allows) — never to a Reply-To nobody checked — with a `Re:`
 * subject unless the script gave one, In-Reply-To and References, `Auto-Submitted: auto-replied`.
 */
export function answerTo(
  inbound: Message,
  channel: Channel,
  reply: { text: string; subject?: string | undefined },
  runId: string | null,
  now: Date,
  mailDomain: string,
): Message {
  const base = {
    channel,
    workspaceId: inbound.workspaceId,
    text: reply.text,
    threadId: inbound.threadId,
    inReplyTo: inbound.messageId,
    runId,
  };
  if (channel.kind === 'SMS') return outboundMessage({ ...base, to: [inbound.from] }, now, mailDomain);
  const details = emailDetailsOf(inbound);
  // What composeReply reads of a received message: who to answer, the subject, the thread.
  // A message stored before answerTo existed is answered to its From:, never to its Reply-To.
  const to = inbound.answerTo ?? inbound.from;
  const asReceived = {
    from: to ? { address: to, name: '' } : null,
    replyTo: [],
    subject: inbound.subject ?? '',
    messageId: inbound.messageId,
    references: details.references,
  };
  const composed = composeReply(asReceived, { from: channel.address, text: reply.text, subject: reply.subject });
  return outboundMessage(
    { ...base, to: composed.to, subject: composed.subject, references: composed.references, headers: composed.headers },
    now,
    mailDomain,
  );
}
