import type { EmailSender, SmsProvider } from './channel.ports.js';

// What the channels use when the environment configures no provider.

/** No SMS provider: nothing is verified or sent. */
export const NO_SMS: SmsProvider = {
  configured: false,
  verify: () => false,
  send: async () => ({ ok: false, retry: true, error: 'SMS is not configured', answer: null }),
};

/** No smarthost: nothing is sent, replies stay queued (retried) until SMTP_URL is set. */
export const NO_EMAIL: EmailSender = {
  configured: false,
  send: async () => ({ ok: false, retry: true, error: 'Email sending is not configured', answer: null }),
};
