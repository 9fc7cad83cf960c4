import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json-depth.js';
import type { Json } from '../runtime/ports.js';

/** The longest sender delivery id kept (longer ones are not ids: they de-duplicate nothing). */
export const MAX_SENDER_ID_LENGTH = 200;

/** Headers that carry a sender's own id of a delivery, first match wins. */
const SENDER_ID_HEADERS = ['x-github-delivery', 'webhook-id', 'svix-id', 'idempotency-key'] as const;

function mediaType(headers: Record<string, string>): string {
  return (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * The payload as the handler sees it: JSON (application/json or +json) parsed to its value, a
 * form (application/x-www-form-urlencoded) to an object (a repeated name gives a list), anything
 * else — and JSON that does not parse or nests too deep — as text. A sender is never refused for
 * the shape of its payload: the delivery is stored and the handler decides.
 */
export function parsePayload(headers: Record<string, string>, raw: Buffer): Json {
  const text = raw.toString('utf8');
  const type = mediaType(headers);
  if (type === 'application/json' || type.endsWith('+json')) {
    if (text.trim() === '' || nestsDeeperThan(text, MAX_JSON_DEPTH)) return text;
    try {
      return JSON.parse(text) as Json;
    } catch {
      return text;
    }
  }
  if (type === 'application/x-www-form-urlencoded') {
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

/**
 * The sender's own id of a delivery, which de-duplicates redeliveries: GitHub's X-GitHub-Delivery,
 * Standard Webhooks' webhook-id (svix-id), an Idempotency-Key header, a Stripe event's `id`, or a
 * Slack event's `event_id`. Null when the sender sends none.
 */
export function senderDeliveryId(headers: Record<string, string>, payload: Json): string | null {
  let id: string | undefined;
  for (const h of SENDER_ID_HEADERS) {
    const v = headers[h]?.trim();
    if (v) {
      id = v;
      break;
    }
  }
  if (!id && isObject(payload)) {
    if (payload.object === 'event' && typeof payload.id === 'string') id = payload.id;
    else if (typeof payload.event_id === 'string') id = payload.event_id;
  }
  return id && id.length <= MAX_SENDER_ID_LENGTH ? id : null;
}

/** Slack's URL verification handshake: the challenge to echo back, when the payload is one. */
export function slackChallenge(payload: Json): string | null {
  return isObject(payload) && payload.type === 'url_verification' && typeof payload.challenge === 'string' ? payload.challenge : null;
}
