import type { CrudRepo } from '../repo.ports.js';
import type { Member, MemberToken, Team, Workspace } from './workspace.entities.js';

// Ports of the workspace, its teams and members the domain talks to. src/infra implements them;
// nothing here knows about SQL.

export interface WorkspaceRepo extends CrudRepo<Workspace> {
  first(): Promise<Workspace | null>;
  listAll(): Promise<Workspace[]>;
}
export interface TeamRepo extends CrudRepo<Team> {
  listByWorkspace(workspaceId: string): Promise<Team[]>;
}
export interface MemberRepo extends CrudRepo<Member> {
  listByWorkspace(workspaceId: string): Promise<Member[]>;
  findByEmail(workspaceId: string, email: string): Promise<Member | null>;
}
export interface MemberTokenRepo extends CrudRepo<MemberToken> {
  findByHash(hash: string): Promise<MemberToken | null>;
  findByName(memberId: string, name: string): Promise<MemberToken | null>;
  listByMember(memberId: string): Promise<MemberToken[]>;
  revoke(id: string, at: Date): Promise<void>;
  touch(id: string, at: Date): Promise<void>;
}
