import { ClientMetadataRefused } from './client-metadata-refused.js';

/** Longer client ids are refused before any parsing: nothing legitimate needs more. */
const MAX_CLIENT_ID_LENGTH = 2048;

/** A client id URL that passed the syntax rules, with what the fetch needs to know about it. */
export interface ClientIdUrl {
  url: URL;
  /** The host without IPv6 brackets, as DNS and `net.isIP` want it. */
  host: string;
  port: number;
  /** Listed in the operator's allowed hosts: may be loopback or private and may use http. */
  operatorAllowed: boolean;
}

/**
 * Checks `clientId` against the Client Identifier URL rules of the CIMD draft: https (http only for
 * an operator-allowed host), no userinfo, a path, no `.`/`..` segments, no fragment. The raw text is
 * checked as well as the parsed URL because the URL parser silently removes dot segments, tabs and
 * newlines and turns `\` into `/`. Throws ClientMetadataRefused (`bad_client_id` or `not_https`).
 */
export function parseClientIdUrl(clientId: string, allowedHosts: readonly string[]): ClientIdUrl {
  if (clientId.length > MAX_CLIENT_ID_LENGTH || /[\x00-\x20\x7f-\uffff\\]/.test(clientId)) {
    throw bad('The client_id URL is too long or has characters a URL may not have unencoded.');
  }
  const schemeEnd = clientId.indexOf('://');
  const url = URL.canParse(clientId) && schemeEnd > 0 ? new URL(clientId) : undefined;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw bad('The client_id is not an absolute https URL.');
  }
  const afterScheme = clientId.slice(schemeEnd + 3);
  const authorityEnd = afterScheme.search(/[/?#]/);
  const authority = authorityEnd === -1 ? afterScheme : afterScheme.slice(0, authorityEnd);
  if (authority.includes('@')) throw bad('The client_id URL must not contain a user name or password.');
  if (clientId.includes('#')) throw bad('The client_id URL must not contain a fragment.');
  if (authorityEnd === -1 || afterScheme[authorityEnd] !== '/') {
    throw bad('The client_id URL must have a path, for example https://app.example.com/oauth/client.json.');
  }
  const rawPath = afterScheme.slice(authorityEnd).split('?')[0]!;
  if (rawPath.split('/').some((s) => /^(\.|%2e){1,2}$/i.test(s))) {
    throw bad('The client_id URL must not contain . or .. path segments.');
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const operatorAllowed = hostAllowed(url.hostname, port, allowedHosts);
  if (url.protocol !== 'https:' && !operatorAllowed) {
    throw new ClientMetadataRefused('not_https', 'The client_id URL must use https.');
  }
  return { url, host, port, operatorAllowed };
}

/** Whether `hostname` (as URL spells it) and `port` match an entry `host` or `host:port` of `allowed`. */
export function hostAllowed(hostname: string, port: number, allowed: readonly string[]): boolean {
  const host = hostname.toLowerCase();
  return allowed.some((entry) => {
    const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry.trim().toLowerCase());
    if (!m) return false;
    return m[1] === host && (m[2] === undefined || Number(m[2]) === port);
  });
}

function bad(message: string): ClientMetadataRefused {
  return new ClientMetadataRefused('bad_client_id', message);
}
