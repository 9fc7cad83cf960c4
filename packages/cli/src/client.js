import { authError, CliError, EXIT } from './errors.js';
import { withSpinner } from './output.js';

// A small GraphQL client: one POST per operation, errors turned into CliErrors that say what to do.

/**
 * fetch that names the URL when the service cannot be reached.
 * @param {string} url
 * @param {RequestInit} [init]
 */
export async function request(url, init) {
  try {
    return await fetch(url, init);
  } catch (err) {
    if (/** @type {Error} */ (err).name === 'AbortError') throw err;
    const cause = /** @type {{ cause?: { code?: string, message?: string } }} */ (err).cause;
    const why = cause?.code ?? cause?.message ?? /** @type {Error} */ (err).message;
    throw new CliError(`cannot reach ${url}: ${why} — is the service running, and is the URL right?`);
  }
}

/**
 * @typedef {{ message: string, extensions?: { code?: string, errors?: { field?: string, message: string, line?: number, column?: number }[], [k: string]: unknown } }} GraphQLError
 */

export class GraphQLFailure extends CliError {
  /** @param {GraphQLError[]} errors */
  constructor(errors) {
    const first = errors[0];
    const code = first?.extensions?.code;
    super(errors.map((e) => e.message).join('; '), { exitCode: code === 'CONFLICT' ? EXIT.CONFLICT : EXIT.ERROR });
    this.errors = errors;
    this.code = code;
    /** Why the token may not act in the workspace named (AES-Workspace): WORKSPACE_TOKEN, NOT_A_MEMBER. */
    this.reason = typeof first?.extensions?.reason === 'string' ? first.extensions.reason : undefined;
  }
}

/**
 * A client for the service's GraphQL API; with `workspace`, every request names it in the
 * AES-Workspace header (where a PERSON token acts).
 * @param {{ url: string, token: string, workspace?: string }} creds
 */
export function graphqlClient(creds) {
  const endpoint = `${creds.url}/graphql`;
  /**
   * @param {string} query
   * @param {Record<string, unknown>} [variables]
   * @param {{ label?: string }} [opts] a label shows a spinner on a terminal while waiting
   */
  async function gql(query, variables = {}, opts = {}) {
    const run = async () => {
      const res = await request(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: `Bearer ${creds.token}`,
          ...(creds.workspace ? { 'aes-workspace': creds.workspace } : {}),
        },
        body: JSON.stringify({ query, variables }),
      });
      if (res.status === 401) throw authError(creds.url);
      const text = await res.text();
      /** @type {{ data?: any, errors?: GraphQLError[] }} */
      let body;
      try {
        body = JSON.parse(text);
      } catch {
        throw new CliError(
          `${endpoint} answered HTTP ${res.status} without GraphQL JSON: is ${creds.url} an Agent Exposure Service?`,
        );
      }
      if (body.errors?.length) {
        if (body.errors.some((e) => e.extensions?.code === 'UNAUTHENTICATED')) throw authError(creds.url);
        throw new GraphQLFailure(body.errors);
      }
      if (!res.ok || !body.data) throw new CliError(`${endpoint} answered HTTP ${res.status}`);
      return body.data;
    };
    return opts.label ? withSpinner(opts.label, run) : run();
  }
  return gql;
}

/**
 * @typedef {{ id: string, name: string, slug: string }} AgentRef
 */

/**
 * Finds an agent among those the token can see: by id, by slug (its handle, unique in the
 * workspace), else by exact name when one agent has it (then by name in any case).
 * @param {ReturnType<typeof graphqlClient>} gql
 * @param {string} ref
 * @returns {Promise<AgentRef>}
 */
export async function resolveAgent(gql, ref) {
  /** @type {{ agents: AgentRef[] }} */
  const { agents } = await gql('query { agents { id name slug } }', {}, { label: 'Finding the agent' });
  const exact = agents.find((a) => a.id === ref || a.slug === ref);
  if (exact) return exact;
  const byName = agents.filter((a) => a.name === ref);
  if (byName.length === 1) return byName[0];
  const slugs = (/** @type {AgentRef[]} */ list) => list.map((a) => a.slug).join(', ');
  if (byName.length > 1)
    throw new CliError(`${byName.length} agents are named '${ref}': give the slug (${slugs(byName)})`);
  const folded = agents.filter((a) => a.name.toLowerCase() === ref.toLowerCase() || a.slug === ref.toLowerCase());
  if (folded.length === 1) return folded[0];
  if (folded.length > 1)
    throw new CliError(`${folded.length} agents are named '${ref}': give the slug (${slugs(folded)})`);
  throw new CliError(
    `no agent '${ref}' (by slug, id or name) among the agents you can see: \`aes agents list\` shows them`,
  );
}
