import { z } from 'zod';
import type { Clock } from '../clock.js';
import { Conflict, Forbidden, NotFound } from '../errors.js';
import { requireAdmin } from '../policy.js';
import type { Principal } from '../principal.js';
import { ROLES } from '../principal.js';
import type { Repositories, Store } from '../ports.js';
import { parse } from '../validation.js';
import type { Member } from './workspace.entities.js';

const LAST_ADMIN = 'is the last admin of this workspace: make another member ADMIN first';

/** An admin's changes to the workspace's members: their role, and removing them. */
export class MembershipService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Sets a member's role; the last ADMIN keeps theirs. Admins only. */
  async setRole(p: Principal, memberId: string, roleValue: unknown): Promise<Member> {
    requireAdmin(p);
    const role = parse(z.enum(ROLES), roleValue, 'role');
    return this.store.transaction(async (r) => {
      const member = await this.inWorkspace(r, p, memberId);
      if (member.role === 'ADMIN' && role !== 'ADMIN' && (await this.admins(r, p.workspaceId)) <= 1)
        throw new Conflict(`${member.email} ${LAST_ADMIN}`, 'role');
      return r.members.update({ ...member, role });
    });
  }

  /**
   * Removes a member from the workspace with immediate effect: their console sessions in it end, and
   * so do their member tokens of it, the "Try it" keys made in their sessions there and the OAuth
   * grants they approved there. Their account and their other workspaces stay. Admins only; not
   * yourself, not the last ADMIN.
   */
  async remove(p: Principal, memberId: string): Promise<boolean> {
    const actor = requireAdmin(p);
    const now = this.clock.now();
    await this.store.transaction(async (r) => {
      const member = await this.inWorkspace(r, p, memberId);
      if (member.id === actor.memberId)
        throw new Forbidden('You cannot remove yourself from the workspace: ask another admin to remove you');
      if (member.role === 'ADMIN' && (await this.admins(r, p.workspaceId)) <= 1)
        throw new Conflict(`${member.email} ${LAST_ADMIN}`);
      // "Try it" keys outlive their session's row (the reference is set null), so they end first:
      // those of every session of the person made in this workspace, even one switched away since.
      await r.apiKeys.revokeByAccountSessions(member.accountId, p.workspaceId, now);
      // The OAuth grants they approved here go with their tokens (the grants' rows would go with the
      // member's, their tokens would not).
      await r.mcpGrants.deleteByMember(member.id);
      // The member row's deletion takes the rest with it: their sessions now in this workspace and
      // their member tokens (and the sessions made with them).
      await r.members.delete(member.id);
    });
    return true;
  }

  private async inWorkspace(r: Repositories, p: Principal, memberId: string): Promise<Member> {
    const member = await r.members.get(memberId);
    if (!member || member.workspaceId !== p.workspaceId) throw new NotFound('Member', memberId);
    return member;
  }

  /**
   * The workspace's admins, counted under a lock of its row (written back unchanged): two admins
   * demoting or removing each other at once are serialised, so the second sees the first's change
   * and the workspace never ends without an ADMIN.
   */
  private async admins(r: Repositories, workspaceId: string): Promise<number> {
    const ws = await r.workspaces.get(workspaceId);
    if (ws) await r.workspaces.update(ws);
    return (await r.members.listByWorkspace(workspaceId)).filter((m) => m.role === 'ADMIN').length;
  }
}
