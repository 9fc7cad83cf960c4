import type { SurfaceCaller } from './surface-access.js';

/**
 * Who is calling, as one string that is the same on every instance and for every request of the
 * same credential: the key's id today. It scopes what a caller may reach of its own earlier
 * requests (an MCP `notifications/cancelled` stops only a call of the same identity), so every such
 * key is built from this one function.
 */
export function callerIdentity(caller: SurfaceCaller): string {
  // Every caller of the MCP server today holds a key; one without is named by its kind only.
  return caller.keyId !== null ? `key:${caller.keyId}` : caller.principal.kind;
}
