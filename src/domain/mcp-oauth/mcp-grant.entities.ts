/**
 * A member's approval of one OAuth client for one agent's MCP server (docs/decisions.md §29). Its
 * tokens are accepted only while it exists; deleting it (the console's revoke) ends them all.
 */
export interface McpGrant {
  /** The authorization server's grant id (the tokens it issued carry it). */
  id: string;
  workspaceId: string;
  agentId: string;
  /** The member who approved the client. */
  memberId: string;
  /** The member token whose console session approved it: revoking the token ends the grant (null: approved before this was kept). */
  memberTokenId: string | null;
  /** The client's id: one the service registered, or the URL of its metadata document. */
  clientId: string;
  clientName: string | null;
  /** The host the client's redirect URI named at approval: where the person was sent back. */
  redirectHost: string | null;
  createdAt: Date;
  /** When a token of this grant last called the agent (kept to the minute). */
  lastUsedAt: Date | null;
}

/** The stored grants of the authorization server's clients, and their use. */
export interface McpGrantRepo {
  insert(grant: McpGrant): Promise<void>;
  get(id: string): Promise<McpGrant | null>;
  /** An agent's grants, newest first. */
  listByAgent(agentId: string): Promise<McpGrant[]>;
  /** The grants of several agents at once (GraphQL's loaders), newest first. */
  listByAgents(agentIds: readonly string[]): Promise<McpGrant[]>;
  /** Removes the grant and every token issued under it; false when there was none. */
  delete(id: string): Promise<boolean>;
  /** Removes the grants a member token approved and their tokens; how many there were. */
  deleteByMemberToken(tokenId: string): Promise<number>;
  /** Removes the grants a member approved (in any session or with any token) and their tokens; how many. */
  deleteByMember(memberId: string): Promise<number>;
  touch(id: string, at: Date): Promise<void>;
}
