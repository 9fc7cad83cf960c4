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

/** An agent key as surfaces accept it: `X-Agent-Access-Key`, else `Authorization: Bearer`. */
export function presentedAgentKey(header: (name: string) => string): string | undefined {
  return header('x-agent-access-key').trim() || bearerToken(header('authorization'));
}
