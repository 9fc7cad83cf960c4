// Which keys a key list shows (issue 51): the keys people made come first; the console's Try-it
// keys and the `aes` CLI's temporary keys are hidden unless asked for, and so are revoked keys.
// Pure, so the rule is tested without a browser (test/unit/console-key-filter.test.ts).

/** Who made a key, as the API names it. */
export type KeyOrigin = 'PERSON' | 'TRY_IT' | 'CLI';

/** What the filter needs of a listed key. */
export interface FilterableKey {
  origin: KeyOrigin;
  revokedAt: string | null;
}

/** The filter's two switches. */
export interface KeyFilter {
  /** Show the keys Try it and the CLI made for themselves. */
  tools: boolean;
  /** Show revoked keys. */
  revoked: boolean;
}

/** Nothing but the keys people made that still count: what a list shows first. */
export const PEOPLE_FIRST: KeyFilter = { tools: false, revoked: false };

/** How the key list names who made a key (none for a person's key). */
export const ORIGIN_LABELS: Record<KeyOrigin, string | null> = { PERSON: null, TRY_IT: 'Try it', CLI: 'CLI' };

/** The keys to show, and how many each switch hides. */
export function filterKeys<K extends FilterableKey>(
  keys: readonly K[],
  filter: KeyFilter,
): { shown: K[]; hiddenTools: number; hiddenRevoked: number } {
  const isTool = (k: K) => k.origin !== 'PERSON';
  const shown = keys.filter((k) => (filter.tools || !isTool(k)) && (filter.revoked || !k.revokedAt));
  return {
    shown,
    // Counted against the other switch as it stands, so each count is what turning it on adds.
    hiddenTools: filter.tools ? 0 : keys.filter((k) => isTool(k) && (filter.revoked || !k.revokedAt)).length,
    hiddenRevoked: filter.revoked ? 0 : keys.filter((k) => k.revokedAt && (filter.tools || !isTool(k))).length,
  };
}

/** The surfaces an agent key calls, in the words the console's tabs use. */
export const AGENT_KEY_SURFACES = [
  'HTTP API',
  'Document API',
  'MCP server',
  'Chat (the widget, through your proxy)',
  'OpenAI-compatible API',
  'A2A server',
] as const;

/** `a, b and c`. */
export function inWords(items: readonly string[]): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
