import { createHash } from 'node:crypto';
import type { SignatureScheme } from '../entries/entry.entities.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json-depth.js';
import type { Json } from '../json.js';
import { standardWebhooksIdHeader } from './signatures.js';

/** The longest sender delivery id kept as sent; a longer one is kept as its SHA-256 (`sha256:<hex>`). */
export const MAX_SENDER_ID_LENGTH = 200;

/** Headers that carry the id of an unsigned or HMAC_SHA256 sender's delivery, first match wins. */
const SENDER_ID_HEADERS = ['x-github-delivery', 'webhook-id', 'svix-id', 'idempotency-key'] as const;

function mediaType(headers: Record<string, string>): string {
  return (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

function isJson(headers: Record<string, string>): boolean {
  const type = mediaType(headers);
  return type === 'application/json' || type.endsWith('+json');
}

const JSON_TYPE = { 'content-type': 'application/json' };

/**
 * The payload as the handler sees it: JSON (application/json or +json) parsed to its value, a
 * form (application/x-www-form-urlencoded) to an object (a repeated name gives a list), anything
 * else — and JSON that does not parse or nests too deep — as text. A sender is never refused for
 * the shape of its payload: the delivery is stored and the handler decides.
 */
export function parsePayload(headers: Record<string, string>, raw: Buffer): Json {
  const text = raw.toString('utf8');
  if (isJson(headers)) {
    if (text.trim() === '' || nestsDeeperThan(text, MAX_JSON_DEPTH)) return text;
    try {
      return JSON.parse(text) as Json;
    } catch {
      return text;
    }
  }
  if (mediaType(headers) === 'application/x-www-form-urlencoded') {
    // A Map, not an object literal: a name such as __proto__ or constructor is a field like any
    // other. A repeated name appends in place: copying the list on each repeat is quadratic, and a
    // 1 MiB body of one repeated name would block the receiver for minutes.
    const form = new Map<string, string | string[]>();
    for (const [k, v] of new URLSearchParams(text)) {
      const prev = form.get(k);
      if (prev === undefined) form.set(k, v);
      else if (Array.isArray(prev)) prev.push(v);
      else form.set(k, [prev, v]);
    }
    return Object.fromEntries(form);
  }
  return text;
}

function isObject(v: Json): v is { [k: string]: Json } {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A Stripe event's `id` (any event object: `event`, `v2.core.event`, …). */
function stripeEventId(payload: Json): string | undefined {
  return isObject(payload) && typeof payload.id === 'string' ? payload.id : undefined;
}

/** A Slack Events API callback's `event_id`. */
function slackEventId(payload: Json): string | undefined {
  return isObject(payload) && typeof payload.event_id === 'string' ? payload.event_id : undefined;
}

/** The first non-blank of the named headers. */
function firstHeader(headers: Record<string, string>, names: readonly string[]): string | undefined {
  for (const h of names) {
    const v = headers[h]?.trim();
    if (v) return v;
  }
  return undefined;
}

/** C0 and C1 controls (U+0000 cannot be stored by PostgreSQL at all) and unpaired surrogates. */
const NOT_AN_ID_CHARACTER =
  /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * An id as stored: as sent when it is at most MAX_SENDER_ID_LENGTH characters of text, else its
 * SHA-256 (`sha256:<hex>`). An id that is too long or holds control characters still
 * de-duplicates: the same id gives the same digest, so no sender can switch de-duplication off
 * with the shape of its id.
 */
export function storableSenderId(id: string): string {
  if (id.length <= MAX_SENDER_ID_LENGTH && !NOT_AN_ID_CHARACTER.test(id)) return id;
  return `sha256:${createHash('sha256').update(id, 'utf8').digest('hex')}`;
}

/**
 * The sender's own id of a delivery, which de-duplicates redeliveries — taken, for a signed
 * integration, only from what its signature covers, so that a captured request sent again with
 * another header is still the same delivery:
 * - STRIPE: the event's `id` in the signed body;
 * - SLACK: the event's `event_id` in the signed body (slash commands and interactions have none);
 * - STANDARD_WEBHOOKS: the `webhook-id` (or `svix-id`) header the signature was checked with;
 * - GITHUB: `X-GitHub-Delivery`, which GitHub's signature does not cover (it covers only the body,
 *   and has no timestamp): replay protection there rests on that header;
 * - HMAC_SHA256 and no signature: X-GitHub-Delivery, webhook-id, svix-id, Idempotency-Key, then a
 *   Stripe event's `id` (object `event`) or a Slack `event_id` in the body.
 * Null when there is none; see `storableSenderId` for an id too long or malformed.
 */
export function senderDeliveryId(
  scheme: SignatureScheme | null,
  headers: Record<string, string>,
  rawBody: Buffer,
  payload: Json = parsePayload(headers, rawBody),
): string | null {
  // The body is read as JSON whatever Content-Type says: that header is not signed either.
  const signedJson = () => (isJson(headers) ? payload : parsePayload(JSON_TYPE, rawBody));
  let id: string | undefined;
  switch (scheme) {
    case 'STRIPE':
      id = stripeEventId(signedJson());
      break;
    case 'SLACK':
      id = slackEventId(signedJson());
      break;
    case 'STANDARD_WEBHOOKS':
      // An empty header counts as absent, as it did for the signature check.
      id = firstHeader(headers, [standardWebhooksIdHeader((name) => headers[name] || undefined)]);
      break;
    case 'GITHUB':
      id = firstHeader(headers, ['x-github-delivery']);
      break;
    default:
      id = firstHeader(headers, SENDER_ID_HEADERS);
      if (!id && isObject(payload))
        id = (payload.object === 'event' ? stripeEventId(payload) : undefined) ?? slackEventId(payload);
  }
  return id ? storableSenderId(id) : null;
}

/** Slack's URL verification handshake: the challenge to echo back, when the payload is one. */
export function slackChallenge(payload: Json): string | null {
  return isObject(payload) && payload.type === 'url_verification' && typeof payload.challenge === 'string'
    ? payload.challenge
    : null;
}
