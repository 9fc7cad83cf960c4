import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import {
  DEFAULT_MAIL_LIMITS,
  type InboundAttachment,
  type InboundMail,
  type LoopHeaders,
  type MailAddress,
  type MailLimits,
} from '../../domain/email/inbound-mail.js';
import { boundedReferences, messageIds, threadIdOf } from '../../domain/email/thread.js';
import { Invalid } from '../../domain/errors.js';
import { storableText } from '../../infra/activity/buffered-sink.js';

/** The bytes are not an email at all (no header section), or the parser gave up on them. */
export class UnparseableMail extends Invalid {
  constructor(reason: string) {
    super(`The message could not be read as an email: ${reason}`);
  }
}

/** A header field name (RFC 5322 §3.6.8: printable ASCII but the colon). */
const FIELD_NAME = /^[\x21-\x39\x3B-\x7E]+$/;

/** HTML longer than this is not converted to text (the conversion's cost grows with it); `html` is still kept. */
const MAX_HTML_TO_TEXT_CHARS = 1024 * 1024;

/**
 * Parses a raw RFC 5322 message into an {@link InboundMail}: addresses, subject, text, the HTML part
 * as given (cid links kept, nothing rendered or rewritten), threading ids, the headers the loop
 * rules read, and attachments — metadata always (up to `attachmentsListed`), bytes only within
 * `attachmentBytes` each and `attachmentsTotalBytes` per message. `envelope.mailFrom` (the SMTP
 * MAIL FROM, '' for `<>`) is the return path when given. Every string is made storable.
 * Throws UnparseableMail when the bytes hold no header section; any other junk parses to what it holds.
 */
export async function parseInbound(
  raw: Buffer,
  limits: Partial<MailLimits> = {},
  envelope?: { mailFrom: string },
): Promise<InboundMail> {
  const lim = { ...DEFAULT_MAIL_LIMITS, ...limits };
  let parsed: ParsedMail;
  try {
    parsed = await simpleParser(raw, {
      keepCidLinks: true,
      skipHtmlToText: false,
      skipTextToHtml: true,
      skipTextLinks: true,
      skipImageLinks: true,
      maxHtmlLengthToParse: MAX_HTML_TO_TEXT_CHARS,
      checksumAlgo: false,
    });
  } catch (e) {
    throw new UnparseableMail(e instanceof Error ? storableText(e.message).slice(0, 200) : 'parser failure');
  }
  // mailparser keeps a line that is not a header under an empty key: a message needs one real field.
  if (!parsed.headerLines.some((h) => FIELD_NAME.test(h.key))) throw new UnparseableMail('it has no header section');
  const messageId = messageIds(parsed.messageId)[0] ?? null;
  const inReplyTo = messageIds(parsed.inReplyTo)[0] ?? null;
  const references = boundedReferences(messageIds(parsed.references));
  return {
    from: addresses(parsed.from)[0] ?? null,
    replyTo: addresses(parsed.replyTo),
    to: addresses(parsed.to),
    cc: addresses(parsed.cc),
    subject: storableText(parsed.subject ?? ''),
    text: storableText(parsed.text ?? ''),
    html: typeof parsed.html === 'string' ? storableText(parsed.html) : null,
    messageId: text(messageId),
    inReplyTo: text(inReplyTo),
    references: references.map(storableText),
    threadId: text(threadIdOf(references, inReplyTo, messageId)),
    loop: loopHeaders(parsed, envelope),
    attachments: attachments(parsed, lim),
  };
}

function text(value: string | null): string | null {
  return value === null ? null : storableText(value);
}

/** Mailboxes of an address header, groups flattened, entries without an address dropped. */
function addresses(header: AddressObject | AddressObject[] | undefined): MailAddress[] {
  if (!header) return [];
  const out: MailAddress[] = [];
  const visit = (entries: AddressObject['value']) => {
    for (const e of entries) {
      if (e.group) visit(e.group);
      else if (e.address) out.push({ address: storableText(e.address), name: storableText(e.name ?? '') });
    }
  };
  for (const h of Array.isArray(header) ? header : [header]) visit(h.value);
  return out;
}

/** The raw value of the first header named `key` (folding undone), or null. */
function rawHeader(parsed: ParsedMail, key: string): string | null {
  const line = parsed.headerLines.find((h) => h.key === key)?.line;
  if (line === undefined) return null;
  const colon = line.indexOf(':');
  return storableText(
    line
      .slice(colon + 1)
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim(),
  );
}

function loopHeaders(parsed: ParsedMail, envelope: { mailFrom: string } | undefined): LoopHeaders {
  const returnPathHeader = rawHeader(parsed, 'return-path');
  const returnPath = envelope
    ? storableText(envelope.mailFrom.trim())
    : returnPathHeader === null
      ? null
      : (/<([^<>]*)>/.exec(returnPathHeader)?.[1] ?? returnPathHeader).trim();
  return {
    autoSubmitted: rawHeader(parsed, 'auto-submitted'),
    precedence: rawHeader(parsed, 'precedence'),
    listId: rawHeader(parsed, 'list-id'),
    listUnsubscribe: rawHeader(parsed, 'list-unsubscribe'),
    autoResponseSuppress: rawHeader(parsed, 'x-auto-response-suppress'),
    returnPath,
  };
}

/** Attachment metadata, and content for each one that fits its own limit and what is left of the message's. */
function attachments(parsed: ParsedMail, lim: MailLimits): InboundAttachment[] {
  let kept = 0;
  return parsed.attachments.slice(0, Math.max(0, lim.attachmentsListed)).map((a) => {
    const size = a.size ?? a.content.length;
    const out: InboundAttachment = {
      filename: a.filename === undefined ? null : storableText(a.filename),
      contentType: storableText(a.contentType || 'application/octet-stream'),
      size,
    };
    if (size <= lim.attachmentBytes && kept + size <= lim.attachmentsTotalBytes) {
      out.content = a.content;
      kept += size;
    }
    return out;
  });
}
