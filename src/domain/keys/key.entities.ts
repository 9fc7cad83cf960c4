import type { KeyScope } from '../principal.js';

// Entities of API keys as the domain sees them. Repositories map rows to these explicitly.

export const API_KEY_KINDS = ['AGENT', 'WORKSPACE'] as const;
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];
/**
 * Who made a key: a person (`PERSON`), the console for Try it (`TRY_IT`), or the `aes` CLI for a
 * call or a chat (`CLI`). The console lists people's keys first and hides the others by default.
 */
export const API_KEY_ORIGINS = ['PERSON', 'TRY_IT', 'CLI'] as const;
export type ApiKeyOrigin = (typeof API_KEY_ORIGINS)[number];
export interface ApiKey {
  id: string;
  workspaceId: string;
  agentId: string | null;
  kind: ApiKeyKind;
  name: string;
  keyHash: string;
  prefix: string;
  last4: string;
  scopes: KeyScope[];
  createdBy: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** When the key stops working (refused from this instant on); null: it works until revoked. */
  expiresAt: Date | null;
  /** The console session a "Try it" key belongs to: the session's end revokes the key. */
  consoleSessionId?: string | null;
  /** Who made the key; `PERSON` unless a tool said otherwise when creating it. */
  origin: ApiKeyOrigin;
}
