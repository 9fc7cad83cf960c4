import type { InboundMail } from './inbound-mail.js';
import { answerBudget, normalAddress } from './loop-rules.js';

/**
 * Whether a message's `From:` is its real sender, as the infrastructure found out (docs/security.md
 * "Round four: who an email is from"): SPF, DKIM and DMARC checked by the service itself, a trusted
 * relay's Authentication-Results, or a provider's verdict. Plain data: the domain never resolves
 * DNS or reads a header to decide it.
 */
export interface SenderVerdict {
  /** True only when the From: domain passed DMARC, or an SPF or DKIM pass is aligned with it. */
  authenticated: boolean;
  /** How it passed (`dmarc`, `dkim`, `spf`, `relay`, `mailgun-spf`), or why not (`none`, `temperror`, …). */
  method: string;
  /** The results in short (`spf=fail dkim=none dmarc=none`), kept with the message for the console. */
  summary: string;
}

/** The verdict of a message nobody checked (the default: never answered). */
export const UNVERIFIED: SenderVerdict = { authenticated: false, method: 'none', summary: 'not checked' };

/** Who an answer goes to, or why there is none. */
export type RecipientDecision =
  { answer: true; to: string } | { answer: false; reason: 'unauthenticated' | 'not-allowed-sender' };

/**
 * Who the answer to `mail` goes to (issue 49, items 3 and 6): only a sender whose `From:` is
 * authenticated (`verdict`), and one the channel allows (`allowed`: the channel's allowedSenders
 * rule; an open channel allows everyone, still authenticated only). `Reply-To:` is honoured only
 * when it names one address that the channel's rule also allows — on an open channel, where the
 * rule allows anyone, it is never used: the answer would go to an address nobody vouched for.
 */
export function answerRecipient(
  mail: Pick<InboundMail, 'from' | 'replyTo'>,
  verdict: SenderVerdict,
  allowed: { open: boolean; allows(address: string): boolean },
): RecipientDecision {
  const from = normalAddress(mail.from?.address ?? '');
  if (from === '' || !verdict.authenticated) return { answer: false, reason: 'unauthenticated' };
  if (!allowed.allows(from)) return { answer: false, reason: 'not-allowed-sender' };
  const replyTo = mail.replyTo.length === 1 ? normalAddress(mail.replyTo[0]!.address) : null;
  return { answer: true, to: replyTo !== null && !allowed.open && allowed.allows(replyTo) ? replyTo : from };
}

/**
 * The per-recipient and per-channel hourly answer budget (issue 49, item 6): answer while fewer
 * than `perRecipient` answers went to this recipient and fewer than `perChannel` answers left the
 * channel in the last hour (the caller counts them), each as {@link answerBudget} reads a limit.
 */
export function channelBudget(
  sentToRecipient: number,
  sentByChannel: number,
  limits: { perRecipient: number; perChannel: number },
): 'ok' | 'rate-limited' | 'channel-rate-limited' {
  if (!answerBudget(sentToRecipient, limits.perRecipient).answer) return 'rate-limited';
  return answerBudget(sentByChannel, limits.perChannel).answer ? 'ok' : 'channel-rate-limited';
}
