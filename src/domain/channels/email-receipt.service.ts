import type { ReceiptLog } from '../activity/activity-log.js';
import type { EventOutbox } from '../events/event.ports.js';
import { messageEvent } from '../events/event-emitters.js';
import type { Agent } from '../core/agent.entities.js';
import type { Clock } from '../clock.js';
import type { InboundMail } from '../email/inbound-mail.js';
import { normalAddress, shouldAnswer, type AnswerReason } from '../email/loop-rules.js';
import { answerRecipient, channelBudget, UNVERIFIED, type SenderVerdict } from '../email/sender-rules.js';
import { LimitExceeded, NotFound, Unavailable } from '../errors.js';
import { newId } from '../ids.js';
import type { Json } from '../json.js';
import type { Message } from '../messages/message.entities.js';
import type { Store } from '../ports.js';
import type { Channel } from '../entries/channel.entities.js';
import type { ChannelQueueSignal } from './channel.ports.js';
import { senderAllowed } from '../entries/channel.schemas.js';
import { keepsAttachmentBytes, storeCopy, type IntakeQuota } from './email-intake-quota.js';
import type { EmailDetails } from './outbound-message.js';
import type { Span } from '../tracing/call-trace.js';
import { emailReceiptEntry } from './email-receipt-entry.js';

/** How an email reached the service: the SMTP listener (with its envelope) or a provider's inbound webhook. */
export interface EmailDelivery {
  /** The addresses it was delivered to (RCPT TO, or the provider's recipient). */
  recipients: string[];
  via: 'smtp' | 'mailgun';
  envelope?: { mailFrom: string; remoteAddress: string | null; secure: boolean };
  /** Whether From: is the real sender, as the way in checked it; absent: unchecked, never answered. */
  sender?: SenderVerdict;
}

/** One stored copy of a received email: each recipient channel keeps its own. */
export interface EmailReceipt {
  agent: Agent;
  channel: Channel;
  message: Message;
  duplicate: boolean;
}

export interface EmailReceiptOptions {
  /** Automatic answers to one recipient per channel and hour (docs/decisions.md §32), counted by the address answered. */
  repliesPerSenderPerHour: number;
  /** Automatic answers per channel and hour, whoever they go to (issue 49, item 6). */
  repliesPerChannelPerHour: number;
  /** Inbound mail one channel stores per UTC day (none: unbounded); past it the sender is told to try later. */
  quota?: IntakeQuota;
}

export const DEFAULT_EMAIL_RECEIPT: EmailReceiptOptions = {
  repliesPerSenderPerHour: 10,
  repliesPerChannelPerHour: 100,
};

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
  unauthenticated: 'Not answered: not from an allowed sender — its From: address is not authenticated (SPF/DKIM/DMARC)',
  'not-allowed-sender': "Not answered: the sender is not one of the channel's allowed senders",
  'rate-limited': 'Not answered: this sender had the most automatic answers allowed in the last hour',
  'channel-rate-limited': 'Not answered: the channel sent the most automatic answers allowed in the last hour',
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
    private readonly calls: ReceiptLog,
    private readonly queue: ChannelQueueSignal,
    private readonly options: EmailReceiptOptions = DEFAULT_EMAIL_RECEIPT,
  ) {}

  /** Where `message.received` goes (outbound events); set by the composition root. */
  events?: EventOutbox;

  /** Whether mail to `address` is taken: an EMAIL channel routes it to an agent whose EMAIL surface is on. */
  async knownRecipient(address: string): Promise<boolean> {
    return (await this.route(address)) !== null;
  }

  /**
   * Stores `mail` for each of its recipients that is a known channel, together (one transaction:
   * all are stored or none). A message id seen before by a channel is not stored again and runs
   * nothing. Loop, bulk, sender and rate rules decide whether it is answered; it is stored either
   * way. Throws NotFound when no recipient is known, Unavailable when storage failed (the sender
   * must try again). The receipt is a call of its own (a `receive email` server span): each stored
   * copy keeps its traceparent, which the run answering it later links to.
   */
  receive(mail: InboundMail, delivery: EmailDelivery): Promise<EmailReceipt[]> {
    const attributes = {
      'messaging.operation.type': 'receive',
      'network.protocol.name': delivery.via === 'smtp' ? 'smtp' : 'http',
      'aes.surface': 'EMAIL',
      'aes.email.via': delivery.via,
    };
    return this.calls.receipt('receive email', attributes, (span) => this.take(mail, delivery, span));
  }

  private async take(mail: InboundMail, delivery: EmailDelivery, span: Span): Promise<EmailReceipt[]> {
    const routes: { agent: Agent; channel: Channel }[] = [];
    for (const address of new Set(delivery.recipients.map(normalAddress))) {
      const route = await this.route(address);
      if (route && !routes.some((r) => r.channel.id === route.channel.id)) routes.push(route);
    }
    if (routes.length === 0)
      throw new NotFound(
        'Email channel',
        delivery.recipients.slice(0, 5).join(', '),
        ': add it with addChannel(agentId, input: {kind: EMAIL, address, handler}) and turn the EMAIL surface on',
      );
    const drafts = await Promise.all(
      routes.map(async (r) => ({ ...r, message: await this.inboundMessage(r.agent, r.channel, mail, delivery, span) })),
    );
    let receipts: EmailReceipt[];
    try {
      receipts = await this.store.transaction(async (repos) => {
        const out: EmailReceipt[] = [];
        for (const d of drafts)
          out.push({
            agent: d.agent,
            channel: d.channel,
            ...(await storeCopy(
              repos.messages,
              { message: d.message, html: mail.html, kept: emailDetails(d.message).attachments ?? [] },
              mail,
              this.options.quota,
              d.message.createdAt,
            )),
          });
        return out;
      });
    } catch (err) {
      if (err instanceof LimitExceeded) throw err;
      throw new Unavailable(
        `The message could not be stored; send it again later (${err instanceof Error ? err.message : 'storage failed'})`,
        60,
      );
    }
    for (const r of receipts) {
      this.record(r, delivery, span);
      if (!r.duplicate && this.events) messageEvent(this.events, r.message);
    }
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

  private async inboundMessage(
    agent: Agent,
    channel: Channel,
    mail: InboundMail,
    delivery: EmailDelivery,
    span: Span,
  ): Promise<Message> {
    const now = this.clock.now();
    const from = (mail.from?.address ?? delivery.envelope?.mailFrom ?? '').trim().slice(0, 320);
    const verdict = delivery.sender ?? UNVERIFIED;
    const decision = await this.answerDecision(agent, channel, mail, verdict, now);
    const answerTo = 'to' in decision ? decision.to : null;
    const { reason } = decision;
    const answered = answerTo !== null;
    const lastError = answered
      ? null
      : reason !== 'ok'
        ? withVerdict(NOT_ANSWERED[reason], reason, verdict)
        : 'The channel does not answer automatically';
    const details: EmailDetails = {
      references: mail.references,
      cc: mail.cc.map((a) => a.address),
      replyTo: mail.replyTo.map((a) => a.address),
      html: mail.html,
      answer: reason,
      ...(answerTo !== null ? { answerTo } : {}),
      auth: { authenticated: verdict.authenticated, method: verdict.method, summary: verdict.summary },
      attachments: mail.attachments.map((a) => ({
        filename: a.filename,
        contentType: a.contentType,
        size: a.size,
        kept: a.content !== undefined && keepsAttachmentBytes(reason),
      })),
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
      answerTo,
      traceParent: span.traceparent(),
    };
  }

  /**
   * The loop and bulk rules against all of the agent's own addresses; then, on a channel that
   * answers, who is answered (an authenticated, allowed sender: {@link answerRecipient}) and the
   * hourly budgets of that recipient and of the channel. `to` only when the message is answered.
   */
  private async answerDecision(
    agent: Agent,
    channel: Channel,
    mail: InboundMail,
    verdict: SenderVerdict,
    now: Date,
  ): Promise<{ reason: AnswerReason; to?: string }> {
    const own = (await this.store.repos.channels.listByAgents([agent.id]))
      .filter((c) => c.kind === 'EMAIL')
      .map((c) => c.address);
    const loop = shouldAnswer(mail, own);
    if (!loop.answer) return { reason: loop.reason };
    if (!channel.autoReply) return { reason: 'ok' };
    const allowed = {
      open: channel.allowedSenders.length === 0,
      allows: (a: string) => senderAllowed('EMAIL', channel.allowedSenders, a),
    };
    const recipient = answerRecipient(mail, verdict, allowed);
    if (!recipient.answer) return { reason: recipient.reason };
    const since = new Date(now.getTime() - 3_600_000);
    const count = this.store.repos.messages;
    const [toRecipient, byChannel] = await Promise.all([
      count.countAnswerable(channel.id, recipient.to, since),
      count.countAnswerable(channel.id, null, since),
    ]);
    const budget = channelBudget(toRecipient, byChannel, {
      perRecipient: this.options.repliesPerSenderPerHour,
      perChannel: this.options.repliesPerChannelPerHour,
    });
    return budget === 'ok' ? { reason: 'ok', to: recipient.to } : { reason: budget };
  }

  /** The surface's activity entry of a stored message, in the receipt's trace. */
  private record(r: EmailReceipt, delivery: EmailDelivery, span: Span): void {
    this.calls.received(r.agent, emailReceiptEntry(r.message, r.channel.address, delivery.via, r.duplicate), span);
  }
}

/** The email details a stored message carries (set by `inboundMessage`). */
function emailDetails(m: Message): EmailDetails {
  return (m.provider as unknown as { email: EmailDetails }).email;
}

/** An unauthenticated message's note names what the checks found (`spf=fail dkim=none …`), so the console can say why. */
function withVerdict(note: string, reason: AnswerReason, verdict: SenderVerdict): string {
  return reason === 'unauthenticated' ? `${note}: ${verdict.summary}`.slice(0, 500) : note;
}
