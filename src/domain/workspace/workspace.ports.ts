import type { CrudRepo } from '../repo.ports.js';
import type { Account } from './account.entities.js';
import type { Member, MemberToken, Team, Workspace, WorkspaceSummary } from './workspace.entities.js';

// Ports of the workspace, its teams and members the domain talks to. src/infra implements them;
// nothing here knows about SQL.

export interface WorkspaceRepo extends CrudRepo<Workspace> {
  first(): Promise<Workspace | null>;
  listAll(): Promise<Workspace[]>;
  findBySlug(slug: string): Promise<Workspace | null>;
  /** Every workspace with its member and agent counts and the credits of `day` (YYYY-MM-DD), oldest first. */
  summaries(day: string): Promise<WorkspaceSummary[]>;
}
export interface TeamRepo extends CrudRepo<Team> {
  listByWorkspace(workspaceId: string): Promise<Team[]>;
}
export interface MemberRepo extends CrudRepo<Member> {
  listByWorkspace(workspaceId: string): Promise<Member[]>;
  findByEmail(workspaceId: string, email: string): Promise<Member | null>;
  /** An account's memberships, oldest first. */
  listByAccount(accountId: string): Promise<Member[]>;
  findByAccount(workspaceId: string, accountId: string): Promise<Member | null>;
}
export interface MemberTokenRepo extends CrudRepo<MemberToken> {
  findByHash(hash: string): Promise<MemberToken | null>;
  findByName(memberId: string, name: string): Promise<MemberToken | null>;
  listByMember(memberId: string): Promise<MemberToken[]>;
  revoke(id: string, at: Date): Promise<void>;
  touch(id: string, at: Date): Promise<void>;
}

export interface AccountRepo extends CrudRepo<Account> {
  /** Case-insensitive. */
  findByEmail(email: string): Promise<Account | null>;
  count(): Promise<number>;
  /** Counts a wrong password; returns the count after it. */
  recordFailedSignIn(id: string, lockedUntil: Date | null): Promise<number>;
  resetFailedSignIns(id: string): Promise<void>;
  setLastWorkspace(id: string, workspaceId: string): Promise<void>;
}
