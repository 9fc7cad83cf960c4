import { Resolver } from 'node:dns/promises';
import { dkimVerify, dmarc, spf, type DKIMVerifyResult } from 'mailauth';
import type { SenderVerdict } from '../../domain/email/sender-rules.js';
import { aligned, trustedRelayVerdict, type RelayTrust } from './relay-verdict.js';

/** How mailauth asks DNS (`name`, `rrtype` → records; an error with `code` ENOTFOUND/ENODATA when none). */
export type DnsResolver = (name: string, rrtype: string) => Promise<string[] | string[][]>;

/** What the checks need besides the message. */
export interface SenderAuthOptions {
  /** DNS (default: the system's resolver); tests serve their own records. Each lookup is cut at `lookupTimeoutMs`. */
  resolver?: DnsResolver | undefined;
  /** One DNS lookup at most (default 5 s), and the whole verdict at most `totalTimeoutMs` (default 15 s). */
  lookupTimeoutMs?: number;
  totalTimeoutMs?: number;
  /** This MTA's name (MAIL_DOMAIN), as SPF's `%{r}` and the results name it. */
  mta: string;
  /** SMTP_TRUSTED_RELAYS and the authserv-id whose Authentication-Results are believed from them. */
  relays?: RelayTrust | undefined;
}

/** The SMTP session a message came in: the client's address, its HELO name, the MAIL FROM. */
export interface SmtpSession {
  remoteAddress: string;
  helo: string;
  mailFrom: string;
}

/**
 * The verdict on a message that came straight over SMTP (issue 49, item 3): from a trusted relay,
 * its Authentication-Results; otherwise SPF for the client's address and MAIL FROM, DKIM, and
 * DMARC — checked by the service, through `resolver`, within the timeouts (a verdict that cannot
 * be reached in time is `temperror`: not authenticated, never a hung SMTP session).
 */
export async function verifySmtpSender(
  raw: Buffer,
  session: SmtpSession,
  opts: SenderAuthOptions,
): Promise<SenderVerdict> {
  const relayed = opts.relays ? await trustedRelayVerdict(raw, session.remoteAddress, opts.relays) : null;
  if (relayed) return relayed;
  return deadline(opts, async (resolver) => {
    const [dkim, spfResult] = await Promise.all([
      dkimVerify(raw, { resolver }),
      spf({
        sender: session.mailFrom,
        ip: unmapped(session.remoteAddress),
        helo: session.helo || unmapped(session.remoteAddress),
        mta: opts.mta,
        resolver,
      }),
    ]);
    const spfPass = spfResult.status.result === 'pass' ? spfResult.domain : null;
    return verdictOf(dkim, { result: spfResult.status.result, passedFor: spfPass }, resolver);
  });
}

/**
 * The verdict on a message Mailgun posted (`body-mime`, as its MX received it): DKIM and DMARC
 * checked by the service on the unchanged message; SPF is Mailgun's (the client's address is not
 * posted), believed only when `trustSpfHeader` (MAILGUN_TRUST_SPF: the domain's spam filter writes
 * `X-Mailgun-Spf` on every message) and the message carries exactly one `X-Mailgun-Spf` — a
 * second one was written by the sender — and then for the envelope sender's domain (`sender`).
 */
export async function verifyMailgunSender(
  raw: Buffer,
  sender: string | undefined,
  trustSpfHeader: boolean,
  opts: SenderAuthOptions,
): Promise<SenderVerdict> {
  return deadline(opts, async (resolver) => {
    const dkim = await dkimVerify(raw, { resolver });
    const spfHeaders = (dkim.headers?.parsed ?? [])
      .filter((h) => h.key === 'x-mailgun-spf')
      .map((h) =>
        String(h.line)
          .slice(String(h.line).indexOf(':') + 1)
          .trim()
          .split(/[\s;(]/, 1)[0]!
          .toLowerCase(),
      );
    const result = !trustSpfHeader
      ? 'not-trusted'
      : spfHeaders.length === 1
        ? spfHeaders[0]!
        : spfHeaders.length === 0
          ? 'none'
          : 'several';
    const domain = (sender ?? '').split('@').pop()!.trim().toLowerCase();
    return verdictOf(
      dkim,
      { result: `mailgun:${result}`, passedFor: result === 'pass' && domain ? domain : null },
      resolver,
    );
  });
}

/** The system's DNS with a per-lookup timeout and one retry. */
export function systemResolver(lookupTimeoutMs: number): DnsResolver {
  const resolver = new Resolver({ timeout: lookupTimeoutMs, tries: 2 });
  return (name, rrtype) => resolver.resolve(name, rrtype) as Promise<string[] | string[][]>;
}

/** DMARC when the From: domain publishes a record; otherwise an SPF or DKIM pass aligned with the From: domain. */
async function verdictOf(
  dkim: DKIMVerifyResult,
  spfOutcome: { result: string; passedFor: string | null },
  resolver: DnsResolver,
): Promise<SenderVerdict> {
  const passed = dkim.results.filter((r) => r.status.result === 'pass');
  const dkimText = dkim.results.length
    ? dkim.results.map((r) => `${r.status.result}${r.signingDomain ? ` (d=${r.signingDomain})` : ''}`).join(',')
    : 'none';
  const base = `spf=${spfOutcome.result}${spfOutcome.passedFor ? ` (${spfOutcome.passedFor})` : ''} dkim=${dkimText}`;
  if (dkim.headerFrom.length !== 1)
    return { authenticated: false, method: 'none', summary: `${base}; From: must name exactly one address` };
  const fromDomain = dkim.headerFrom[0]!.split('@').pop()!.toLowerCase();
  const spfDomains = spfOutcome.passedFor ? [spfOutcome.passedFor] : [];
  const result = await dmarc({
    headerFrom: dkim.headerFrom,
    spfDomains,
    dkimDomains: passed.map((r) => ({ domain: r.signingDomain, aligned: Boolean(r.status.aligned) })),
    resolver,
  });
  const status = result ? result.status.result : 'none';
  const summary = `${base} dmarc=${status} (from ${fromDomain})`;
  if (status === 'pass') return { authenticated: true, method: 'dmarc', summary };
  if (status !== 'none') return { authenticated: false, method: `dmarc-${status}`, summary };
  if (passed.some((r) => r.status.aligned)) return { authenticated: true, method: 'dkim', summary };
  if (aligned(fromDomain, spfDomains))
    return { authenticated: true, method: spfOutcome.result.startsWith('mailgun') ? 'mailgun-spf' : 'spf', summary };
  return { authenticated: false, method: 'none', summary };
}

/**
 * Runs the checks with each lookup cut at the lookup timeout and the time spent waiting on DNS cut
 * at the total timeout. The total counts DNS waits only, not the CPU the checks take: a process
 * busy elsewhere for a moment must not turn a message whose records are at hand into `temperror`.
 * A wall-clock bound well past both still ends the checks, whatever happens inside them.
 */
async function deadline(
  opts: SenderAuthOptions,
  check: (resolver: DnsResolver) => Promise<SenderVerdict>,
): Promise<SenderVerdict> {
  const lookupMs = opts.lookupTimeoutMs ?? 5_000;
  const totalMs = opts.totalTimeoutMs ?? 15_000;
  const budget = dnsBudget(totalMs);
  const resolver = bounded(opts.resolver ?? systemResolver(lookupMs), lookupMs, budget);
  const tooLong: SenderVerdict = {
    authenticated: false,
    method: 'temperror',
    summary: `the checks took longer than ${totalMs} ms (DNS)`,
  };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<SenderVerdict>((resolve) => {
    timer = setTimeout(() => resolve(tooLong), totalMs + lookupMs + 30_000);
  });
  try {
    const verdict = await Promise.race([
      check(resolver).catch((err: unknown) => ({
        authenticated: false,
        method: 'temperror',
        summary: `the checks failed: ${err instanceof Error ? err.message.slice(0, 200) : 'error'}`,
      })),
      late,
    ]);
    return budget.spentUp() ? tooLong : verdict;
  } finally {
    clearTimeout(timer);
  }
}

interface DnsBudget {
  /** What is left of the total, in ms, counting the time any lookup has been waiting. */
  left(): number;
  begin(): void;
  end(): void;
  /** Whether a lookup was cut because the total ran out. */
  spentUp(): boolean;
  markSpent(): void;
}

/** The total time lookups may keep the checks waiting (overlapping lookups count once). */
function dnsBudget(totalMs: number): DnsBudget {
  let spent = 0;
  let pending = 0;
  let busySince = 0;
  let ranOut = false;
  return {
    left: () => totalMs - spent - (pending > 0 ? Date.now() - busySince : 0),
    begin: () => {
      if (pending++ === 0) busySince = Date.now();
    },
    end: () => {
      if (--pending === 0) spent += Date.now() - busySince;
    },
    spentUp: () => ranOut,
    markSpent: () => {
      ranOut = true;
    },
  };
}

/**
 * `resolver`, each lookup failing with ETIMEOUT (a temporary DNS error to mailauth) after `ms`, or
 * sooner when the total DNS budget runs out first (then every later lookup fails at once).
 */
function bounded(resolver: DnsResolver, ms: number, budget: DnsBudget): DnsResolver {
  const timedOut = (name: string) => Object.assign(new Error(`DNS lookup of ${name} timed out`), { code: 'ETIMEOUT' });
  return (name, rrtype) =>
    new Promise((resolve, reject) => {
      const left = budget.left();
      if (left <= 0) {
        budget.markSpent();
        reject(timedOut(name));
        return;
      }
      budget.begin();
      const cut = left < ms;
      const timer = setTimeout(
        () => {
          if (cut) budget.markSpent();
          reject(timedOut(name));
        },
        Math.min(ms, left),
      );
      resolver(name, rrtype)
        .then(
          (r) => (clearTimeout(timer), resolve(r)),
          (e: unknown) => (clearTimeout(timer), reject(e)),
        )
        .finally(() => budget.end());
    });
}

/** `::ffff:192.0.2.1` → `192.0.2.1` (smtp-server reports IPv4 clients of a dual-stack socket so). */
export function unmapped(address: string): string {
  return address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
}
