import { GraphQLFailure } from './client.js';
import { CliError } from './errors.js';

// Who the token is and where it acts: the person, their role in the workspace the requests go to,
// and whether they are the deployment's operator. `aes login`, `whoami` and `workspaces` share it.

export const WHO = `query {
  viewer { id name email role account { email name operator } }
  workspace { id name slug }
}`;

/**
 * @typedef {{ id: string, name: string, email: string, role: string, account: { email: string, name: string, operator: boolean } }} Viewer
 * @typedef {{ id: string, name: string, slug: string }} WorkspaceRef
 */

/** How to make a token that may act in any of your workspaces. */
export const MAKE_PERSON_TOKEN =
  'make a PERSON token (console: Workspace → Member tokens, scope "Person", or createMemberToken(memberId, name, scope: PERSON)), then run `aes login --workspace SLUG` with it';

/**
 * Asks the service who the token is in the workspace it names; a refusal of that workspace says
 * what to do about it.
 * @param {(query: string, variables?: Record<string, unknown>, opts?: { label?: string }) => Promise<any>} gql
 * @param {string} label
 * @param {string} [workspace] the workspace named, for the messages
 * @returns {Promise<{ viewer: Viewer, workspace: WorkspaceRef }>}
 */
export async function askWho(gql, label, workspace) {
  try {
    return await gql(WHO, {}, { label });
  } catch (err) {
    if (!(err instanceof GraphQLFailure) || !workspace) throw err;
    if (err.reason === 'WORKSPACE_TOKEN')
      throw new CliError(`this token acts only in its own workspace, not in '${workspace}'`, {
        details: [`to act in any of your workspaces, ${MAKE_PERSON_TOKEN}`],
      });
    if (err.reason === 'NOT_A_MEMBER')
      throw new CliError(`you are not a member of a workspace '${workspace}': \`aes workspaces list\` shows yours`);
    throw err;
  }
}

/**
 * The lines `login` and `whoami` print about the person and the workspace.
 * @param {Viewer} viewer
 * @param {WorkspaceRef} workspace
 */
export function describeWho(viewer, workspace) {
  return (
    `Workspace: ${workspace.name} (${workspace.slug}), role ${viewer.role}\n` +
    `Operator: ${viewer.account.operator ? 'yes — `aes workspaces list --all` lists every workspace' : 'no'}\n`
  );
}
