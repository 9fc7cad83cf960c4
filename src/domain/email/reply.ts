import { Invalid } from '../errors.js';
import { newId } from '../ids.js';
import type { InboundMail } from './inbound-mail.js';
import type { TraceHeaders } from '../tracing/span.types.js';
import { boundedReferences } from './thread.js';

/** A message ready for the smarthost: the reply's headers and text, nothing provider-specific. */
export interface OutboundEmail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  messageId: string;
  inReplyTo: string | null;
  references: string[];
  /** Extra headers, e.g. `Auto-Submitted`. */
  headers: Record<string, string>;
  /** The send attempt's span: the smarthost's copy carries it as a `Traceparent` (and `Tracestate`) header. */
  trace?: TraceHeaders;
}

/** Longest subject composed (characters); a longer one is cut, so a hostile subject cannot grow a reply. */
export const MAX_SUBJECT_CHARS = 250;

/** Reply prefixes mail clients add, in the languages seen most: Re, Aw (German), Sv (Nordic), Antw (Dutch), Odp (Polish), with an optional `[n]` or `(n)` count. */
const REPLY_PREFIX = /^\s*(?:re|aw|sv|antw|odp)\s*(?:\[\d+\]|\(\d+\))?\s*:\s*/i;

/**
 * The agent's answer to `inbound`, threaded: In-Reply-To its Message-ID, References its references
 * plus its Message-ID (bounded), a `Re: ` subject that never stacks, `Auto-Submitted: auto-replied`
 * (RFC 3834, so other robots do not answer the answer) and a new Message-ID on `domain` (default:
 * the domain of `from`). Sent to Reply-To when given, else to From. Throws Invalid when the message
 * names no one to answer.
 */
export function composeReply(
  inbound: Pick<InboundMail, 'from' | 'replyTo' | 'subject' | 'messageId' | 'references'>,
  reply: { from: string; text: string; subject?: string | undefined; domain?: string },
): OutboundEmail {
  const to = (inbound.replyTo.length > 0 ? inbound.replyTo : inbound.from ? [inbound.from] : [])
    .map((a) => a.address)
    .filter((a) => a.trim() !== '');
  if (to.length === 0) throw new Invalid('The message names no address to answer (no From, no Reply-To)');
  const references = boundedReferences([...inbound.references, ...(inbound.messageId ? [inbound.messageId] : [])]);
  return {
    from: reply.from,
    to,
    subject: reply.subject !== undefined ? oneLine(reply.subject) : replySubject(inbound.subject),
    text: reply.text,
    messageId: newMessageId(reply.domain ?? domainOf(reply.from)),
    inReplyTo: inbound.messageId,
    references,
    // X-Auto-Response-Suppress asks Exchange not to send out-of-office notices back (a loop source).
    headers: { 'Auto-Submitted': 'auto-replied', 'X-Auto-Response-Suppress': 'All' },
  };
}

/** `Re: ` + the subject without its reply prefixes (`Re: Re:`, `RE:`, `Aw:`, `Re[2]:` → one `Re: `). */
export function replySubject(subject: string): string {
  let base = oneLine(subject);
  let prev: string;
  do {
    prev = base;
    base = base.replace(REPLY_PREFIX, '');
  } while (prev !== base);
  return cut(`Re: ${base}`.trim());
}

/** A new `<random@domain>` message id; `domain` is reduced to the characters a host name may hold. */
export function newMessageId(domain: string): string {
  const host = domain.toLowerCase().replace(/[^a-z0-9.-]/g, '') || 'localhost';
  return `<${newId('m').slice(2)}.${Date.now().toString(36)}@${host}>`;
}

function domainOf(address: string): string {
  const at = address.lastIndexOf('@');
  return at < 0 ? '' : address.slice(at + 1).split('>', 1)[0]!;
}

/** Header-safe: line breaks folded to spaces (no header injection through a subject), then cut. */
function oneLine(text: string): string {
  return cut(text.replace(/[\r\n\t]+/g, ' ').trim());
}

function cut(text: string): string {
  return cutText(text, MAX_SUBJECT_CHARS);
}

/** `text` cut to `max` characters, never ending on half of a surrogate pair (the text must stay storable). */
export function cutText(text: string, max: number): string {
  const head = text.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(head) ? head.slice(0, -1) : head;
}
