import { useCallback, useState } from 'react';
import { useClient, useMutation } from 'urql';
import { messageOf } from './errors.js';
import { graphql } from './graphql.js';
import type { TryItResult } from './try-it-fetch.js';

// "Try it" on the HTTP API, MCP and Chat widget tabs: the real surface, called from the browser
// with a short-lived key the console creates for its session (createTryItKey: labelled, one hour,
// revoked at sign-out). The key stays in memory (and, for the widget preview, in a cookie of the
// preview's path); it is never shown.

const CreateTryItKey = graphql(`
  mutation CreateTryItKey($agentId: ID!) {
    createTryItKey(agentId: $agentId) {
      key
      apiKey {
        id
        name
        prefix
        last4
        expiresAt
      }
    }
  }
`);

const ActivityCredits = graphql(`
  query TryItActivity($id: ID!, $surface: Surface) {
    agent(id: $id) {
      id
      activity(first: 20, surface: $surface) {
        nodes {
          id
          requestId
          runId
          credits
        }
      }
    }
  }
`);

export interface TryItKey {
  key: string;
  name: string;
  prefix: string;
  last4: string;
  expiresAt: string;
}

// One key per agent for this page's life; the server keeps one per session and agent.
const keys = new Map<string, TryItKey>();

/**
 * The session's Try-it key for an agent: `get()` returns the one in memory while it has more than a
 * minute left, else creates one; `get(true)` always creates one (after a 401: revoked elsewhere).
 */
export function useTryItKey(agentId: string) {
  const [, create] = useMutation(CreateTryItKey);
  const [current, setCurrent] = useState<TryItKey | null>(keys.get(agentId) ?? null);
  const [problem, setProblem] = useState<string | null>(null);
  const get = useCallback(
    async (fresh = false): Promise<{ key: TryItKey; cached: boolean }> => {
      const held = keys.get(agentId);
      if (!fresh && held && Date.parse(held.expiresAt) - Date.now() > 60_000) return { key: held, cached: true };
      const r = await create({ agentId });
      if (r.error || !r.data) {
        const message = r.error ? messageOf(r.error) : 'No key was created';
        setProblem(message);
        throw new Error(message);
      }
      const made = {
        key: r.data.createTryItKey.key,
        ...r.data.createTryItKey.apiKey,
        expiresAt: String(r.data.createTryItKey.apiKey.expiresAt),
      };
      keys.set(agentId, made);
      setCurrent(made);
      setProblem(null);
      return { key: made, cached: false };
    },
    [agentId, create],
  );
  return { current, problem, get };
}

/** Sends with the Try-it key; a 401 with a key from memory (revoked meanwhile) is sent once more with a new key. */
export async function withKey(
  get: ReturnType<typeof useTryItKey>['get'],
  send: (key: string) => Promise<TryItResult>,
): Promise<TryItResult> {
  const { key, cached } = await get();
  const first = await send(key.key);
  if (first.status !== 401 || !cached) return first;
  return send((await get(true)).key.key);
}

/** Credits and run id of a request from the activity log (by its X-Request-Id), for surfaces whose answer does not say them. */
export function useActivityLookup(agentId: string) {
  const client = useClient();
  return useCallback(
    async (
      requestId: string | undefined,
      surface: 'HTTP_API' | 'MCP' | 'WIDGET',
    ): Promise<{ credits: number; runId: string | null } | null> => {
      if (!requestId) return null;
      for (let i = 0; i < 8; i++) {
        const r = await client
          .query(ActivityCredits, { id: agentId, surface }, { requestPolicy: 'network-only' })
          .toPromise();
        const mine = r.data?.agent.activity.nodes.filter((n) => n.requestId === requestId) ?? [];
        if (mine.length)
          return { credits: mine.reduce((s, n) => s + n.credits, 0), runId: mine.find((n) => n.runId)?.runId ?? null };
        await new Promise((res) => setTimeout(res, 250));
      }
      return null;
    },
    [agentId, client],
  );
}

/** Puts the Try-it key where the widget preview's proxy reads it: a cookie of that agent's preview path only. */
export async function armWidgetPreview(agentId: string, get: ReturnType<typeof useTryItKey>['get']): Promise<void> {
  const { key } = await get();
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  const seconds = Math.max(60, Math.floor((Date.parse(key.expiresAt) - Date.now()) / 1000));
  document.cookie = `aes_try_it=${encodeURIComponent(key.key)}; Path=/console/widget-preview/${encodeURIComponent(agentId)}; Max-Age=${seconds}; SameSite=Strict${secure}`;
}
