import type { BlockList } from 'node:net';
import { createRequire } from 'node:module';
import { dkimVerify } from 'mailauth';
import type { SenderVerdict } from '../../domain/email/sender-rules.js';
import { isTrustedRelay } from './trusted-relays.js';

/** SMTP_TRUSTED_RELAYS and the authserv-id (SMTP_TRUSTED_AUTHSERV_ID, else MAIL_DOMAIN) whose Authentication-Results they vouch for. */
export interface RelayTrust {
  relays: BlockList;
  authservId: string;
}

// mailauth's own alignment rule (organizational domains from the public suffix list).
const { getAlignment } = createRequire(import.meta.url)('mailauth/lib/tools.js') as {
  getAlignment(fromDomain: string, domains: string[]): { domain: string } | false;
};

/** Whether one of `domains` is aligned (relaxed, RFC 7489 §3.1) with `fromDomain`. */
export function aligned(fromDomain: string, domains: string[]): boolean {
  return domains.length > 0 && Boolean(getAlignment(fromDomain, domains));
}

/**
 * The verdict of a message a trusted relay handed on (RFC 8601): the topmost Authentication-Results
 * field of the relay's authserv-id — the one it added; fields a sender forged below it are never
 * read, and the relay must remove forged ones of its own id (RFC 8601 §5) — believed for the
 * From: domain when it says `dmarc=pass` (for that domain), or an aligned `dkim=pass`
 * (header.d / header.i) or `spf=pass` (smtp.mailfrom). Null when `remoteAddress` is not a relay.
 */
export async function trustedRelayVerdict(
  raw: Buffer,
  remoteAddress: string,
  trust: RelayTrust,
): Promise<SenderVerdict | null> {
  if (!isTrustedRelay(trust.relays, remoteAddress)) return null;
  // Only the headers are wanted: a resolver that answers nothing keeps DKIM from asking DNS.
  const parsed = await dkimVerify(raw, {
    resolver: () => Promise.reject(Object.assign(new Error('not asked'), { code: 'ENOTFOUND' })),
  });
  const id = trust.authservId.toLowerCase();
  const field = (parsed.headers?.parsed ?? [])
    .filter((h) => h.key === 'authentication-results')
    .map((h) => String(h.line).slice(String(h.line).indexOf(':') + 1))
    .map(resultsOf)
    .find((r) => r.authservId === id);
  if (!field)
    return {
      authenticated: false,
      method: 'relay',
      summary: `the trusted relay added no Authentication-Results for ${trust.authservId}`,
    };
  const summary = `relay ${trust.authservId}: ${field.results.map((r) => `${r.method}=${r.result}`).join(' ') || 'none'}`;
  if (parsed.headerFrom.length !== 1)
    return { authenticated: false, method: 'relay', summary: `${summary}; From: must name exactly one address` };
  const fromDomain = parsed.headerFrom[0]!.split('@').pop()!.toLowerCase();
  const passes = (method: string) => field.results.filter((r) => r.method === method && r.result === 'pass');
  const dmarcPass = passes('dmarc').some((r) => (r.props['header.from'] ?? fromDomain).toLowerCase() === fromDomain);
  const dkimDomains = passes('dkim').map((r) => domainOf(r.props['header.d'] ?? r.props['header.i'] ?? ''));
  const spfDomains = passes('spf').map((r) => domainOf(r.props['smtp.mailfrom'] ?? ''));
  const ok =
    dmarcPass || aligned(fromDomain, dkimDomains.filter(Boolean)) || aligned(fromDomain, spfDomains.filter(Boolean));
  return { authenticated: ok, method: 'relay', summary: `${summary} (from ${fromDomain})` };
}

interface Results {
  authservId: string;
  results: { method: string; result: string; props: Record<string, string> }[];
}

/** An Authentication-Results value: `authserv-id [version]; method=result ptype.prop=value …; …` (comments dropped). */
export function resultsOf(value: string): Results {
  let text = value.replace(/\r?\n[ \t]+/g, ' ');
  // Comments may nest: strip innermost first, a bounded number of times.
  for (let i = 0; i < 5 && /\([^()]*\)/.test(text); i++) text = text.replace(/\([^()]*\)/g, ' ');
  const [head, ...parts] = text.split(';');
  const authservId = (head ?? '').trim().split(/\s+/)[0]!.toLowerCase();
  const results = parts.slice(0, 50).flatMap((part) => {
    // RFC 8601 allows whitespace around `=`.
    const tokens = part
      .replace(/\s*=\s*/g, '=')
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    const first = /^([a-z0-9_.-]+)=([a-z]+)$/i.exec(tokens[0] ?? '');
    if (!first) return [];
    const props: Record<string, string> = {};
    for (const t of tokens.slice(1)) {
      const m = /^([a-z0-9_-]+\.[a-z0-9_.-]+)=(.*)$/i.exec(t);
      if (m) props[m[1]!.toLowerCase()] = m[2]!.replace(/^"|"$/g, '');
    }
    return [{ method: first[1]!.toLowerCase(), result: first[2]!.toLowerCase(), props }];
  });
  return { authservId, results };
}

function domainOf(identity: string): string {
  return identity.split('@').pop()!.trim().toLowerCase();
}
