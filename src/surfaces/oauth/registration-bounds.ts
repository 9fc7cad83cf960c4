/**
 * The bounds of one anonymous dynamic registration (RFC 7591; issue 49, items 1 and 15). The
 * provider checks the metadata's meaning; these keep what anyone may store small, and register
 * only public clients that redirect over https (or http on loopback), as for metadata documents.
 */
export const REGISTRATION_BOUNDS = {
  /** The request body, in bytes. */
  bodyBytes: 8 * 1024,
  /** `client_name`, in characters. */
  clientName: 200,
  redirectUris: 10,
  /** One redirect URI, in characters. */
  redirectUri: 2048,
} as const;

// The hosts RFC 8252 §7.3 allows plain http to (URL spells IPv6 with brackets).
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why a registration request's metadata is refused before the provider sees it, or null. Only
 * what is present is checked; a body that is not a JSON object is left to the provider's answer.
 */
export function registrationProblem(metadata: unknown): string | null {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return null;
  const m = metadata as Record<string, unknown>;
  if (typeof m.client_name === 'string' && m.client_name.length > REGISTRATION_BOUNDS.clientName) {
    return `client_name must be at most ${REGISTRATION_BOUNDS.clientName} characters`;
  }
  if (m.token_endpoint_auth_method !== undefined && m.token_endpoint_auth_method !== 'none') {
    return 'token_endpoint_auth_method must be none: only public clients (PKCE, no client secret or key) are registered here';
  }
  if (Array.isArray(m.redirect_uris)) {
    if (m.redirect_uris.length > REGISTRATION_BOUNDS.redirectUris)
      return `redirect_uris may list at most ${REGISTRATION_BOUNDS.redirectUris} URIs`;
    for (const uri of m.redirect_uris) {
      if (typeof uri !== 'string') continue;
      if (uri.length > REGISTRATION_BOUNDS.redirectUri)
        return `each of redirect_uris must be at most ${REGISTRATION_BOUNDS.redirectUri} characters`;
      const url = URL.parse(uri);
      if (url?.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
        return 'redirect_uris may use http only on a loopback host (localhost, 127.0.0.1 or [::1]); use https otherwise';
      }
    }
  }
  return null;
}
