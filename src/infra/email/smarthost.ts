import type { EmailSender, EmailSendResult } from '../../domain/channels/channel.ports.js';
import { sendMail, SmtpSendFailure } from './send-mail.js';

/**
 * The agents' outgoing mail through the smarthost at SMTP_URL (docs/decisions.md §32), as the
 * channel queue's EmailSender: the server's answer is kept with each attempt; a transient refusal
 * (4xx, no answer, a refused login) is retried on the queue's schedule, any other fails the message.
 * Without SMTP_URL nothing is sent and replies wait, retried, until it is set.
 */
export function smarthostSender(smtpUrl: string | undefined): EmailSender {
  return {
    configured: Boolean(smtpUrl),
    async send(mail): Promise<EmailSendResult> {
      if (!smtpUrl)
        return { ok: false, retry: true, error: 'Email sending is not configured: set SMTP_URL', answer: null };
      try {
        const sent = await sendMail(smtpUrl, mail);
        return { ok: true, answer: { accepted: sent.accepted, response: sent.response } };
      } catch (err) {
        if (!(err instanceof SmtpSendFailure)) throw err;
        return { ok: false, retry: err.transient, error: err.message, answer: { code: err.code, response: err.text } };
      }
    },
  };
}
