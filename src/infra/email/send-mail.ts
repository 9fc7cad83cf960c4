import nodemailer from 'nodemailer';
import type { OutboundEmail } from '../../domain/email/reply.js';
import { storableText } from '../activity/buffered-sink.js';

/** What the smarthost said when it took the message. */
export interface SendResult {
  accepted: string[];
  response: string;
}

/** Longest server answer kept (it is stored with each attempt). */
const MAX_ANSWER_CHARS = 500;

/**
 * The smarthost did not take the message. `code` is the SMTP reply code (null when no reply came:
 * connection refused, timeout, TLS failure); `text` is the server's answer as given (or the
 * connection error). `transient` is the outbox's retry decision: a 4xx reply (and 503) or no reply
 * at all may succeed later; any other 5xx will not. A refused login (EAUTH) counts as transient:
 * the operator's credentials are wrong, not the message, and retrying after a fix delivers it.
 */
export class SmtpSendFailure extends Error {
  constructor(
    readonly code: number | null,
    readonly text: string,
    readonly transient: boolean,
  ) {
    super(
      code === null ? `The mail server could not be reached: ${text}` : `The mail server refused the message: ${text}`,
    );
    this.name = 'SmtpSendFailure';
  }
}

interface NodemailerFailure extends Error {
  code?: string;
  response?: string;
  responseCode?: number;
  permanent?: boolean;
}

/**
 * Sends `message` through the smarthost at `smtpUrl` (`smtp://user:pass@host:587`, `smtps://…`;
 * STARTTLS is used whenever the server offers it). One connection per call, closed after: the
 * outbox sends few messages and retries each on its own schedule. Resolves with the accepted
 * recipients and the server's final answer; rejects with SmtpSendFailure only.
 */
export async function sendMail(smtpUrl: string, message: OutboundEmail): Promise<SendResult> {
  let transport: ReturnType<typeof nodemailer.createTransport>;
  try {
    transport = nodemailer.createTransport({
      url: smtpUrl,
      connectionTimeout: 30_000,
      greetingTimeout: 30_000,
      socketTimeout: 60_000,
      // The message holds text only: never let a field make nodemailer read a file or fetch a URL.
      disableFileAccess: true,
      disableUrlAccess: true,
    });
  } catch (e) {
    throw failure(e);
  }
  try {
    const info = await transport.sendMail({
      from: message.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      messageId: message.messageId,
      ...(message.inReplyTo ? { inReplyTo: message.inReplyTo } : {}),
      ...(message.references.length > 0 ? { references: message.references } : {}),
      headers: { ...message.headers, ...traceHeaders(message) },
    });
    return { accepted: info.accepted.map(String), response: bounded(info.response) };
  } catch (e) {
    throw failure(e);
  } finally {
    transport.close();
  }
}

function failure(e: unknown): SmtpSendFailure {
  const err = (e instanceof Error ? e : new Error(String(e))) as NodemailerFailure;
  if (typeof err.responseCode === 'number') {
    const transient =
      err.code === 'EAUTH' || err.permanent === false || err.responseCode < 500 || err.responseCode === 503;
    return new SmtpSendFailure(err.responseCode, bounded(err.response ?? err.message), transient);
  }
  return new SmtpSendFailure(null, bounded(err.message), true);
}

function bounded(text: string): string {
  const t = storableText(text.trim());
  return t.length <= MAX_ANSWER_CHARS ? t : `${t.slice(0, MAX_ANSWER_CHARS)}…`;
}

/**
 * The send attempt's span as message headers. Mail has no W3C binding: `Traceparent` (and
 * `Tracestate`) are the HTTP header's name and value, which no mail system reads or acts on
 * (docs/tracing.md); a smarthost or a collector reading its logs may.
 */
function traceHeaders(message: OutboundEmail): Record<string, string> {
  if (!message.trace) return {};
  const { traceparent, tracestate } = message.trace;
  return { Traceparent: traceparent, ...(tracestate ? { Tracestate: tracestate } : {}) };
}
