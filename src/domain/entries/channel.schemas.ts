import { z } from 'zod';
import { Invalid } from '../errors.js';
import { handlerInput } from './entry.schemas.js';
import { modelRef } from '../validation.js';
import { CHANNEL_KINDS, type ChannelKind } from './channel.entities.js';

/** An E.164 number: `+`, a country code, at most 15 digits in all. */
const E164 = /^\+[1-9][0-9]{1,14}$/;
// With the `u` flag a lone surrogate is a code point of its own, in the range refused here.
const PART = '[^\\s@<>(),;:"\\u0000-\\u001f\\u007f\\ud800-\\udfff]+';
/** An email address as routing needs it: something, `@`, a domain with a dot; no spaces, no control characters or lone surrogates. */
const EMAIL = new RegExp(`^${PART}@${PART}\\.${PART}$`, 'u');
/** The longest list of allowed senders. */
export const MAX_ALLOWED_SENDERS = 100;

// A new schema per field: the tools' descriptions are attached per schema (TOOL_DESCRIPTIONS), and
// the channel's own address is not described like a sender of the allowed list.
const address = () => z.string().trim().min(1, 'must not be empty').max(320, 'must be at most 320 characters');
const senders = () =>
  z.array(address()).max(MAX_ALLOWED_SENDERS, `may list at most ${MAX_ALLOWED_SENDERS} senders`).nullable().optional();

export const channelInput = z.object({
  kind: z.enum(CHANNEL_KINDS),
  address: address(),
  handler: handlerInput,
  modelOverride: modelRef.nullable().optional(),
  allowedSenders: senders(),
  autoReply: z.boolean().nullable().optional(),
});
export const channelPatch = z.object({
  address: address().optional(),
  handler: handlerInput.optional(),
  modelOverride: modelRef.nullable().optional(),
  allowedSenders: senders(),
  autoReply: z.boolean().optional(),
});

/**
 * The channel's address as stored: an E.164 number for SMS, a lower-case address for email.
 * Throws Invalid naming `field` when it is neither.
 */
export function channelAddress(kind: ChannelKind, value: string, field = 'input.address'): string {
  if (kind === 'SMS') {
    const number = value.replace(/[\s().-]/g, '');
    if (!E164.test(number))
      throw new Invalid(`${field}: must be a phone number in E.164 form, such as +14155550100`, field);
    return number;
  }
  const lower = value.toLowerCase();
  if (!EMAIL.test(lower))
    throw new Invalid(`${field}: must be an email address, such as support@mail.example.com`, field);
  return lower;
}

/**
 * The allowed senders as stored: numbers for SMS; addresses, or `@domain` for a whole domain, for
 * email. Duplicates are dropped.
 */
export function allowedSendersOf(kind: ChannelKind, values: readonly string[]): string[] {
  const out = values.map((v, i) => {
    const field = `input.allowedSenders.${i}`;
    if (kind === 'EMAIL' && v.startsWith('@')) return `@${channelAddress('EMAIL', `x${v}`, field).slice(2)}`;
    return channelAddress(kind, v, field);
  });
  return [...new Set(out)];
}

/** Whether a message from `sender` may be answered on a channel with these allowed senders (empty: anyone). */
export function senderAllowed(kind: ChannelKind, allowed: readonly string[], sender: string): boolean {
  if (!allowed.length) return true;
  const s = kind === 'EMAIL' ? sender.toLowerCase() : sender;
  return allowed.some((a) => a === s || (kind === 'EMAIL' && a.startsWith('@') && s.endsWith(a)));
}
