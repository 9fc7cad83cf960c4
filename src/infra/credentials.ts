// Removing credentials from text the service did not write itself (a model provider's error, an
// exception's message) before members or the log see it.

export const REDACTED = '[redacted]';

/**
 * `scheme://userinfo@`: the userinfo runs to the last `@` before the host's end (`/`, `?`, `#` or
 * whitespace), so a password holding an unescaped `@` goes entirely.
 */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi;
/** `Authorization`-style credentials: `Bearer <token>`, `Basic <base64>`. */
const AUTH_SCHEME = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;
/** Keys passed as query parameters (`?key=`, `&api_key=`, `access_token=`). */
const KEY_PARAMETER = /([?&](?:api[_-]?key|key|access[_-]?token|token|secret|password)=)[^&\s#"'<>]+/gi;
/** Provider key formats: OpenAI and Anthropic `sk-…`, `sk-ant-…`, `sk-proj-…`; public/restricted `pk-`/`rk-`. */
const PROVIDER_KEY = /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}/g;
/** Shorter known values are not replaced: they would mangle ordinary words of the text. */
const MIN_KNOWN_SECRET = 4;

/**
 * The password of a URL's userinfo, as written and decoded: values to look for elsewhere in a text,
 * where a provider may have echoed them. (The user name alone is no secret, and replacing a common
 * word such as `admin` everywhere would garble the text.)
 */
export function urlPasswords(url: string | null | undefined): string[] {
  if (!url) return [];
  try {
    const { password } = new URL(url);
    return password ? [...new Set([password, safeDecode(password)])] : [];
  } catch {
    return [];
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * The text with credentials removed: the userinfo of every URL, bearer and basic tokens, key query
 * parameters, provider API keys, and each of `known` (an API key, a base URL's password) wherever it
 * appears.
 */
export function withoutCredentials(text: string, known: (string | null | undefined)[] = []): string {
  let out = text;
  // Longest first, so that `user:secret` goes whole before `user` and `secret` are looked for.
  const values = [
    ...new Set(known.filter((k): k is string => typeof k === 'string' && k.length >= MIN_KNOWN_SECRET)),
  ].sort((a, b) => b.length - a.length);
  for (const v of values) out = out.split(v).join(REDACTED);
  return out
    .replace(URL_USERINFO, `$1${REDACTED}@`)
    .replace(AUTH_SCHEME, `$1 ${REDACTED}`)
    .replace(KEY_PARAMETER, `$1${REDACTED}`)
    .replace(PROVIDER_KEY, REDACTED);
}
