import type { CatalogueKey, Refusal } from '../../domain/error-catalogue.js';

/** An SMTP reply: its code, and its text starting with the RFC 3463 enhanced status code. */
export interface SmtpReply {
  code: number;
  text: string;
}

/** The message was not stored: the sending server keeps it and tries again (RFC 5321 4yz). */
export const NOT_STORED: SmtpReply = { code: 451, text: '4.3.0 Message not stored, try again later' };
const notStored = (): SmtpReply => NOT_STORED;

/**
 * Each refusal kind as the SMTP listener replies to the end of DATA: bytes that are not an email
 * are refused for good (554), as is a mailbox that went away between RCPT TO and the end of DATA
 * (550); a channel past its daily quota is a temporary refusal (452: the sending server keeps the
 * message); anything else was not stored (451), so the sender tries again.
 */
const REPLIES: Record<CatalogueKey, (r: Refusal) => SmtpReply> = {
  INVALID: (r) => ({ code: 554, text: `5.6.0 ${r.message}` }),
  UNAUTHENTICATED: notStored,
  FORBIDDEN: notStored,
  NOT_FOUND: () => ({ code: 550, text: '5.1.1 No such mailbox here' }),
  METHOD_NOT_ALLOWED: notStored,
  CONFLICT: notStored,
  PAYLOAD_TOO_LARGE: (r) => ({ code: 552, text: `5.3.4 ${r.message}` }),
  UNSUPPORTED_MEDIA_TYPE: notStored,
  LIMIT_EXCEEDED: (r) => ({ code: 452, text: `4.2.2 ${r.message}` }),
  RUN_FAILED: notStored,
  UNAVAILABLE: notStored,
};

/** A refusal as the SMTP reply to a message. */
export function encodeSmtpReply(r: Refusal): SmtpReply {
  return REPLIES[r.key](r);
}

/** Whether a reply says the message was not stored for a reason of this service's own (worth a warning). */
export function notStoredReply(reply: SmtpReply): boolean {
  return reply === NOT_STORED;
}
