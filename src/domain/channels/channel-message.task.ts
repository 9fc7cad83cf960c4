import type { Agent } from '../core/agent.entities.js';
import type { Clock } from '../clock.js';
import { DomainError, LimitExceeded, Unavailable } from '../errors.js';
import type { Json } from '../json.js';
import type { Message } from '../messages/message.entities.js';
import type { SystemPrincipal } from '../principal.js';
import type { Store } from '../ports.js';
import type { AdmittedRun, UnattendedRuns } from '../runtime/pipeline.js';
import type { RunEntry, RunInput, RunResult } from '../runtime/run.types.js';
import { MAX_DELIVERY_ATTEMPTS } from '../core/retry-schedule.js';
import type { Channel } from '../entries/channel.entities.js';
import type { ChannelOutcome } from './channel-outcome.js';
import type { EmailSender, EmailSendResult, SmsProvider, SmsSendResult } from './channel.ports.js';
import { answerTo, emailDetailsOf } from './outbound-message.js';
import { parseTraceparent } from '../tracing/trace-context.js';
import { sendTrace, type SendTracer } from './send-trace.js';

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

/** A script's `{subject}` for an email answer, when it gave a string. */
export function replySubjectOf(output: Json): string | undefined {
  return output && typeof output === 'object' && !Array.isArray(output) && typeof output.subject === 'string'
    ? output.subject
    : undefined;
}

/** The text of an answer: a string output, or a script's `{reply}`; null when there is nothing to send. */
export function replyText(output: Json): string | null {
  const text =
    output && typeof output === 'object' && !Array.isArray(output) && 'reply' in output ? output.reply : output;
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

/** What the channel queue's task works with: storage, the pipeline, the providers, where callbacks and Message-IDs point. */
export interface ChannelTaskDeps {
  store: Store;
  /** The call lifecycle: runs the answer through the pipeline and logs it. */
  calls: UnattendedRuns;
  sms: SmsProvider;
  email: EmailSender;
  clock: Clock;
  /** The service's public base URL (SMS status callbacks). */
  baseUrl: string;
  /** MAIL_DOMAIN: the domain of the Message-IDs of sent email (empty: each channel address's own). */
  mailDomain: string;
  /** Starts each send attempt's `send {channel}` client span; absent: a send carries the stored traceparent as is. */
  tracer?: SendTracer;
}

/**
 * Runs one claimed message of a channel (docs/decisions.md §30): an inbound one is answered through
 * the pipeline like any surface's run, as the system principal `channel-answer` of its agent, and
 * its reply becomes an outbound message queued to send; an outbound one is sent through the
 * provider. It never settles or leases: the queue that handed it the message does.
 */
export class ChannelMessageTask {
  constructor(private readonly deps: ChannelTaskDeps) {}

  /** One attempt; see ChannelOutcome for how each ending is settled. */
  async run(m: Message): Promise<ChannelOutcome> {
    if (m.failures >= MAX_DELIVERY_ATTEMPTS) {
      return {
        kind: 'failed',
        error: `Stopped after ${m.failures} attempts; the last did not finish (the instance running it stopped)`,
        runId: m.runId,
      };
    }
    return m.direction === 'inbound' ? this.answer(m) : this.send(m);
  }

  private async answer(m: Message): Promise<ChannelOutcome> {
    const [agent, channel] = await Promise.all([
      this.deps.store.repos.agents.get(m.agentId),
      m.channelId ? this.deps.store.repos.channels.get(m.channelId) : null,
    ]);
    if (!agent || !channel) return { kind: 'failed', error: 'The agent or its channel was removed', runId: null };
    const result = await this.runHandler(agent, channel, m);
    if ('kind' in result) return result;
    if (result.error) return { kind: 'retry', error: result.error.message, runId: result.runId };
    const text = replyText(result.output);
    if (text === null) return { kind: 'done', status: 'answered', runId: result.runId };
    // The agent answered in the thread with its own send_email/send_sms: its output is not sent as a second answer.
    if (m.threadId && (await this.deps.store.repos.messages.sentIntoThread(result.runId, m.threadId)))
      return { kind: 'done', status: 'answered', runId: result.runId };
    const subject = replySubjectOf(result.output);
    const reply = {
      ...answerTo(m, channel, { text, subject }, result.runId, this.deps.clock.now(), this.deps.mailDomain),
      // The answer is sent in the answering run's trace, as a send_email/send_sms of the run is.
      traceParent: result.traceParent,
    };
    return { kind: 'done', status: 'answered', runId: result.runId, reply };
  }

  /** The handler's result (and its run's span), or how the attempt ended when the run could not start or finish. */
  private async runHandler(
    agent: Agent,
    channel: Channel,
    m: Message,
  ): Promise<(RunResult & { traceParent: string }) | ChannelOutcome> {
    const entry: RunEntry = {
      kind: 'channel',
      id: channel.id,
      name: channel.address,
      handler: channel.handler,
      modelOverride: channel.modelOverride,
    };
    const principal: SystemPrincipal = {
      kind: 'system',
      name: 'channel-answer',
      workspaceId: agent.workspaceId,
      agentId: agent.id,
    };
    let run: AdmittedRun;
    try {
      // The run's trace is its own; its root links to the span of the call that received the message.
      const receipt = parseTraceparent(m.traceParent);
      run = await this.deps.calls.begin(principal, agent, entry, messageRunInput(m, channel), {
        links: receipt ? [receipt] : [],
      });
    } catch (err) {
      if (err instanceof LimitExceeded)
        return {
          kind: 'deferred',
          error: err.message,
          retryAfterSeconds: err.retryAfterSeconds,
          refusal: { code: err.code, reason: err.reason },
        };
      if (err instanceof Unavailable)
        return { kind: 'deferred', error: err.message, retryAfterSeconds: err.retryAfterSeconds };
      if (err instanceof DomainError)
        return { kind: 'failed', error: err.message, runId: null, refusal: { code: err.code } };
      return { kind: 'retry', error: 'The run could not start', runId: null };
    }
    let result: RunResult | undefined;
    try {
      for await (const ev of run.events()) if (ev.type === 'done') result = ev.result;
    } catch (err) {
      if (err instanceof Unavailable)
        return { kind: 'deferred', error: err.message, retryAfterSeconds: err.retryAfterSeconds };
      return { kind: 'retry', error: err instanceof DomainError ? err.message : 'The run failed', runId: null };
    }
    if (!result) return { kind: 'retry', error: 'The run ended without a result', runId: null };
    return { ...result, traceParent: run.span.traceparent() };
  }

  private send(m: Message): Promise<ChannelOutcome> {
    return m.channel === 'sms' ? this.sendSms(m) : this.sendEmail(m);
  }

  private async sendSms(m: Message): Promise<ChannelOutcome> {
    const { sms } = this.deps;
    if (!sms.configured)
      return {
        kind: 'retry',
        error: 'SMS is not configured: set TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN',
        runId: null,
      };
    const statusCallback = `${this.deps.baseUrl}/agents/${encodeURIComponent(m.agentId)}/sms/status`;
    const trace = sendTrace(this.deps.tracer, m);
    let sent: SmsSendResult;
    try {
      sent = await sms.send({
        from: m.from,
        to: m.to,
        body: m.body,
        statusCallback,
        ...(trace.headers ? { trace: trace.headers } : {}),
      });
    } catch (err) {
      sent = { ok: false, retry: true, error: err instanceof Error ? err.message : String(err), answer: null };
    }
    trace.end(sent.ok ? undefined : sent);
    if (!sent.ok) return this.refused(m, sent);
    const provider = withProviderEvent(m.provider, 'sends', {
      at: this.deps.clock.now().toISOString(),
      attempt: m.attempts,
      status: sent.status,
      messageId: sent.messageId,
      answer: sent.answer,
    });
    return { kind: 'done', status: 'sent', runId: null, provider, messageId: sent.messageId };
  }

  /** An email through the smarthost, as stored: recipients, subject, text, its Message-ID and threading headers. */
  private async sendEmail(m: Message): Promise<ChannelOutcome> {
    const { email } = this.deps;
    if (!email.configured)
      return { kind: 'retry', error: 'Email sending is not configured: set SMTP_URL to the smarthost', runId: null };
    const details = emailDetailsOf(m);
    const trace = sendTrace(this.deps.tracer, m);
    let sent: EmailSendResult;
    try {
      sent = await email.send({
        from: m.from,
        to: m.to
          .split(',')
          .map((a) => a.trim())
          .filter(Boolean),
        subject: m.subject ?? '',
        text: m.body,
        messageId: m.messageId ?? '',
        inReplyTo: m.inReplyTo,
        references: details.references,
        headers: details.headers ?? {},
        ...(trace.headers ? { trace: trace.headers } : {}),
      });
    } catch (err) {
      sent = { ok: false, retry: true, error: err instanceof Error ? err.message : String(err), answer: null };
    }
    trace.end(sent.ok ? undefined : sent);
    if (!sent.ok) return this.refused(m, sent);
    const provider = withProviderEvent(m.provider, 'sends', {
      at: this.deps.clock.now().toISOString(),
      attempt: m.attempts,
      answer: sent.answer,
    });
    return { kind: 'done', status: 'sent', runId: null, provider };
  }

  /** A provider's refusal: kept with the attempt; retried when another attempt may succeed. */
  private refused(m: Message, sent: { retry: boolean; error: string; answer: Json }): ChannelOutcome {
    const provider = withProviderEvent(m.provider, 'sends', {
      at: this.deps.clock.now().toISOString(),
      attempt: m.attempts,
      error: sent.error,
      answer: sent.answer,
    });
    return sent.retry
      ? { kind: 'retry', error: sent.error, runId: null, provider }
      : { kind: 'failed', error: sent.error, runId: null, provider };
  }
}
