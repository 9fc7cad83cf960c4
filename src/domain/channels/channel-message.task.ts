import type { Agent } from '../agents/agent.entities.js';
import type { Clock } from '../clock.js';
import { DomainError, LimitExceeded, Unavailable } from '../errors.js';
import { newId } from '../ids.js';
import type { Json } from '../json.js';
import type { Message } from '../messages/message.entities.js';
import type { SystemPrincipal } from '../principal.js';
import type { Store } from '../ports.js';
import type { AdmittedRun, Pipeline } from '../runtime/pipeline.js';
import type { RunEntry, RunInput, RunResult } from '../runtime/run.types.js';
import { MAX_DELIVERY_ATTEMPTS } from '../webhooks/retry-schedule.js';
import type { Channel } from './channel.entities.js';
import type { ChannelOutcome } from './channel-outcome.js';
import type { SmsProvider, SmsSendResult } from './channel.ports.js';

/** The longest text message sent: what a Twilio-compatible API takes in one message (segments are its business). */
export const MAX_SMS_CHARS = 1600;
/** How many provider answers a message keeps (its send attempts, its status callbacks). */
export const KEPT_PROVIDER_EVENTS = 10;

/** The run input of a received message (DESIGN §5): `body` is `{from, to, text, messageId, threadId}`. */
export function messageRunInput(m: Message, channel: Channel): RunInput {
  return {
    surface: channel.kind,
    method: 'POST',
    path: channel.address,
    params: { channel: channel.id },
    query: {},
    headers: {},
    body: { from: m.from, to: m.to, text: m.body, messageId: m.messageId, threadId: m.threadId },
  };
}

/** The text of an answer: a string output, or a script's `{reply}`; null when there is nothing to send. */
export function replyText(output: Json): string | null {
  const text = typeof output === 'string' ? output : output && typeof output === 'object' && !Array.isArray(output) && 'reply' in output ? output.reply : output;
  if (text === null || text === undefined) return null;
  const s = typeof text === 'string' ? text : JSON.stringify(text);
  return s.trim() ? s : null;
}

/** The provider details of a message with one more event, the oldest dropped past KEPT_PROVIDER_EVENTS. */
export function withProviderEvent(provider: Json | null, key: 'sends' | 'callbacks', event: Json): Json {
  const base = provider && typeof provider === 'object' && !Array.isArray(provider) ? provider : {};
  const list = Array.isArray(base[key]) ? base[key] : [];
  return { ...base, [key]: [...list, event].slice(-KEPT_PROVIDER_EVENTS) };
}

/**
 * Runs one claimed message of a channel (docs/decisions.md §30): an inbound one is answered through
 * the pipeline like any surface's run, as the system principal `channel-answer` of its agent, and
 * its reply becomes an outbound message queued to send; an outbound one is sent through the
 * provider. It never settles or leases: the queue that handed it the message does.
 */
export class ChannelMessageTask {
  constructor(
    private readonly store: Store,
    private readonly pipeline: Pipeline,
    private readonly sms: SmsProvider,
    private readonly clock: Clock,
    private readonly baseUrl: string,
  ) {}

  /** One attempt; see ChannelOutcome for how each ending is settled. */
  async run(m: Message): Promise<ChannelOutcome> {
    if (m.failures >= MAX_DELIVERY_ATTEMPTS) {
      return { kind: 'failed', error: `Stopped after ${m.failures} attempts; the last did not finish (the instance running it stopped)`, runId: m.runId };
    }
    return m.direction === 'inbound' ? this.answer(m) : this.send(m);
  }

  private async answer(m: Message): Promise<ChannelOutcome> {
    const [agent, channel] = await Promise.all([this.store.repos.agents.get(m.agentId), m.channelId ? this.store.repos.channels.get(m.channelId) : null]);
    if (!agent || !channel) return { kind: 'failed', error: 'The agent or its channel was removed', runId: null };
    const result = await this.runHandler(agent, channel, m);
    if ('kind' in result) return result;
    if (result.error) return { kind: 'retry', error: result.error.message, runId: result.runId };
    const text = replyText(result.output);
    if (text === null) return { kind: 'done', status: 'answered', runId: result.runId };
    const now = this.clock.now();
    const reply: Message = {
      id: newId('msg'),
      workspaceId: m.workspaceId,
      agentId: m.agentId,
      direction: 'outbound',
      channel: m.channel,
      from: channel.address,
      to: m.from,
      subject: null,
      body: text.slice(0, MAX_SMS_CHARS),
      sentAt: now,
      createdAt: now,
      channelId: channel.id,
      threadId: m.threadId,
      messageId: null,
      inReplyTo: m.messageId,
      status: 'queued',
      attempts: 0,
      failures: 0,
      nextAttemptAt: now,
      lockedUntil: null,
      lastError: null,
      runId: result.runId,
      provider: null,
    };
    return { kind: 'done', status: 'answered', runId: result.runId, reply };
  }

  /** The handler's result, or how the attempt ended when the run could not start or finish. */
  private async runHandler(agent: Agent, channel: Channel, m: Message): Promise<RunResult | ChannelOutcome> {
    const entry: RunEntry = { kind: 'channel', id: channel.id, name: channel.address, handler: channel.handler, modelOverride: channel.modelOverride };
    const principal: SystemPrincipal = { kind: 'system', name: 'channel-answer', workspaceId: agent.workspaceId, agentId: agent.id };
    let run: AdmittedRun;
    try {
      run = await this.pipeline.begin(principal, agent, entry, messageRunInput(m, channel));
    } catch (err) {
      if (err instanceof LimitExceeded || err instanceof Unavailable) return { kind: 'deferred', error: err.message, retryAfterSeconds: err.retryAfterSeconds };
      if (err instanceof DomainError) return { kind: 'failed', error: err.message, runId: null };
      return { kind: 'retry', error: 'The run could not start', runId: null };
    }
    let result: RunResult | undefined;
    try {
      for await (const ev of run.events()) if (ev.type === 'done') result = ev.result;
    } catch (err) {
      if (err instanceof Unavailable) return { kind: 'deferred', error: err.message, retryAfterSeconds: err.retryAfterSeconds };
      return { kind: 'retry', error: err instanceof DomainError ? err.message : 'The run failed', runId: null };
    }
    return result ?? { kind: 'retry', error: 'The run ended without a result', runId: null };
  }

  private async send(m: Message): Promise<ChannelOutcome> {
    if (m.channel !== 'sms') return { kind: 'failed', error: 'Sending email is not available yet', runId: null };
    if (!this.sms.configured) return { kind: 'retry', error: 'SMS is not configured: set TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN', runId: null };
    const statusCallback = `${this.baseUrl}/agents/${encodeURIComponent(m.agentId)}/sms/status`;
    let sent: SmsSendResult;
    try {
      sent = await this.sms.send({ from: m.from, to: m.to, body: m.body, statusCallback });
    } catch (err) {
      sent = { ok: false, retry: true, error: err instanceof Error ? err.message : String(err), answer: null };
    }
    const at = this.clock.now().toISOString();
    if (sent.ok) {
      const provider = withProviderEvent(m.provider, 'sends', { at, attempt: m.attempts, status: sent.status, messageId: sent.messageId, answer: sent.answer });
      return { kind: 'done', status: 'sent', runId: null, provider, messageId: sent.messageId };
    }
    const provider = withProviderEvent(m.provider, 'sends', { at, attempt: m.attempts, error: sent.error, answer: sent.answer });
    return sent.retry ? { kind: 'retry', error: sent.error, runId: null, provider } : { kind: 'failed', error: sent.error, runId: null, provider };
  }
}
