import type { CatalogueKey, Refusal } from '../../domain/error-catalogue.js';
import { encodeHttpError, type HttpErrorAnswer } from '../shared/http.errors.js';

const http = (r: Refusal): HttpErrorAnswer => encodeHttpError(r);

/**
 * Each refusal kind as the answer to a Twilio-compatible provider's callback. A provider logs a
 * non-2xx answer (Twilio's error 11200) and retries only when the callback URL asks it to, so every
 * kind keeps the agent surfaces' HTTP answer (DESIGN §6): a bad signature 401, surface off 403, an
 * unknown agent or sent message 404, storage failed 503 with Retry-After. A kind that should
 * answer otherwise (TwiML, another status) changes its row here.
 */
const ANSWERS: Record<CatalogueKey, (r: Refusal) => HttpErrorAnswer> = {
  INVALID: http,
  UNAUTHENTICATED: http,
  FORBIDDEN: http,
  NOT_FOUND: http,
  METHOD_NOT_ALLOWED: http,
  CONFLICT: http,
  PAYLOAD_TOO_LARGE: http,
  UNSUPPORTED_MEDIA_TYPE: http,
  LIMIT_EXCEEDED: http,
  RUN_FAILED: http,
  UNAVAILABLE: http,
};

/** A refusal as the answer to an SMS provider's callback. */
export function encodeTwilioAnswer(r: Refusal): HttpErrorAnswer {
  return ANSWERS[r.key](r);
}
