import type { Agent } from '../core/agent.entities.js';
import type { Clock } from '../clock.js';
import { Forbidden, Invalid } from '../errors.js';
import type { Json } from '../json.js';
import type { Message } from '../messages/message.entities.js';
import type { Store } from '../ports.js';
import { redactText } from '../runtime/guardrails.js';
import type { RunInput } from '../runtime/run.types.js';
import type { Channel, ChannelKind } from '../entries/channel.entities.js';
import type { ChannelQueueSignal } from './channel.ports.js';
import { channelAddress, senderAllowed } from '../entries/channel.schemas.js';
import { emailDetailsOf, outboundMessage } from './outbound-message.js';

/**
 * The most messages one run sends. A run's tool loop may take up to 100 steps, each with several
 * calls: without a cap, a model caught in a loop — or steered by the text of a message it is
 * answering — could send hundreds of emails or text messages (each SMS costs money, and lands on a
 * person's phone) before a member notices. Ten covers what one task sends: an answer, a copy, a
 * handful of notices. More is a job for a script, not a run.
 */
export const MAX_MESSAGES_PER_RUN = 10;

/** What sending needs besides the run: storage, the time, the queue to wake, the mail domain. */
export interface MessagingDeps {
  store: Store;
  clock: Clock;
  /** Wakes the channel queue; read at each send (the instance's consumer sets it after start). */
  queued: ChannelQueueSignal;
  /** MAIL_DOMAIN: the domain of sent Message-IDs (empty: the channel address's own). */
  mailDomain: string;
}

/** A send_email / send_sms call, its arguments validated. */
export interface SendRequest {
  to: string;
  text: string;
  subject?: string;
  from?: string | undefined;
}

/** The received message a run answers: the channel it came to, its sender, its thread. */
interface Answered {
  kind: ChannelKind;
  channelId: string;
  sender: string;
  threadId: string;
  messageId: string | null;
}

/** An email the agent sends on its own: RFC 3834's mark, so that autoresponders do not answer it. */
const INITIATIVE_HEADERS = { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' };
/** An email into the thread the run answers, as composeReply marks an answer. */
const REPLY_HEADERS = { 'Auto-Submitted': 'auto-replied', 'X-Auto-Response-Suppress': 'All' };

/**
 * Sends the messages of one run (docs/decisions.md §33): each one checked — a channel of the
 * agent's, a recipient the channel allows or the sender of the message the run answers, the per-run
 * cap — then stored as outbound `queued` (the channel queue sends it) and the queue woken.
 */
export class MessageSender {
  private used = 0;
  private readonly answered: Answered | null;

  constructor(
    private readonly deps: MessagingDeps,
    private readonly agent: Agent,
    private readonly runId: string,
    input: RunInput,
    /** The run's span: each message queued keeps it, so that its send attempts are in the run's trace. */
    private readonly traceParent?: string,
  ) {
    this.answered = answeredBy(input);
  }

  /** Queues one message; returns `{queued, to, from}`. Throws Invalid or Forbidden, which the model sees. */
  async send(kind: ChannelKind, req: SendRequest): Promise<Json> {
    if (this.used >= MAX_MESSAGES_PER_RUN) {
      throw new Forbidden(
        `This run already sent ${MAX_MESSAGES_PER_RUN} messages, the most one run may send; this one was not sent`,
      );
    }
    // The slot is taken before any wait, so calls the model makes in parallel cannot pass the cap together.
    this.used++;
    try {
      return await this.queue(kind, req);
    } catch (err) {
      this.used--;
      throw err;
    }
  }

  private async queue(kind: ChannelKind, req: SendRequest): Promise<Json> {
    const channel = await this.channelFor(kind, req.from);
    const to = channelAddress(kind, req.to.trim(), 'to');
    const thread = this.threadTo(channel, to);
    // An empty list allows no one here (unlike receiving, where it means anyone): the tools must never be an open relay.
    if (!thread && !(channel.allowedSenders.length > 0 && senderAllowed(kind, channel.allowedSenders, to))) {
      const why = channel.allowedSenders.length
        ? "it is not on the channel's allowed senders"
        : 'the channel lists no allowed senders, so it writes only to the sender of a message it answers';
      throw new Forbidden(`to: ${to} may not be written to from ${channel.address}: ${why}. Nothing was sent`);
    }
    const g = this.agent.guardrails;
    const now = this.deps.clock.now();
    const base = {
      channel,
      workspaceId: this.agent.workspaceId,
      to: [to],
      text: redactText(g, req.text),
      runId: this.runId,
      inReplyTo: thread?.messageId ?? null,
    };
    let message: Message;
    if (kind === 'SMS') {
      // A text conversation is the channel and the other party's number, as received ones are threaded.
      message = outboundMessage(
        { ...base, threadId: thread?.threadId ?? `${channel.id}:${to}` },
        now,
        this.deps.mailDomain,
      );
    } else {
      const draft = { ...base, subject: redactText(g, req.subject ?? ''), threadId: thread?.threadId ?? null };
      const references = thread ? await this.references(thread) : [];
      message = outboundMessage(
        { ...draft, references, headers: thread ? REPLY_HEADERS : INITIATIVE_HEADERS },
        now,
        this.deps.mailDomain,
      );
      // A new email starts its own thread: answers to it reference its Message-ID (threadIdOf).
      if (!thread) message = { ...message, threadId: message.messageId };
    }
    await this.deps.store.repos.messages.insert(
      this.traceParent ? { ...message, traceParent: this.traceParent } : message,
    );
    this.deps.queued.onQueued();
    return { queued: message.id, to, from: channel.address };
  }

  /** The agent's channel of `kind` named by `from`; default: the one the answered message came to, else the oldest. */
  private async channelFor(kind: ChannelKind, from: string | undefined): Promise<Channel> {
    const channels = (await this.deps.store.repos.channels.listByAgents([this.agent.id])).filter(
      (c) => c.kind === kind,
    );
    const label = kind === 'EMAIL' ? 'email address' : 'SMS number';
    if (!channels.length)
      throw new Forbidden(
        `This agent has no ${label} to send from; a member adds one (addChannel) first. Nothing was sent`,
      );
    if (from === undefined || from.trim() === '')
      return channels.find((c) => c.id === this.answered?.channelId) ?? channels[0]!;
    const address = channelAddress(kind, from.trim(), 'from');
    const channel = channels.find((c) => c.address === address);
    const labels = kind === 'EMAIL' ? 'email addresses' : 'SMS numbers';
    if (!channel)
      throw new Invalid(
        `from: ${address} is not one of this agent's ${labels} (${channels.map((c) => c.address).join(', ')})`,
        'from',
      );
    return channel;
  }

  /** The answered message when `to` is its sender and `channel` the one it came to: the send joins that thread. */
  private threadTo(channel: Channel, to: string): Answered | null {
    const a = this.answered;
    if (!a || a.kind !== channel.kind || a.channelId !== channel.id) return null;
    return normalised(a.kind, a.sender) === to ? a : null;
  }

  /** The References of an answer in the thread: the answered message's own, then its Message-ID. */
  private async references(a: Answered): Promise<string[]> {
    if (!a.messageId) return [];
    const inbound = await this.deps.store.repos.messages.findByMessageId(this.agent.id, 'inbound', a.messageId);
    return [...(inbound ? emailDetailsOf(inbound).references : []), a.messageId];
  }
}

/** The message a run answers, when its input is a received email or text message (messageRunInput). */
function answeredBy(input: RunInput): Answered | null {
  if (input.surface !== 'EMAIL' && input.surface !== 'SMS') return null;
  const b = input.body;
  const channelId = input.params.channel;
  if (!b || typeof b !== 'object' || Array.isArray(b) || !channelId) return null;
  if (typeof b.from !== 'string' || typeof b.threadId !== 'string' || !b.from) return null;
  return {
    kind: input.surface,
    channelId,
    sender: b.from,
    threadId: b.threadId,
    messageId: typeof b.messageId === 'string' ? b.messageId : null,
  };
}

/** A sender as a recipient is compared: normalised like a channel address, or as given when it is not one. */
function normalised(kind: ChannelKind, sender: string): string {
  try {
    return channelAddress(kind, sender.trim());
  } catch {
    return sender;
  }
}
