/** Who is acting. Every domain operation receives one; there is no anonymous principal. */
export type Principal =
  | { kind: 'member'; memberId: string; workspaceId: string; role: Role }
  | { kind: 'agentKey'; keyId: string; workspaceId: string; agentId: string }
  | { kind: 'workspaceKey'; keyId: string; workspaceId: string; scopes: KeyScope[] }
  | { kind: 'agentSelf'; workspaceId: string; agentId: string }
  | { kind: 'system'; workspaceId: string; task: string };

export const ROLES = ['ADMIN', 'MEMBER'] as const;
export type Role = (typeof ROLES)[number];

export const KEY_SCOPES = ['WORKSPACE_READ'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export type MemberPrincipal = Extract<Principal, { kind: 'member' }>;
