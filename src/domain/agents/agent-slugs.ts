import { freeSlug, slugOf } from '../core/agent-slug.js';
import { Conflict } from '../errors.js';
import { canSee } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Repositories } from '../ports.js';

/**
 * The slug an agent gets: `given` when no other agent of the workspace has it (Conflict naming the
 * one that has it, when the principal can see it), else the first free slug of `name`. `self` is
 * the agent being changed (its own slug is not taken).
 */
export async function slugFor(
  r: Repositories,
  p: Principal,
  opts: { given?: string | null; name: string; self?: string; field?: string },
): Promise<string> {
  const others = (await r.agents.listByWorkspace(p.workspaceId)).filter((a) => a.id !== opts.self);
  if (opts.given) {
    const holder = others.find((a) => a.slug === opts.given);
    if (holder) {
      const who = canSee(p, holder)
        ? `the agent '${holder.name}' (${holder.id})`
        : 'another agent (one you cannot see)';
      throw new Conflict(
        `${opts.field ?? 'input.slug'}: ${who} already has the slug '${opts.given}'; choose another one`,
        opts.field ?? 'input.slug',
      );
    }
    return opts.given;
  }
  return freeSlug(slugOf(opts.name), new Set(others.map((a) => a.slug)));
}
