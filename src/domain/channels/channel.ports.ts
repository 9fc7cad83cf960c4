import type { OutboundEmail } from '../email/reply.js';
import type { Json } from '../json.js';
import type { TraceHeaders } from '../tracing/span.types.js';
import type { AgentChildRepo } from '../repo.ports.js';
import type { Channel, ChannelKind } from '../entries/channel.entities.js';

// Ports of channels the domain talks to: their storage and the SMS provider. src/infra implements
// them; nothing here knows about SQL or HTTP.

export interface ChannelRepo extends AgentChildRepo<Channel> {
  /** The channel of that kind and address (an address routes to one agent), or null. */
  findByAddress(kind: ChannelKind, address: string): Promise<Channel | null>;
}

/** One text message to send. `statusCallback`: where the provider reports its delivery status. */
export interface OutgoingSms {
  from: string;
  to: string;
  body: string;
  statusCallback: string;
  /** The send attempt's span, as the provider's request carries it (`traceparent`, `tracestate` headers). */
  trace?: TraceHeaders;
}

/**
 * What the provider answered a send: `sent` with its message id and status; or refused — `retry`
 * when another attempt may succeed (the provider was unreachable, 5xx, 429), else for good.
 */
export type SmsSendResult =
  | { ok: true; messageId: string; status: string; answer: Json }
  | { ok: false; retry: boolean; error: string; answer: Json };

/** A Twilio-compatible SMS provider: checks the signature of its callbacks and sends messages. */
export interface SmsProvider {
  /** Whether the provider is configured (account and token); without it nothing is accepted or sent. */
  readonly configured: boolean;
  /** Whether `signature` signs the form `params` posted to `url` (the URL as the provider called it). */
  verify(url: string, params: Record<string, string>, signature: string): boolean;
  send(sms: OutgoingSms): Promise<SmsSendResult>;
}

/**
 * What the smarthost answered a send: taken, with its answer; or refused — `retry` when another
 * attempt may succeed (4xx, no answer, a refused login), else for good (5xx).
 */
export type EmailSendResult = { ok: true; answer: Json } | { ok: false; retry: boolean; error: string; answer: Json };

/** Where the agents' email goes out (SMTP_URL's smarthost). */
export interface EmailSender {
  /** Whether a smarthost is configured; without it replies wait in the outbox (retried). */
  readonly configured: boolean;
  send(mail: OutboundEmail): Promise<EmailSendResult>;
}

/** Wakes this instance's channel queue consumer when a message became due here. */
export interface ChannelQueueSignal {
  onQueued: () => void;
}
