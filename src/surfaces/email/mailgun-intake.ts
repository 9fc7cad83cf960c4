import type { EmailReceipt, EmailReceiptService } from '../../domain/channels/email-receipt.service.js';
import type { Clock } from '../../domain/clock.js';
import { refusalOf } from '../../domain/error-catalogue.js';
import { DomainError, Invalid, LimitExceeded, Unauthenticated } from '../../domain/errors.js';
import { mailgunDrops } from './mailgun.errors.js';
import type { Logger } from '../../infra/logger.js';
import { checkMailgunSignature } from './mailgun-signature.js';
import type { MailgunTokens } from '../../infra/email/mailgun-tokens.js';
import { parseInbound } from './parse-inbound.js';
import { verifyMailgunSender, type SenderAuthOptions } from '../../infra/email/sender-authentication.js';

/** A Mailgun `forward()` post to a URL ending in `mime`: its text fields, and the original message's bytes. */
export interface MailgunPost {
  /** `recipient`, `sender`, `timestamp`, `token`, `signature` and whatever else Mailgun sent. */
  fields: Record<string, string>;
  /** `body-mime`: the message as the MX received it. */
  mime: Buffer | undefined;
}

export interface MailgunIntakeOptions {
  /** MAILGUN_WEBHOOK_SIGNING_KEY (undefined: every post is refused). */
  signingKey: string | undefined;
  /** The largest message taken (SMTP_MAX_MESSAGE_BYTES, as for the listener). */
  maxBytes: number;
  /** How senders are authenticated (DKIM and DMARC checked here; DNS injectable in tests). */
  senderAuth: SenderAuthOptions;
  /** MAILGUN_TRUST_SPF: believe the one `X-Mailgun-Spf` Mailgun's spam filter writes (see verifyMailgunSender). */
  trustSpfHeader: boolean;
}

/** The EMAIL surface's Mailgun way in, used by the route `POST /email/mailgun/mime`. */
export interface MailgunIntake {
  readonly maxBytes: number;
  /**
   * Checks the signature and that its token is new, parses `body-mime` and stores the message for its
   * recipients (the receipt service also writes the activity entries). Throws Unauthenticated (bad,
   * stale or replayed signature; no key), NotFound (no recipient is a known channel), Invalid (no
   * `body-mime` or recipient, bytes that are not an email), Unavailable (storage failed: send again).
   */
  receive(post: MailgunPost): Promise<EmailReceipt[]>;
}

/** Whether Mailgun should stop retrying (its 406): nothing about the post will change on a retry. */
export function refusedForGood(err: unknown): err is DomainError {
  return err instanceof DomainError && mailgunDrops(refusalOf(err));
}

/**
 * The Mailgun intake (docs/decisions.md §31). The token is claimed before the message is stored —
 * the signature does not cover the body, so a captured signature must not carry a second message —
 * and given back when storing failed, so that the same post may come again.
 */
export function mailgunIntake(
  receipt: EmailReceiptService,
  tokens: MailgunTokens,
  clock: Clock,
  opts: MailgunIntakeOptions,
  logger: Logger,
): MailgunIntake {
  return {
    maxBytes: opts.maxBytes,
    async receive(post) {
      const now = clock.now();
      const { token, rememberUntil } = checkMailgunSignature(opts.signingKey, post.fields, now);
      if (!(await tokens.claim(token, rememberUntil, now)))
        throw new Unauthenticated('This signature was used before (its token has been seen): a replayed post');
      try {
        return await store(receipt, post, opts);
      } catch (err) {
        if (!refusedForGood(err)) {
          // Past a channel's daily quota: 429 (Mailgun retries it later, as a server retries a 452).
          if (!(err instanceof LimitExceeded))
            logger.warn(
              { err },
              'A Mailgun post could not be stored; it was answered 503 so that Mailgun sends it again',
            );
          await tokens
            .release(token)
            .catch((e: unknown) =>
              logger.warn({ err: e }, 'The token of a Mailgun post that was not stored could not be forgotten'),
            );
        }
        throw err;
      }
    },
  };
}

async function store(
  receipt: EmailReceiptService,
  post: MailgunPost,
  opts: MailgunIntakeOptions,
): Promise<EmailReceipt[]> {
  const recipients = (post.fields.recipient ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean)
    .slice(0, 50);
  if (recipients.length === 0) throw new Invalid('The post names no recipient (the recipient field)', 'recipient');
  if (!post.mime?.length)
    throw new Invalid(
      "The post has no body-mime field: the Mailgun route's forward() URL must end in mime",
      'body-mime',
    );
  // `sender` is the envelope's MAIL FROM ('' for a bounce): the return path the loop rules read.
  const sender = post.fields.sender;
  const mail = await parseInbound(post.mime, {}, sender === undefined ? undefined : { mailFrom: sender });
  const verdict = await verifyMailgunSender(post.mime, sender, opts.trustSpfHeader, opts.senderAuth);
  return receipt.receive(mail, { recipients, via: 'mailgun', sender: verdict });
}
