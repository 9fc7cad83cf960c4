import { storableText } from '../activity/buffered-sink.js';
import { ClientMetadataRefused } from './client-metadata-refused.js';

/**
 * A client's metadata, normalized for oidc-provider's client schema: always a public client
 * (`token_endpoint_auth_method: 'none'`, PKCE) of the authorization code flow.
 */
export interface ClientMetadata {
  client_id: string;
  client_name?: string;
  client_uri?: string;
  redirect_uris: string[];
  grant_types: ('authorization_code' | 'refresh_token')[];
  response_types: ['code'];
  token_endpoint_auth_method: 'none';
  /** `native` when a redirect URI is a custom scheme or every one is http on loopback; else `web`. */
  application_type: 'native' | 'web';
}

const GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);
// oidc-provider's hostnames for loopback redirects (RFC 8252 §7.3); URL spells IPv6 with brackets.
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'vbscript:',
  'data:',
  'blob:',
  'file:',
  'about:',
  'ftp:',
  'ws:',
  'wss:',
]);

/**
 * Parses and validates a fetched Client ID Metadata Document for `clientId` and returns it
 * normalized. Only public clients are accepted: a document that asks for client authentication
 * (`token_endpoint_auth_method` other than `none`) or carries a secret is refused, since this
 * server issues no client credentials to URL-identified clients. Throws ClientMetadataRefused
 * (`bad_document`).
 */
export function validateClientMetadata(clientId: string, body: string): ClientMetadata {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    throw bad('The client metadata document is not valid JSON.');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw bad('The client metadata document must be a JSON object.');
  }
  const d = doc as Record<string, unknown>;
  if (d.client_id !== clientId) {
    throw bad('The client_id in the client metadata document must equal the client_id URL exactly.');
  }
  if ('client_secret' in d || 'client_secret_expires_at' in d) {
    throw bad('A client metadata document must not contain client_secret or client_secret_expires_at.');
  }
  if (d.token_endpoint_auth_method !== undefined && d.token_endpoint_auth_method !== 'none') {
    throw bad(
      'Only public clients may use a client metadata document here: token_endpoint_auth_method must be none or absent, and the client uses PKCE.',
    );
  }
  const redirectUris = redirectUrisOf(d.redirect_uris);
  const out: ClientMetadata = {
    client_id: clientId,
    redirect_uris: redirectUris,
    grant_types: grantTypesOf(d.grant_types),
    response_types: responseTypesOf(d.response_types),
    token_endpoint_auth_method: 'none',
    application_type: applicationTypeOf(redirectUris),
  };
  if (d.client_name !== undefined) {
    if (typeof d.client_name !== 'string' || d.client_name.trim() === '' || d.client_name.length > 200) {
      throw bad('client_name must be a non-empty string of at most 200 characters.');
    }
    // The name is kept with the member's grant: as a registered client's is, made storable (U+0000
    // and lone surrogates become U+FFFD), or the approval could not be saved.
    out.client_name = storableText(d.client_name.trim());
  }
  if (d.client_uri !== undefined) out.client_uri = httpsUrl(d.client_uri, 'client_uri');
  // Validated for the client's sake though not returned: a consent page should show a logo it
  // fetched and checked itself (CIMD draft, Displaying Logos), not hotlink the client's.
  if (d.logo_uri !== undefined) httpsUrl(d.logo_uri, 'logo_uri');
  if (d.scope !== undefined && typeof d.scope !== 'string')
    throw bad('scope must be a string of space-separated scopes.');
  return out;
}

function redirectUrisOf(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw bad('redirect_uris is required: a non-empty array of absolute URLs.');
  }
  for (const uri of value) {
    if (typeof uri !== 'string' || !URL.canParse(uri)) throw bad('Each of redirect_uris must be an absolute URL.');
    if (uri.includes('#')) throw bad('redirect_uris must not contain fragments.');
    const { protocol, hostname } = new URL(uri);
    if (FORBIDDEN_SCHEMES.has(protocol))
      throw bad('redirect_uris must not use the javascript, data, file or similar schemes.');
    if (protocol === 'http:' && !LOOPBACK_HOSTS.has(hostname)) {
      throw bad(
        'redirect_uris may use http only on a loopback host (localhost, 127.0.0.1 or [::1]); use https otherwise.',
      );
    }
  }
  return [...new Set(value as string[])];
}

/**
 * oidc-provider accepts custom schemes only for native clients, and for them https only off
 * loopback; web clients take http(s) only. The type is picked so that the whole list fits one.
 */
function applicationTypeOf(uris: string[]): 'native' | 'web' {
  const parsed = uris.map((u) => new URL(u));
  const custom = parsed.some((u) => u.protocol !== 'http:' && u.protocol !== 'https:');
  if (!custom) return parsed.every((u) => u.protocol === 'http:') ? 'native' : 'web';
  if (parsed.some((u) => u.protocol === 'https:' && LOOPBACK_HOSTS.has(u.hostname))) {
    throw bad('redirect_uris must not mix a custom scheme with https on a loopback host.');
  }
  return 'native';
}

function grantTypesOf(value: unknown): ClientMetadata['grant_types'] {
  if (value === undefined) return ['authorization_code'];
  if (!Array.isArray(value) || !value.every((g) => typeof g === 'string' && GRANT_TYPES.has(g))) {
    throw bad('grant_types may list only authorization_code and refresh_token.');
  }
  if (!value.includes('authorization_code')) throw bad('grant_types must include authorization_code.');
  return [...new Set(value as ClientMetadata['grant_types'])];
}

function responseTypesOf(value: unknown): ['code'] {
  if (value === undefined || (Array.isArray(value) && value.length > 0 && value.every((t) => t === 'code')))
    return ['code'];
  throw bad('response_types may only be [code].');
}

function httpsUrl(value: unknown, name: string): string {
  if (typeof value !== 'string' || !URL.canParse(value) || new URL(value).protocol !== 'https:') {
    throw bad(`${name} must be an https URL.`);
  }
  return value;
}

function bad(message: string): ClientMetadataRefused {
  return new ClientMetadataRefused('bad_document', message);
}
