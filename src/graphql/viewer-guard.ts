import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, Kind, type DocumentNode, type SelectionSetNode } from 'graphql';
import { Forbidden } from '../domain/errors.js';
import { VIEWER_READ_ONLY } from '../domain/policy.js';
import type { Context } from './context.js';

/**
 * The mutations a VIEWER may call: each changes only the person themselves, never the workspace —
 * their password and account, their own member tokens (the domain lets a non-admin touch no one
 * else's), the workspace their console session is in, an invitation to another workspace, and a
 * new workspace of their own (the operator rule or SELF_SERVICE_WORKSPACES decides that, not their
 * role here).
 */
export const VIEWER_MUTATIONS: ReadonlySet<string> = new Set([
  'setPassword',
  'updateAccount',
  'createMemberToken',
  'revokeMemberToken',
  'switchWorkspace',
  'acceptInvitation',
  'createWorkspace',
]);

/** The root field names of a selection set, through inline fragments and fragment spreads. */
function rootFields(set: SelectionSetNode, doc: DocumentNode, seen = new Set<string>()): string[] {
  const out: string[] = [];
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) out.push(s.name.value);
    else if (s.kind === Kind.INLINE_FRAGMENT) out.push(...rootFields(s.selectionSet, doc, seen));
    else if (!seen.has(s.name.value)) {
      seen.add(s.name.value);
      const f = doc.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === s.name.value);
      if (f && f.kind === Kind.FRAGMENT_DEFINITION) out.push(...rootFields(f.selectionSet, doc, seen));
    }
  }
  return out;
}

/**
 * The second wall of the VIEWER role (the first is the domain: `requireWriter` and
 * `assertAgentAction` in src/domain/policy.ts): a mutation by a VIEWER that names any root field
 * outside VIEWER_MUTATIONS is refused (FORBIDDEN) before anything runs, so a new mutation whose
 * service forgets the role check is still read-only for viewers.
 */
export function viewerGuard(): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, contextValue }) {
          if (operation?.operation !== 'mutation') return;
          const p = contextValue.principal;
          if (p.kind !== 'member' || p.role !== 'VIEWER') return;
          const refused = rootFields(operation.selectionSet, document).filter(
            (f) => f !== '__typename' && !VIEWER_MUTATIONS.has(f),
          );
          if (refused.length)
            throw new GraphQLError(VIEWER_READ_ONLY, {
              originalError: new Forbidden(VIEWER_READ_ONLY),
              extensions: { code: 'FORBIDDEN', http: { status: 200 } },
            });
        },
      };
    },
  };
}
