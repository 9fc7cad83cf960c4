// Signature verification of inbound webhooks (DESIGN §6 "Webhooks"). Every scheme is an
// HMAC-SHA256 over a signed prefix (built from headers) followed by the raw body, so one streaming
// check serves them all; each scheme only says where the key, the prefix and the candidates are.
import { createHmac, timingSafeEqual, type Hmac } from 'node:crypto';
import type { SignatureScheme } from '../entries/entry.entities.js';

export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** Signatures compared per header at most: a header with thousands of entries costs no more than ten. */
const MAX_CANDIDATES = 10;

/** Headers of each scheme, lower case; the route reads these and signature headers are never logged in clear. */
export const SIGNATURE_HEADERS: Record<SignatureScheme, readonly string[]> = {
  HMAC_SHA256: ['x-signature-256'],
  GITHUB: ['x-hub-signature-256'],
  STRIPE: ['stripe-signature'],
  SLACK: ['x-slack-signature', 'x-slack-request-timestamp'],
  STANDARD_WEBHOOKS: [
    'webhook-id',
    'webhook-timestamp',
    'webhook-signature',
    'svix-id',
    'svix-timestamp',
    'svix-signature',
  ],
};

/** A check in progress: the raw body is fed chunk by chunk (it can be large), then verified once. */
export interface SignatureCheck {
  update(chunk: Uint8Array): void;
  /** Whether one of the presented signatures matches. Constant-time comparison of each. */
  verify(): boolean;
}

/** Why a request was refused before its body was read (missing or malformed header, stale timestamp, unusable secret). */
export interface SignatureRefusal {
  refused: string;
}

type Header = (name: string) => string | undefined;

/** What a scheme contributes: the HMAC key, the bytes signed before the body, and the presented signatures. */
interface SignedContent {
  key: string | Buffer;
  prefix: string;
  encoding: 'hex' | 'base64';
  candidates: readonly string[];
}

/**
 * Starts the check for one request. `header(name)` returns the header value (name in lower case) or undefined.
 * `secret` is the plaintext of the workspace secret. `now` is the domain clock's time.
 */
export function startSignatureCheck(
  scheme: SignatureScheme,
  secret: string,
  header: (name: string) => string | undefined,
  now: Date,
): SignatureCheck | SignatureRefusal {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const content = SCHEMES[scheme](secret, header, nowSeconds);
  return 'refused' in content ? content : streamingCheck(content);
}

const SCHEMES: Record<
  SignatureScheme,
  (secret: string, header: Header, nowSeconds: number) => SignedContent | SignatureRefusal
> = {
  HMAC_SHA256: (secret, header) => prefixedHexSignature(secret, header('x-signature-256'), 'X-Signature-256'),
  GITHUB: (secret, header) => prefixedHexSignature(secret, header('x-hub-signature-256'), 'X-Hub-Signature-256'),
  STRIPE: stripeContent,
  SLACK: slackContent,
  STANDARD_WEBHOOKS: standardWebhooksContent,
};

function streamingCheck(content: SignedContent): SignatureCheck {
  const hmac: Hmac = createHmac('sha256', content.key).update(content.prefix, 'utf8');
  let verdict: boolean | undefined;
  return {
    update(chunk) {
      if (verdict !== undefined) throw new Error('the signature check was already verified');
      hmac.update(chunk);
    },
    verify() {
      if (verdict === undefined) {
        const expected = hmac.digest();
        verdict = content.candidates.some((c) => sameDigest(expected, decodeDigest(c, content.encoding)));
      }
      return verdict;
    },
  };
}

const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;
const BASE64_DIGEST = /^[A-Za-z0-9+/]{43}=$/;

/** The 32 bytes a presented signature claims, or null when it is not a well-formed SHA-256 digest. */
function decodeDigest(presented: string, encoding: 'hex' | 'base64'): Buffer | null {
  // Length first: a huge malformed value is rejected without scanning it.
  if (encoding === 'hex') {
    return presented.length === 64 && HEX_DIGEST.test(presented) ? Buffer.from(presented, 'hex') : null;
  }
  return presented.length === 44 && BASE64_DIGEST.test(presented) ? Buffer.from(presented, 'base64') : null;
}

function sameDigest(expected: Buffer, presented: Buffer | null): boolean {
  return presented !== null && presented.length === expected.length && timingSafeEqual(expected, presented);
}

function refusal(refused: string): SignatureRefusal {
  return { refused };
}

function emptySecret(secret: string): SignatureRefusal | null {
  return secret.length === 0 ? refusal('the signing secret is empty') : null;
}

/** `X-Signature-256` and `X-Hub-Signature-256`: `sha256=<hex>` over the raw body alone. */
function prefixedHexSignature(
  secret: string,
  value: string | undefined,
  name: string,
): SignedContent | SignatureRefusal {
  const unusable = emptySecret(secret);
  if (unusable) return unusable;
  if (value === undefined) return refusal(`missing ${name} header`);
  if (!value.startsWith('sha256=')) return refusal(`the ${name} header is not sha256=<hex>`);
  return { key: secret, prefix: '', encoding: 'hex', candidates: [value.slice('sha256='.length)] };
}

/** `Stripe-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]` over `${t}.${body}`; other schemes (v0) ignored. */
function stripeContent(secret: string, header: Header, nowSeconds: number): SignedContent | SignatureRefusal {
  const unusable = emptySecret(secret);
  if (unusable) return unusable;
  const value = header('stripe-signature');
  if (value === undefined) return refusal('missing Stripe-Signature header');
  let timestamp: string | undefined;
  const candidates: string[] = [];
  for (const item of segments(value, ',')) {
    const eq = item.indexOf('=');
    const name = eq < 0 ? item : item.slice(0, eq);
    if (name === 't' && timestamp === undefined) timestamp = item.slice(eq + 1);
    else if (name === 'v1' && candidates.length < MAX_CANDIDATES) candidates.push(item.slice(eq + 1));
    if (timestamp !== undefined && candidates.length === MAX_CANDIDATES) break;
  }
  if (timestamp === undefined) return refusal('no timestamp in Stripe-Signature');
  const seconds = freshTimestamp(timestamp, 'the Stripe-Signature timestamp', nowSeconds);
  if (typeof seconds !== 'number') return seconds;
  if (candidates.length === 0) return refusal('no v1 signature in Stripe-Signature');
  // Stripe signs the timestamp as the number it parsed, so `t=0123` signs `123.`
  return { key: secret, prefix: `${seconds}.`, encoding: 'hex', candidates };
}

/** `X-Slack-Signature: v0=<hex>` over `v0:${X-Slack-Request-Timestamp}:${body}`. */
function slackContent(secret: string, header: Header, nowSeconds: number): SignedContent | SignatureRefusal {
  const unusable = emptySecret(secret);
  if (unusable) return unusable;
  const signature = header('x-slack-signature');
  if (signature === undefined) return refusal('missing X-Slack-Signature header');
  const timestamp = header('x-slack-request-timestamp');
  if (timestamp === undefined) return refusal('missing X-Slack-Request-Timestamp header');
  const seconds = freshTimestamp(timestamp, 'the X-Slack-Request-Timestamp', nowSeconds);
  if (typeof seconds !== 'number') return seconds;
  if (!signature.startsWith('v0=')) return refusal('no v0 signature in X-Slack-Signature');
  return { key: secret, prefix: `v0:${timestamp}:`, encoding: 'hex', candidates: [signature.slice('v0='.length)] };
}

/**
 * Standard Webhooks (Svix): `webhook-signature: v1,<base64> [v1,<base64>…]` over `${id}.${timestamp}.${body}`,
 * keyed by the base64 part of a `whsec_` secret. Svix's own `svix-*` header names are accepted too.
 */
function standardWebhooksContent(secret: string, header: Header, nowSeconds: number): SignedContent | SignatureRefusal {
  const key = standardWebhooksKey(secret);
  if (!key) return refusal('the signing secret is not a valid whsec_ secret');
  const family = headerFamily(header);
  const id = header(`${family}-id`);
  const timestamp = header(`${family}-timestamp`);
  const signature = header(`${family}-signature`);
  if (signature === undefined) return refusal(`missing ${family}-signature header`);
  if (id === undefined || id === '') return refusal(`missing ${family}-id header`);
  if (timestamp === undefined) return refusal(`missing ${family}-timestamp header`);
  const seconds = freshTimestamp(timestamp, `the ${family}-timestamp`, nowSeconds);
  if (typeof seconds !== 'number') return seconds;
  const candidates: string[] = [];
  for (const entry of segments(signature, ' ')) {
    const comma = entry.indexOf(',');
    // Other versions (v1a is asymmetric) are not ours to check.
    if (comma >= 0 && entry.slice(0, comma) === 'v1') candidates.push(entry.slice(comma + 1));
    if (candidates.length === MAX_CANDIDATES) break;
  }
  if (candidates.length === 0) return refusal(`no v1 signature in ${family}-signature`);
  return { key, prefix: `${id}.${seconds}.`, encoding: 'base64', candidates };
}

/** Which names the sender used: the standard `webhook-*` unless only Svix's `svix-*` are present. */
function headerFamily(header: Header): 'webhook' | 'svix' {
  const present = (family: string) =>
    ['id', 'timestamp', 'signature'].some((n) => header(`${family}-${n}`) !== undefined);
  return !present('webhook') && present('svix') ? 'svix' : 'webhook';
}

/**
 * The header whose id a Standard Webhooks signature covers (`webhook-id`, or `svix-id` when the
 * sender used only Svix's names): the sender id of such a delivery, and the only one.
 */
export function standardWebhooksIdHeader(header: (name: string) => string | undefined): 'webhook-id' | 'svix-id' {
  return `${headerFamily(header)}-id`;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

/** The key of a `whsec_<base64>` secret; without the prefix the whole secret is the base64, as the library reads it. */
function standardWebhooksKey(secret: string): Buffer | null {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (!BASE64.test(encoded)) return null;
  const key = Buffer.from(encoded, 'base64');
  return key.length > 0 ? key : null;
}

const WHOLE_SECONDS = /^[0-9]{1,12}$/;

/** The timestamp in seconds when it is a whole number within the tolerance of now, either way; else why not. */
function freshTimestamp(value: string, label: string, nowSeconds: number): number | SignatureRefusal {
  if (!WHOLE_SECONDS.test(value)) return refusal(`${label} is not a whole number of seconds`);
  const seconds = Number(value);
  const minutes = SIGNATURE_TOLERANCE_SECONDS / 60;
  if (nowSeconds - seconds > SIGNATURE_TOLERANCE_SECONDS)
    return refusal(`${label} is more than ${minutes} minutes old`);
  if (seconds - nowSeconds > SIGNATURE_TOLERANCE_SECONDS)
    return refusal(`${label} is more than ${minutes} minutes in the future`);
  return seconds;
}

/** The trimmed, non-empty parts of a header value, lazily: a caller that stops early scans no further. */
function* segments(value: string, separator: string): Generator<string> {
  let start = 0;
  while (start <= value.length) {
    let end = value.indexOf(separator, start);
    if (end < 0) end = value.length;
    const part = value.slice(start, end).trim();
    if (part !== '') yield part;
    start = end + 1;
  }
}
