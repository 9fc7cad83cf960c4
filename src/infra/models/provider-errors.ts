import { APICallError, RetryError } from 'ai';
import { ModelFailure, type ResolvedModel } from '../../domain/models/language-model.ports.js';
import { urlPasswords, withoutCredentials } from '../credentials.js';

/** Where a caller is sent for the provider's own words, which only members may read. */
const SEE_ACTIVITY_LOG = "the details are in the agent's activity log";
/** A provider's text kept in the activity log (an HTML error page can be large). */
export const MAX_DETAIL_CHARS = 2000;

/**
 * What a failed provider call becomes. Callers on the public surfaces get the kind of failure and
 * the HTTP status only: a provider's text can hold the configured base URL (with the credentials
 * written into it), the key it refused, or the account's details. The activity log, which members
 * read, gets that text with the credentials removed.
 */
export function providerFailure(thrown: unknown, m: ResolvedModel): ModelFailure {
  // After its retries the SDK wraps the provider's last answer.
  const err = RetryError.isInstance(thrown) ? thrown.lastError : thrown;
  if (APICallError.isInstance(err) && err.statusCode) {
    const status = err.statusCode;
    return new ModelFailure(
      `The model provider failed (HTTP ${status}); ${SEE_ACTIVITY_LOG}`,
      detailOf(
        `The model provider (${m.provider}, model '${m.model}') answered with status ${status}: ${err.message}`,
        m,
      ),
    );
  }
  const cause = (err as { cause?: { code?: string } })?.cause?.code ?? (err as { code?: string })?.code;
  if (cause === 'ECONNREFUSED' || cause === 'ENOTFOUND') {
    return new ModelFailure(
      `The model provider could not be reached; ${SEE_ACTIVITY_LOG}`,
      detailOf(`Could not reach the model provider (${m.provider}) at ${m.baseUrl ?? 'its default address'}`, m),
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ModelFailure(
    `The model call failed; ${SEE_ACTIVITY_LOG}`,
    detailOf(`The model call failed (${m.provider}, model '${m.model}'): ${message}${urlHint(m)}`, m),
  );
}

/** The provider's text for members: credentials removed (URL userinfo, tokens, the model's key), bounded. */
function detailOf(text: string, m: ResolvedModel): string {
  const clean = withoutCredentials(text, [m.apiKey, ...urlPasswords(m.baseUrl)]);
  return clean.length > MAX_DETAIL_CHARS ? `${clean.slice(0, MAX_DETAIL_CHARS)}…` : clean;
}

/** Requests cannot carry credentials in their URL: say where they belong instead. */
function urlHint(m: ResolvedModel): string {
  try {
    const u = new URL(m.baseUrl ?? '');
    return u.username || u.password
      ? " (the model's base URL holds credentials, which requests cannot carry: store the key as the model's API key secret)"
      : '';
  } catch {
    return '';
  }
}
