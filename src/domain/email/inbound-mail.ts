/** A mailbox as it appeared in an address header (`name` is empty when the header gave none). */
export interface MailAddress {
  address: string;
  name: string;
}

/** One attachment: always its metadata; its bytes only within the limits of {@link MailLimits}. */
export interface InboundAttachment {
  filename: string | null;
  contentType: string;
  /** Decoded size in bytes, whether or not the content was kept. */
  size: number;
  /** The decoded bytes, absent when the attachment (or the message's total) was over the limit. */
  content?: Buffer;
}

/**
 * The raw values of the headers the loop and bulk rules read (RFC 3834, RFC 2369/2919, the
 * de-facto `Precedence` and Microsoft's `X-Auto-Response-Suppress`); null when absent.
 * `returnPath` is the envelope sender when the listener knew it (an empty string is the null
 * sender `<>` of a bounce), else the `Return-Path` header's address.
 */
export interface LoopHeaders {
  autoSubmitted: string | null;
  precedence: string | null;
  listId: string | null;
  listUnsubscribe: string | null;
  autoResponseSuppress: string | null;
  returnPath: string | null;
}

/**
 * An email as the service stores and reasons about it. Every string is storable (U+0000 and lone
 * surrogates replaced by U+FFFD). `html` is the HTML part as the sender gave it: it is data, never
 * rendered by the service. Message ids keep their angle brackets (`<id@host>`), as headers carry them.
 */
export interface InboundMail {
  from: MailAddress | null;
  replyTo: MailAddress[];
  to: MailAddress[];
  cc: MailAddress[];
  subject: string;
  text: string;
  html: string | null;
  messageId: string | null;
  inReplyTo: string | null;
  /** The thread's ids, oldest first; bounded (the first and the most recent are kept). */
  references: string[];
  /** The conversation: the first of References, else In-Reply-To, else the own Message-ID; null when none. */
  threadId: string | null;
  loop: LoopHeaders;
  attachments: InboundAttachment[];
}

/**
 * What parsing keeps of a message. The message itself is bounded before parsing (the listener's
 * SIZE limit); these bound what is stored of its attachments.
 */
export interface MailLimits {
  /** Largest attachment whose bytes are kept. */
  attachmentBytes: number;
  /** Total bytes of attachment content kept per message (attachments in order, until the next would pass it). */
  attachmentsTotalBytes: number;
  /** Attachments listed per message (metadata); the rest are dropped. */
  attachmentsListed: number;
}

/** 10 MiB: the SIZE the listener advertises by default. */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** Defaults: 2 MiB per attachment, 5 MiB per message, 50 attachments listed. */
export const DEFAULT_MAIL_LIMITS: MailLimits = {
  attachmentBytes: 2 * 1024 * 1024,
  attachmentsTotalBytes: 5 * 1024 * 1024,
  attachmentsListed: 50,
};
