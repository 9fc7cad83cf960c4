import { z } from 'zod';

// An agent's slug (its handle): lower-case letters, digits and single dashes, unique in its
// workspace. Derived from the name when the agent is made ("Support bot" → `support-bot`, a second
// "Support bot" → `support-bot-2`) and kept when the agent is renamed, so that files, scripts and
// CI that name it keep working. It cannot be mistaken for an id (`agt_…` holds an underscore).

/** The longest slug. */
export const MAX_SLUG = 63;

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A slug given by a person (createAgent, updateAgent, a manifest's `metadata.slug`). */
export const slugInput = z
  .string()
  .trim()
  .max(MAX_SLUG, `must be at most ${MAX_SLUG} characters`)
  .regex(SLUG, 'must be lower-case letters, digits and single dashes between them, like support-bot');

/** The slug a name gives, before it is made unique: `Support bot` → `support-bot`; `agent` when nothing is left. */
export function slugOf(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // the accents NFKD split off: "Café" → "cafe"
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG - 4) // room for a "-999" suffix
    .replace(/-+$/, '');
  return base || 'agent';
}

/** `base` if no agent has it, else the first free `base-2`, `base-3`, … */
export function freeSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${base.slice(0, MAX_SLUG - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}
