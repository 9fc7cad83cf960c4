// Entities of manifests as the domain sees them. Repositories map rows to these explicitly.

/** A change to an agent's configuration made by a member (an applied manifest): who, when and what. */
export interface AgentChange {
  id: string;
  workspaceId: string;
  agentId: string;
  /** The member who made it (null once that member is deleted). */
  memberId: string | null;
  /** How it was made: `manifest`. */
  source: string;
  /** What changed: each change's action and its path in the manifest. */
  changes: { action: string; path: string }[];
  createdAt: Date;
}
