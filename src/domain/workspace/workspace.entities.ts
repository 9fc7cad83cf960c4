import type { Role } from '../principal.js';

// Entities of the workspace, its teams and members as the domain sees them. Repositories map rows
// to these explicitly.

export interface Workspace {
  id: string;
  name: string;
  /** Unique across the deployment: the tenant part of TENANT_BASE_URL, what `aes login --workspace` names. */
  slug: string;
  settings: WorkspaceSettings;
  dailyCreditLimit: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The groups the Workspace API overview returns. */
export interface WorkspaceSettings {
  featureFlags: Record<string, boolean>;
  creditDefaults: {
    agentDailyCreditLimit: number | null;
    maxConcurrentRequests: number | null;
    scriptRunCredits: number;
  };
  accountRules: Record<string, unknown>;
  dataProcessing: {
    dpaAccepted: boolean;
    dpaAcceptedAt: string | null;
    subprocessors: string[];
    region: string | null;
  };
  loginSettings: LoginSettings;
  valueCapture: Record<string, unknown>;
  tags: string[];
  activityRetentionDays: number;
  /** Days messages are kept (0: forever); settings stored before it existed read as the default. */
  messageRetentionDays: number;
}

/**
 * How people may sign in to a workspace (issue 52). Settings stored before these existed (an open
 * object) read with the defaults: nothing required, any domain, no just-in-time membership.
 */
export type LoginSettings = {
  /** Password and member-token sign-in to the console are refused: single sign-on only. */
  ssoRequired: boolean;
  /** Email domains (lower-case) a single sign-on may come from; empty: any. */
  allowedEmailDomains: string[];
  /** A single sign-on with a verified email of an allowed domain joins the workspace with `role`. */
  jitMembership: { enabled: boolean; role: 'MEMBER' | 'VIEWER' };
};

export interface Team {
  id: string;
  workspaceId: string;
  name: string;
  dailyCreditLimit: number | null;
  createdAt: Date;
}

export interface Member {
  id: string;
  workspaceId: string;
  /** The person (src/domain/accounts) this membership belongs to. */
  accountId: string;
  email: string;
  name: string;
  role: Role;
  createdAt: Date;
}

/**
 * What a member token may act in: the workspace of the membership it was made in, or any workspace
 * of that person (the one a request names, else the token's own).
 */
export const TOKEN_SCOPES = ['WORKSPACE', 'PERSON'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export interface MemberToken {
  id: string;
  memberId: string;
  name: string;
  scope: TokenScope;
  tokenHash: string;
  prefix: string;
  last4: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** A workspace as the deployment's operator sees it (read-only). */
export interface WorkspaceSummary {
  workspace: Workspace;
  members: number;
  agents: number;
  /** Credits spent today (UTC) over its agents. */
  creditsToday: number;
}
