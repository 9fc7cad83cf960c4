import type { Store } from '../ports.js';

/** The workspace a tenant host names: its id and slug. */
export interface TenantWorkspace {
  workspaceId: string;
  slug: string;
}

const CACHE_MS = 30_000;
const CACHE_MAX = 1000;

/**
 * Finds the workspace of a tenant host's slug (TENANT_BASE_URL). Found slugs are remembered for a
 * little while, so that a busy host costs no query per request; an unknown one is asked each time,
 * so that a workspace created a moment ago answers at once.
 */
export class TenantService {
  private readonly known = new Map<string, { tenant: TenantWorkspace; until: number }>();

  constructor(private readonly store: Store) {}

  /** The workspace whose slug is `slug`, or null. */
  async workspaceOf(slug: string): Promise<TenantWorkspace | null> {
    const now = Date.now();
    const hit = this.known.get(slug);
    if (hit && hit.until > now) return hit.tenant;
    const ws = await this.store.repos.workspaces.findBySlug(slug);
    if (!ws) {
      this.known.delete(slug);
      return null;
    }
    if (this.known.size >= CACHE_MAX) this.known.clear();
    const tenant = { workspaceId: ws.id, slug: ws.slug };
    this.known.set(slug, { tenant, until: now + CACHE_MS });
    return tenant;
  }
}
