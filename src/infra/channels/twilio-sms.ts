import twilio from 'twilio';
import type { Json } from '../../domain/json.js';
import type { OutgoingSms, SmsProvider, SmsSendResult } from '../../domain/channels/channel.ports.js';
import { storable } from '../activity/buffered-sink.js';

export interface TwilioConfig {
  accountSid: string | undefined;
  authToken: string | undefined;
  /** The Messages API's base URL (TWILIO_API_BASE): Twilio's, a compatible provider's, a test's stand-in. */
  apiBase: string;
  /** How long one send may take. */
  timeoutMs?: number;
}

/**
 * The SMS provider spoken as Twilio's REST API (docs/decisions.md §30): callbacks are checked with
 * the `twilio` package's own validator (HMAC-SHA1 of the URL and the sorted form, keyed by the auth
 * token); messages are sent with `POST {base}/2010-04-01/Accounts/{sid}/Messages.json`, basic auth
 * SID:token, a form body. A 5xx, a 429 or no answer is worth another attempt; any other refusal
 * (a 4xx: a bad number, an unverified sender) is not.
 */
export function twilioSmsProvider(config: TwilioConfig): SmsProvider {
  const { accountSid, authToken } = config;
  return {
    configured: Boolean(accountSid && authToken),
    verify(url, params, signature) {
      return Boolean(authToken) && twilio.validateRequest(authToken!, signature, url, params);
    },
    async send(sms: OutgoingSms): Promise<SmsSendResult> {
      const url = `${config.apiBase}/2010-04-01/Accounts/${encodeURIComponent(accountSid ?? '')}/Messages.json`;
      const form = new URLSearchParams({
        To: sms.to,
        From: sms.from,
        Body: sms.body,
        StatusCallback: sms.statusCallback,
      });
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
            // W3C Trace Context: the send attempt's span, in the trace of the run that queued the message.
            ...(sms.trace ? { traceparent: sms.trace.traceparent } : {}),
            ...(sms.trace?.tracestate ? { tracestate: sms.trace.tracestate } : {}),
          },
          body: form,
          signal: AbortSignal.timeout(config.timeoutMs ?? 15_000),
        });
      } catch (err) {
        return {
          ok: false,
          retry: true,
          error: `The SMS provider could not be reached: ${err instanceof Error ? err.message : String(err)}`,
          answer: null,
        };
      }
      const text = (await res.text().catch(() => '')).slice(0, 4000);
      // Stored as jsonb: no U+0000 or unpaired surrogate a provider might send may make it unstorable.
      const answer = storable(parsed(text));
      const obj = answer && typeof answer === 'object' && !Array.isArray(answer) ? answer : {};
      if (res.ok && typeof obj.sid === 'string')
        return {
          ok: true,
          messageId: obj.sid,
          status: typeof obj.status === 'string' ? obj.status : 'queued',
          answer: { httpStatus: res.status, body: answer },
        };
      const said = typeof obj.message === 'string' ? `: ${obj.message}` : '';
      const error = res.ok
        ? 'The SMS provider answered without a message sid'
        : `The SMS provider refused the message (HTTP ${res.status}${said})`;
      return {
        ok: false,
        retry: res.ok || res.status >= 500 || res.status === 429,
        error,
        answer: { httpStatus: res.status, body: answer },
      };
    },
  };
}

function parsed(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}
