import { z } from 'zod';
import { MAX_SLUG, slugOf } from '../core/agent-slug.js';
import { newId } from '../ids.js';
import type { Repositories } from '../ports.js';
import type { Account } from './account.entities.js';
import type { Workspace } from './workspace.entities.js';
import { DEFAULT_SETTINGS } from './settings.js';

/**
 * Slugs a workspace may not take: they would shadow the service's own hosts under
 * TENANT_BASE_URL (`www.agents.example.com`) or read as something else.
 */
export const RESERVED_WORKSPACE_SLUGS = new Set(['www', 'api', 'app', 'admin', 'console', 'mail', 'smtp', 'static']);

/** A workspace slug given by a person: lower-case letters, digits and single dashes, like an agent's. */
export const workspaceSlugInput = z
  .string()
  .trim()
  .max(MAX_SLUG, `must be at most ${MAX_SLUG} characters`)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lower-case letters, digits and single dashes between them, like acme')
  .refine((s) => !RESERVED_WORKSPACE_SLUGS.has(s), 'is reserved for the service itself; choose another');

/** Stores a new workspace with the default settings; without a slug, one from its name made unique. */
export async function createWorkspaceRow(
  r: Repositories,
  v: { name: string; slug: string | null },
  now: Date,
): Promise<Workspace> {
  let slug = v.slug;
  if (!slug) {
    const base = slugOf(v.name) === 'agent' ? 'workspace' : slugOf(v.name);
    const start = RESERVED_WORKSPACE_SLUGS.has(base) ? `${base}-2` : base;
    slug = start;
    for (let n = 2; await r.workspaces.findBySlug(slug); n++) slug = `${base}-${n}`;
  }
  return r.workspaces.insert({
    id: newId('ws'),
    name: v.name,
    slug,
    settings: DEFAULT_SETTINGS,
    dailyCreditLimit: null,
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * The account of an email, made when missing (an invitation accepted, a first SSO sign-in, a member
 * added). The deployment's first account is its operator.
 */
export async function ensureAccount(
  r: Repositories,
  who: { email: string; name: string },
  now: Date,
): Promise<Account> {
  const found = await r.accounts.findByEmail(who.email);
  if (found) return found;
  const first = (await r.accounts.count()) === 0;
  return r.accounts.insert({
    id: newId('acc'),
    email: who.email,
    name: who.name,
    passwordHash: null,
    operator: first,
    lastWorkspaceId: null,
    failedSignIns: 0,
    lockedUntil: null,
    createdAt: now,
    updatedAt: now,
  });
}
