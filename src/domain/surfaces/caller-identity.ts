import type { SurfaceCaller } from './surface-access.js';

/**
 * Who is calling, as one string that is the same on every instance and for every request of the
 * same credential: the key's id, or an OAuth client's grant. It scopes what a caller may reach of its own earlier
 * requests (an MCP `notifications/cancelled` stops only a call of the same identity), so every such
 * key is built from this one function.
 */
export function callerIdentity(caller: SurfaceCaller): string {
  if (caller.keyId !== null) return `key:${caller.keyId}`;
  // An OAuth client is its grant: one member's approval of one client for this agent.
  if (caller.principal.kind === 'oauthGrant') return `grant:${caller.principal.grantId}`;
  return caller.principal.kind;
}
