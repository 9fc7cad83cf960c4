import { newId } from '../../src/domain/ids.js';
import type { Role } from '../../src/domain/principal.js';
import { ensureAccount } from '../../src/domain/workspace/workspace-rows.js';
import type { Service } from '../../src/server.js';

/**
 * Adds a person (their account made when new) to a workspace with a role, straight through the
 * repositories: the tests of the console's switcher need a person in two workspaces without going
 * through invitations.
 */
export async function addMembership(
  service: Service,
  who: { workspaceId: string; email: string; name: string; role: Role },
): Promise<{ accountId: string; memberId: string }> {
  const r = service.store.repos;
  const now = new Date();
  const account = await ensureAccount(r, { email: who.email, name: who.name }, now);
  const member = await r.members.insert({
    id: newId('mem'),
    workspaceId: who.workspaceId,
    accountId: account.id,
    email: account.email,
    name: account.name,
    role: who.role,
    createdAt: now,
  });
  return { accountId: account.id, memberId: member.id };
}
