import type { Principal } from '../principal.js';

/**
 * Who made an A2A task, conversation or stored OpenAI response, as it is stored with it: the agent
 * key, workspace key or OAuth grant (another key of the same agent is another caller). Only the
 * creating caller reads, continues or deletes it (docs/security.md, round four).
 */
export function callerRefOf(principal: Principal): string {
  switch (principal.kind) {
    case 'agentKey':
      return `agentKey:${principal.keyId}`;
    case 'workspaceKey':
      return `workspaceKey:${principal.keyId}`;
    case 'oauthGrant':
      return `oauthGrant:${principal.grantId}`;
    case 'member':
      return `member:${principal.memberId}`;
    case 'agentSelf':
      return `agentSelf:${principal.agentId}`;
    case 'system':
      return `system:${principal.name}:${principal.agentId}`;
  }
}
