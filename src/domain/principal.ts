/** Who is acting. Every domain operation receives one; there is no anonymous principal. */
export type Principal =
  | { kind: 'member'; memberId: string; workspaceId: string; role: Role }
  | { kind: 'agentKey'; keyId: string; workspaceId: string; agentId: string }
  | { kind: 'workspaceKey'; keyId: string; workspaceId: string; scopes: KeyScope[] }
  | { kind: 'agentSelf'; workspaceId: string; agentId: string }
  | OAuthPrincipal
  | SystemPrincipal;

/**
 * A client a member approved for one agent's MCP server (OAuth 2.1, docs/decisions.md §29): it
 * calls that agent's MCP tools as an agent key would, nothing else.
 */
export interface OAuthPrincipal {
  kind: 'oauthGrant';
  grantId: string;
  clientId: string;
  /** The member who approved the client. */
  memberId: string;
  workspaceId: string;
  agentId: string;
}

/**
 * Work the service does by itself for one agent, named for what it is: a stored webhook delivery
 * being run, a script's documents calls. It acts for that agent only and may read it and use its
 * documents, nothing more (policy.ts).
 */
export interface SystemPrincipal {
  kind: 'system';
  name: SystemTask;
  workspaceId: string;
  agentId: string;
}

export const SYSTEM_TASKS = [
  'webhook-delivery',
  'script-documents',
  'channel-answer',
  'schedule-fire',
  'approval-continuation',
] as const;
export type SystemTask = (typeof SYSTEM_TASKS)[number];

/** A workspace role: VIEWER reads everything a MEMBER sees and changes nothing. */
export const ROLES = ['ADMIN', 'MEMBER', 'VIEWER'] as const;
export type Role = (typeof ROLES)[number];

export const KEY_SCOPES = ['WORKSPACE_READ'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export type MemberPrincipal = Extract<Principal, { kind: 'member' }>;
