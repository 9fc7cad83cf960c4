import os from 'node:os';
import { graphqlClient, resolveAgent } from './client.js';
import { credentials, serviceUrl } from './config.js';
import { CliError } from './errors.js';

/** How long a key the CLI makes for itself lives, at most (it is revoked as soon as the command ends). */
const TEMPORARY_KEY_MS = 60 * 60 * 1000;

/**
 * The agent and the agent key a call uses: `--key`, else AES_AGENT_KEY, else a temporary key made
 * with the login's token (named "aes cli — <host>", marked as the CLI's, expiring within an hour)
 * that `release` revokes.
 * With a key and an agent id, no management token is needed.
 * @param {string} ref the agent's id or name
 * @param {string | undefined} given --key
 * @returns {Promise<{ url: string, agentId: string, agentName?: string, key: string, temporary: boolean, release(): Promise<void> }>}
 */
export async function agentWithKey(ref, given) {
  const key = given ?? process.env.AES_AGENT_KEY;
  if (key && /^agt_[A-Za-z0-9_-]+$/.test(ref)) {
    return { url: serviceUrl(), agentId: ref, key, temporary: false, release: async () => {} };
  }
  const creds = credentials();
  const gql = graphqlClient(creds);
  const agent = await resolveAgent(gql, ref);
  if (key)
    return { url: creds.url, agentId: agent.id, agentName: agent.name, key, temporary: false, release: async () => {} };
  const expiresAt = new Date(Date.now() + TEMPORARY_KEY_MS).toISOString();
  const created = (
    await gql(
      // origin CLI: the console lists it apart from the keys people made, hidden by default.
      'mutation($a: ID!, $n: String!, $e: DateTimeISO) { createAgentApiKey(agentId: $a, name: $n, expiresAt: $e, origin: CLI) { key apiKey { id } } }',
      {
        a: agent.id,
        n: `aes cli — ${os.hostname()}`.slice(0, 100),
        e: expiresAt,
      },
      { label: 'Making a temporary agent key' },
    )
  ).createAgentApiKey;
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    try {
      await gql('mutation($id: ID!) { revokeApiKey(id: $id) }', { id: created.apiKey.id });
    } catch (err) {
      process.stderr.write(
        `aes: warning: could not revoke the temporary key ${created.apiKey.id} (it expires at ${expiresAt}): ${/** @type {Error} */ (err).message}\n`,
      );
    }
  };
  return { url: creds.url, agentId: agent.id, agentName: agent.name, key: created.key, temporary: true, release };
}

/**
 * Runs `fn` with the key, revoking a temporary key afterwards — also on Ctrl-C.
 * @template T
 * @param {Awaited<ReturnType<typeof agentWithKey>>} target
 * @param {() => Promise<T>} fn
 */
export async function withKey(target, fn) {
  const onSignal = () => {
    void target.release().finally(() => process.exit(130));
  };
  if (target.temporary) process.once('SIGINT', onSignal);
  try {
    return await fn();
  } finally {
    process.off('SIGINT', onSignal);
    await target.release();
  }
}

/** Refuses a key that is not the shape of an agent or workspace key, before it is sent anywhere. */
export function checkKeyShape(key) {
  if (/\s/.test(key))
    throw new CliError('the key holds whitespace: give the key exactly as it was shown (ak_… or wk_…)');
}
