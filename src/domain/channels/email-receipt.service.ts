import type { ActivityLog } from '../activity/activity-log.js';
import type { Agent } from '../agents/agent.entities.js';
import type { Clock } from '../clock.js';
import type { InboundMail } from '../email/inbound-mail.js';
import { answerBudget, normalAddress, shouldAnswer, type AnswerReason } from '../email/loop-rules.js';
import { LimitExceeded, NotFound, Unavailable } from '../errors.js';
import { newId } from '../ids.js';
import type { Json } from '../json.js';
import type { Message } from '../messages/message.entities.js';
import type { Store } from '../ports.js';
import type { Channel } from './channel.entities.js';
import type { ChannelQueueSignal } from './channel.ports.js';
import { senderAllowed } from './channel.schemas.js';
import { keepsAttachmentBytes, storeCopy, type IntakeQuota } from './email-intake-quota.js';
import type { EmailDetails } from './outbound-message.js';

/** How an email reached the service: the SMTP listener (with its envelope) or a provider's inbound webhook. */
export interface EmailDelivery {
  /** The addresses it was delivered to (RCPT TO, or the provider's recipient). */
  recipients: string[];
  via: 'smtp' | 'mailgun';
  envelope?: { mailFrom: string; remoteAddress: string | null; secure: boolean };
}

/** One stored copy of a received email: each recipient channel keeps its own. */
export interface EmailReceipt {
  agent: Agent;
  channel: Channel;
  message: Message;
  duplicate: boolean;
}

export interface EmailReceiptOptions {
  /** Automatic answers to one sender per channel and hour (docs/decisions.md §32). */
  repliesPerSenderPerHour: number;
  /** Inbound mail one channel stores per UTC day (none: unbounded); past it the sender is told to try later. */
  quota?: IntakeQuota;
}

export const DEFAULT_EMAIL_RECEIPT: EmailReceiptOptions = { repliesPerSenderPerHour: 10 };

/** Why a message is stored without an answer, as `last_error` says it. */
const NOT_ANSWERED: Record<Exclude<AnswerReason, 'ok'>, string> = {
  'auto-submitted': 'Not answered: the message was sent automatically (Auto-Submitted)',
  precedence: 'Not answered: bulk or list mail (Precedence)',
  'mailing-list': 'Not answered: mailing-list mail (List-Id or List-Unsubscribe)',
  'auto-response-suppressed': 'Not answered: the sender asked for no automatic replies (X-Auto-Response-Suppress)',
  'own-address': "Not answered: it comes from (or answers to) one of the agent's own addresses",
  'system-sender': 'Not answered: it comes from a mail system (MAILER-DAEMON, postmaster, a list address)',
  'null-sender': 'Not answered: a bounce (null return path)',
  'no-sender': 'Not answered: it names no sender',
  'rate-limited': 'Not answered: this sender had the most automatic answers allowed in the last hour',
};

/**
 * The EMAIL surface's way in (docs/decisions.md §32): the SMTP listener and the provider webhook
 * hand it a parsed message and its recipients; it stores one inbound message per recipient
 * channel — also the job that answers it — in one transaction, before the sender is told yes.
 * Keyless: the listener accepts only known recipients; a provider's webhook is signed.
 */
export class EmailReceiptService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly activityLog: ActivityLog,
    private readonly queue: ChannelQueueSignal,
    private readonly options: EmailReceiptOptions = DEFAULT_EMAIL_RECEIPT,
  ) {}

  /** Whether mail to `address` is taken: an EMAIL channel routes it to an agent whose EMAIL surface is on. */
  async knownRecipient(address: string): Promise<boolean> {
    return (await this.route(address)) !== null;
  }

  /**
   * Stores `mail` for each of its recipients that is a known channel, together (one transaction:
   * all are stored or none). A message id seen before by a channel is not stored again and runs
   * nothing. Loop, bulk, sender and rate rules decide whether it is answered; it is stored either
   * way. Throws NotFound when no recipient is known, Unavailable when storage failed (the sender
   * must try again).
   */
  async receive(mail: InboundMail, delivery: EmailDelivery): Promise<EmailReceipt[]> {
    const routes: { agent: Agent; channel: Channel }[] = [];
    for (const address of new Set(delivery.recipients.map(normalAddress))) {
      const route = await this.route(address);
      if (route && !routes.some((r) => r.channel.id === route.channel.id)) routes.push(route);
    }
    if (routes.length === 0) throw new NotFound('Email channel', delivery.recipients.slice(0, 5).join(', '), ': add it with addChannel(agentId, input: {kind: EMAIL, address, handler}) and turn the EMAIL surface on');
    const drafts = await Promise.all(routes.map(async (r) => ({ ...r, message: await this.inboundMessage(r.agent, r.channel, mail, delivery) })));
    let receipts: EmailReceipt[];
    try {
      receipts = await this.store.transaction(async (repos) => {
        const out: EmailReceipt[] = [];
        for (const d of drafts) out.push({ agent: d.agent, channel: d.channel, ...(await storeCopy(repos.messages, { message: d.message, html: mail.html, kept: emailDetails(d.message).attachments ?? [] }, mail, this.options.quota, d.message.createdAt)) });
        return out;
      });
    } catch (err) {
      if (err instanceof LimitExceeded) throw err;
      throw new Unavailable(`The message could not be stored; send it again later (${err instanceof Error ? err.message : 'storage failed'})`, 60);
    }
    for (const r of receipts) this.record(r, delivery);
    if (receipts.some((r) => !r.duplicate && r.message.nextAttemptAt !== null)) this.queue.onQueued();
    return receipts;
  }

  /** The channel and agent mail to `address` goes to, when both take email. */
  private async route(address: string): Promise<{ agent: Agent; channel: Channel } | null> {
    const normal = normalAddress(address);
    if (!normal || normal.length > 320 || normal.includes('\u0000')) return null;
    const channel = await this.store.repos.channels.findByAddress('EMAIL', normal);
    const agent = channel ? await this.store.repos.agents.get(channel.agentId) : null;
    return channel && agent?.surfaces.EMAIL.enabled ? { agent, channel } : null;
  }

  private async inboundMessage(agent: Agent, channel: Channel, mail: InboundMail, delivery: EmailDelivery): Promise<Message> {
    const now = this.clock.now();
    const from = (mail.from?.address ?? delivery.envelope?.mailFrom ?? '').trim().slice(0, 320);
    const reason = await this.answerReason(agent, channel, mail, from, now);
    const answered = reason === 'ok' && channel.autoReply && senderAllowed('EMAIL', channel.allowedSenders, from);
    const lastError = answered ? null : reason !== 'ok' ? NOT_ANSWERED[reason] : channel.autoReply ? "The sender is not one of the channel's allowed senders" : 'The channel does not answer automatically';
    const details: EmailDetails = {
      references: mail.references,
      cc: mail.cc.map((a) => a.address),
      replyTo: mail.replyTo.map((a) => a.address),
      html: mail.html,
      answer: reason,
      attachments: mail.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, size: a.size, kept: a.content !== undefined && keepsAttachmentBytes(reason) })),
      via: delivery.via,
      ...(delivery.envelope ? { envelope: delivery.envelope } : {}),
    };
    return {
      id: newId('msg'),
      workspaceId: agent.workspaceId,
      agentId: agent.id,
      direction: 'inbound',
      channel: 'email',
      from,
      to: channel.address,
      subject: mail.subject,
      body: mail.text,
      sentAt: now,
      createdAt: now,
      channelId: channel.id,
      threadId: mail.threadId ?? `${channel.id}:${from.toLowerCase()}`,
      messageId: mail.messageId,
      inReplyTo: mail.inReplyTo,
      status: answered ? 'received' : 'ignored',
      attempts: 0,
      failures: 0,
      nextAttemptAt: answered ? now : null,
      lockedUntil: null,
      lastError,
      runId: null,
      provider: { email: details as unknown as Json },
    };
  }

  /** The loop and bulk rules against all of the agent's own addresses, then the per-sender budget. */
  private async answerReason(agent: Agent, channel: Channel, mail: InboundMail, from: string, now: Date): Promise<AnswerReason> {
    const own = (await this.store.repos.channels.listByAgents([agent.id])).filter((c) => c.kind === 'EMAIL').map((c) => c.address);
    const loop = shouldAnswer(mail, own);
    if (!loop.answer) return loop.reason;
    const since = new Date(now.getTime() - 3_600_000);
    return answerBudget(await this.store.repos.messages.countAnswerable(channel.id, from, since), this.options.repliesPerSenderPerHour).reason;
  }

  /** The surface's activity entry of a stored message (a redelivery is on record too, as such). */
  private record(r: EmailReceipt, delivery: EmailDelivery): void {
    const m = r.message;
    this.activityLog.record(r.agent, {
      surface: 'EMAIL',
      entry: r.channel.address,
      method: delivery.via === 'smtp' ? 'SMTP' : 'POST',
      path: r.channel.address,
      status: delivery.via === 'smtp' ? 250 : 200,
      requestBody: { from: m.from, to: m.to, subject: m.subject, messageId: m.messageId, threadId: m.threadId, via: delivery.via },
      response: { stored: m.id, status: m.status, duplicate: r.duplicate, ...(m.lastError ? { note: m.lastError } : {}) },
      credits: 0,
      durationMs: null,
    });
  }
}

/** The email details a stored message carries (set by `inboundMessage`). */
function emailDetails(m: Message): EmailDetails {
  return (m.provider as unknown as { email: EmailDetails }).email;
}
