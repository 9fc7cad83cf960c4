import { readFile } from 'node:fs/promises';
import type { EmailReceiptService } from '../../domain/channels/email-receipt.service.js';
import { refusalOf } from '../../domain/error-catalogue.js';
import { DomainError } from '../../domain/errors.js';
import { encodeSmtpReply, notStoredReply, type SmtpReply } from './smtp.errors.js';
import type { Logger } from '../../infra/logger.js';
import { parseInbound, UnparseableMail } from './parse-inbound.js';
import { verifySmtpSender, type SenderAuthOptions } from '../../infra/email/sender-authentication.js';
import { SmtpRefusal, startSmtpListener, type SmtpConnectionLimits, type SmtpListener } from './smtp-listener.js';

export interface MailIntakeOptions {
  port: number;
  host: string;
  /** MAIL_DOMAIN: the listener's name. */
  domain: string;
  maxBytes: number;
  /** PEM files; STARTTLS is offered with both. */
  tlsCertFile?: string | undefined;
  tlsKeyFile?: string | undefined;
  /** The connection bounds (defaults: DEFAULT_SMTP_LIMITS). */
  limits?: Partial<SmtpConnectionLimits>;
  /** How senders are authenticated: DNS (injectable in tests), its timeouts, the trusted relays. */
  senderAuth: SenderAuthOptions;
}

/** A domain refusal as the SMTP listener's reply to the message. */
function replyTo(err: DomainError): SmtpReply {
  return encodeSmtpReply(refusalOf(err));
}

/**
 * The EMAIL surface's SMTP way in (docs/decisions.md §32): the listener takes mail for known
 * channel addresses only (550 at RCPT TO otherwise), parses each message, and answers 250 once the
 * receipt service stored it (with the job that answers it); 451 when it could not, so the sending
 * server keeps it and tries again; 452 when a channel is past its daily quota; 554 for bytes that are
 * not an email.
 */
export async function startMailIntake(
  receipt: EmailReceiptService,
  opts: MailIntakeOptions,
  logger: Logger,
): Promise<SmtpListener> {
  const tls =
    opts.tlsCertFile && opts.tlsKeyFile
      ? { cert: await readFile(opts.tlsCertFile), key: await readFile(opts.tlsKeyFile) }
      : undefined;
  const listener = await startSmtpListener({
    port: opts.port,
    host: opts.host,
    domain: opts.domain,
    maxBytes: opts.maxBytes,
    ...(tls ? { tls } : {}),
    ...(opts.limits ? { limits: opts.limits } : {}),
    isKnownRecipient: (address) => receipt.knownRecipient(address),
    async onMessage(raw, envelope) {
      let mail;
      try {
        mail = await parseInbound(raw, {}, { mailFrom: envelope.mailFrom });
      } catch (err) {
        if (err instanceof UnparseableMail) {
          const reply = replyTo(err);
          throw new SmtpRefusal(reply.code, reply.text);
        }
        throw err;
      }
      try {
        // Who the message is from is decided by SPF/DKIM/DMARC (or a trusted relay), not by its From: alone.
        const sender = await verifySmtpSender(
          raw,
          { remoteAddress: envelope.remoteAddress, helo: envelope.helo, mailFrom: envelope.mailFrom },
          opts.senderAuth,
        );
        await receipt.receive(mail, {
          recipients: envelope.rcptTo,
          via: 'smtp',
          envelope: { mailFrom: envelope.mailFrom, remoteAddress: envelope.remoteAddress, secure: envelope.secure },
          sender,
        });
      } catch (err) {
        // Every recipient went away between RCPT TO and the end of DATA (channel removed, surface
        // off): 550; a channel past its daily quota: 452 (see encodeSmtpReply).
        const reply = err instanceof DomainError ? replyTo(err) : undefined;
        if (reply && !notStoredReply(reply)) throw new SmtpRefusal(reply.code, reply.text);
        // The listener answers anything else 451, as the catalogue's other kinds are answered.
        logger.warn({ err }, 'An email could not be stored; the sender was told to try again (451)');
        throw err;
      }
    },
    onError: (err) => logger.debug({ err: err.message }, 'SMTP connection error'),
  });
  logger.info({ port: listener.port, domain: opts.domain, starttls: Boolean(tls) }, 'SMTP listener started');
  return listener;
}
