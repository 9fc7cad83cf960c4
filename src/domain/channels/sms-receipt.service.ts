import type { Agent } from '../core/agent.entities.js';
import type { EventOutbox } from '../events/event.ports.js';
import { messageEvent } from '../events/event-emitters.js';
import type { Clock } from '../clock.js';
import { DomainError, Invalid, NotFound, Unauthenticated, Unavailable } from '../errors.js';
import { newId } from '../ids.js';
import type { Message, MessageStatus } from '../messages/message.entities.js';
import type { Store } from '../ports.js';
import { surfaceOff } from '../surfaces/surface-access.js';
import { storable } from '../webhooks/stored-delivery.js';
import { withProviderEvent } from './channel-message.task.js';
import type { ChannelQueueSignal, SmsProvider } from './channel.ports.js';
import { senderAllowed } from '../entries/channel.schemas.js';

/** A provider's callback as it arrives: the URL it called (as it sees it), the form, its signature. */
export interface SmsCallback {
  url: string;
  params: Record<string, string>;
  signature: string | undefined;
  /** The W3C traceparent of the span receiving it: the run that answers the message later links to it. */
  traceparent?: string;
}

/** How a callback ended, with the agent (when it exists) and the stored message for the activity log. */
export type SmsReceipt = { agent: Agent | null; message?: Message; duplicate?: boolean; refused?: DomainError };

/** A provider's delivery statuses, as the stored message's status; later ones never go back to earlier ones. */
const CALLBACK_STATUS: Record<string, MessageStatus> = {
  sent: 'sent',
  delivered: 'delivered',
  read: 'delivered',
  undelivered: 'undelivered',
  failed: 'failed',
};
const RANK: Partial<Record<MessageStatus, number>> = { queued: 0, sent: 1, delivered: 2, undelivered: 2, failed: 2 };

/**
 * The SMS surface (docs/decisions.md §30): a Twilio-compatible provider's callbacks at
 * `/agents/{agentId}/sms` (a message arrived) and `/agents/{agentId}/sms/status` (how a sent one
 * fared). Keyless: the provider's signature is the authentication. A received message is stored —
 * it is also the job that answers it — before the provider is answered; the answer comes later,
 * from the channel queue (ChannelMessageTask).
 */
export class SmsReceiptService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly sms: SmsProvider,
    private readonly queue: ChannelQueueSignal,
  ) {}

  /** Where `message.received` goes (outbound events); set by the composition root. */
  events?: EventOutbox;

  /**
   * A received message, in this order: agent (404) → signature (401) → surface on (403) → the
   * agent's channel for `To` (404) → stored once per MessageSid (a redelivery is answered as the
   * first was, and runs nothing). A sender not allowed, or a channel that does not answer, gets
   * its message stored as `ignored`. Never throws: a refusal is returned.
   */
  async receive(agentId: string, cb: SmsCallback): Promise<SmsReceipt> {
    let agent: Agent | null = null;
    try {
      agent = await this.enter(agentId, cb);
      const to = cb.params.To ?? '';
      const channel = await this.store.repos.channels.findByAddress('SMS', storable(to));
      if (!channel || channel.agentId !== agent.id)
        throw new NotFound(
          'SMS channel',
          storable(to),
          ': add it with the GraphQL mutation addChannel(agentId, input: {kind: SMS, address, handler})',
        );
      const from = storable(cb.params.From ?? '').trim();
      if (!from || from.length > 320) throw new Invalid('From: must be the sender, at most 320 characters', 'From');
      const allowed = senderAllowed('SMS', channel.allowedSenders, from);
      const now = this.clock.now();
      const answered = allowed && channel.autoReply;
      const { Body, MessageSid, SmsSid } = cb.params;
      const sid = MessageSid ?? SmsSid;
      const message: Message = {
        id: newId('msg'),
        workspaceId: agent.workspaceId,
        agentId: agent.id,
        direction: 'inbound',
        channel: 'sms',
        from,
        to: channel.address,
        subject: null,
        body: storable(Body ?? ''),
        sentAt: now,
        createdAt: now,
        channelId: channel.id,
        threadId: `${channel.id}:${from}`,
        messageId: sid ? storable(sid) : null,
        inReplyTo: null,
        status: answered ? 'received' : 'ignored',
        attempts: 0,
        failures: 0,
        nextAttemptAt: answered ? now : null,
        lockedUntil: null,
        lastError: answered
          ? null
          : allowed
            ? 'The channel does not answer automatically'
            : "The sender is not one of the channel's allowed senders",
        runId: null,
        provider: { received: storedParams(cb.params) },
        // The span of this callback's request: the run that answers the message later links to it.
        traceParent: cb.traceparent ?? null,
      };
      let stored: { message: Message; duplicate: boolean };
      try {
        stored = await this.store.repos.messages.accept(message);
      } catch (err) {
        throw new Unavailable(
          `The message could not be stored; send it again later (${err instanceof Error ? err.message : 'storage failed'})`,
          30,
        );
      }
      if (!stored.duplicate && answered) this.queue.onQueued();
      if (!stored.duplicate && this.events) messageEvent(this.events, stored.message);
      return { agent, ...stored };
    } catch (err) {
      return {
        agent,
        refused:
          err instanceof DomainError
            ? err
            : new Unavailable('The message could not be stored; send it again later', 30),
      };
    }
  }

  /**
   * A status callback of a sent message: agent (404) → signature (401) → surface on (403) → the
   * agent's outbound message with that MessageSid (404) → its status, never going back (a late
   * `sent` after `delivered` is kept in the provider details only).
   */
  async status(agentId: string, cb: SmsCallback): Promise<SmsReceipt> {
    let agent: Agent | null = null;
    try {
      agent = await this.enter(agentId, cb);
      const sid = storable(cb.params.MessageSid ?? cb.params.SmsSid ?? '');
      const message = sid ? await this.store.repos.messages.findByMessageId(agent.id, 'outbound', sid) : null;
      if (!message) throw new NotFound('Sent message', sid);
      const reported = storable(cb.params.MessageStatus ?? cb.params.SmsStatus ?? '');
      const next = CALLBACK_STATUS[reported];
      const keep = !next || (RANK[next] ?? 0) < (RANK[message.status ?? 'queued'] ?? 0);
      const status = keep ? (message.status ?? 'sent') : next;
      const provider = withProviderEvent(message.provider, 'callbacks', {
        at: this.clock.now().toISOString(),
        status: reported,
        errorCode: cb.params.ErrorCode ? storable(cb.params.ErrorCode) : null,
      });
      await this.store.repos.messages.setStatus(message.id, status, provider);
      return { agent, message: { ...message, status, provider } };
    } catch (err) {
      return {
        agent,
        refused:
          err instanceof DomainError ? err : new Unavailable('The status could not be stored; send it again later', 30),
      };
    }
  }

  /** The checks every callback passes first: agent → signature → surface on. */
  private async enter(agentId: string, cb: SmsCallback): Promise<Agent> {
    const agent = agentId.includes('\u0000') ? null : await this.store.repos.agents.get(agentId);
    if (!agent) throw new NotFound('Agent', storable(agentId));
    if (!this.sms.configured)
      throw new Unauthenticated('SMS signature check failed: the service has no TWILIO_AUTH_TOKEN to check it with');
    if (!cb.signature)
      throw new Unauthenticated('SMS signature check failed: the X-Twilio-Signature header is missing');
    if (!this.sms.verify(cb.url, cb.params, cb.signature))
      throw new Unauthenticated('SMS signature check failed: the signature does not match the request');
    if (!agent.surfaces.SMS.enabled) throw surfaceOff(agent.id, 'SMS');
    return agent;
  }
}

/** The form as stored with the message (the signature is not part of it). */
function storedParams(params: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [storable(k), storable(v)]));
}
