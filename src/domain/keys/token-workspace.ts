import { DomainError } from '../errors.js';
import type { Repositories } from '../ports.js';
import type { Member, MemberToken } from '../workspace/workspace.entities.js';

// Which membership a member token acts as (issue 52). A WORKSPACE token acts in the workspace of
// the membership it was made in, always. A PERSON token acts in the workspace a request names in
// the `AES-Workspace` header (id or slug), else in its own; the person's membership there is looked
// up on every request, so removing them from a workspace shuts the token out of it at once.

/** The request header a PERSON token names its workspace in. */
export const WORKSPACE_HEADER = 'AES-Workspace';

/** Why a named workspace was refused (`extensions.reason`), so a client can say what to do. */
export type TokenWorkspaceRefusal = 'WORKSPACE_TOKEN' | 'NOT_A_MEMBER';

function refused(reason: TokenWorkspaceRefusal, message: string): DomainError {
  return new DomainError('FORBIDDEN', message, { reason });
}

/**
 * The member a token acts as in the workspace `named` (the `AES-Workspace` header; empty or absent:
 * the token's own membership `origin`). Naming another workspace is FORBIDDEN for a WORKSPACE token,
 * and for a PERSON token unless the person is a member there now; an unknown workspace is refused
 * the same way as one the person is not in, so the header learns nothing about other workspaces.
 */
export async function memberForToken(
  r: Repositories,
  token: MemberToken,
  origin: Member,
  named: string | undefined,
): Promise<Member> {
  const wanted = named?.trim();
  if (!wanted) return origin;
  if (wanted.length > 100)
    throw refused('NOT_A_MEMBER', `The ${WORKSPACE_HEADER} header is too long: name a workspace by its id or slug`);
  const workspace = (await r.workspaces.get(wanted)) ?? (await r.workspaces.findBySlug(wanted.toLowerCase()));
  if (workspace?.id === origin.workspaceId) return origin;
  if (token.scope !== 'PERSON') {
    const own = await r.workspaces.get(origin.workspaceId);
    throw refused(
      'WORKSPACE_TOKEN',
      `This member token is scoped to its workspace '${own?.slug ?? origin.workspaceId}' and cannot act in '${wanted}' (${WORKSPACE_HEADER}). A PERSON token acts in any of your workspaces: make one with createMemberToken(memberId, name, scope: PERSON)`,
    );
  }
  const member = workspace ? await r.members.findByAccount(workspace.id, origin.accountId) : null;
  if (!member)
    throw refused(
      'NOT_A_MEMBER',
      `You are not a member of a workspace '${wanted}' (${WORKSPACE_HEADER}): viewer { workspaces } lists yours`,
    );
  return member;
}
