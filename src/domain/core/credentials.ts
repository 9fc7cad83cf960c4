// How callers present credentials over HTTP, in one place for every surface and the GraphQL API.

/** Headers whose values are credentials or signatures: kept out of run input, `[redacted]` in logs. */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'x-agent-access-key',
  'cookie',
  'set-cookie',
  'x-api-key',
  'x-signature-256',
  'x-hub-signature',
  'x-hub-signature-256',
  'stripe-signature',
  'x-slack-signature',
  'webhook-signature',
  'svix-signature',
]);

export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_HEADERS.has(name.toLowerCase());
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), if any. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
  return m?.[1];
}

/**
 * An `Authorization` header that holds a bare value and no scheme (`Authorization: ak_…`): the caller
 * left out `Bearer `. Its value is never used as a credential; it only changes what the 401 says.
 */
export interface WithoutScheme {
  withoutScheme: true;
}

/** A credential as a request presented it: the value, a header that lacks `Bearer `, or nothing. */
export type Presented = string | WithoutScheme | undefined;

/** The bearer token of an `Authorization` header, or the note that the header lacks the scheme. */
export function presentedBearer(authorization: string | undefined): Presented {
  const token = bearerToken(authorization);
  if (token !== undefined) return token;
  // One word that is not itself a scheme name: a key or token sent without `Bearer `.
  const bare = /^[ \t]*(\S+)[ \t]*$/.exec(authorization ?? '')?.[1];
  return bare && !/^(bearer|basic|digest|token)$/i.test(bare) ? { withoutScheme: true } : undefined;
}

/** An agent key as surfaces accept it: `X-Agent-Access-Key`, else `Authorization: Bearer`. */
export function presentedAgentKey(header: (name: string) => string): Presented {
  return header('x-agent-access-key').trim() || presentedBearer(header('authorization'));
}
