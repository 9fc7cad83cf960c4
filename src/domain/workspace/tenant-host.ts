import { MAX_SLUG } from '../core/agent-slug.js';
import { RESERVED_WORKSPACE_SLUGS } from './workspace-rows.js';

// TENANT_BASE_URL (`https://{tenant}.agents.example.com`): each workspace answers on the host its
// slug makes of the template. These pure functions read the template and a request's Host header;
// the HTTP layer (src/rest/tenant.middleware.ts) is the one place that applies them.

/** What stands for the slug in TENANT_BASE_URL. */
export const TENANT_MARK = '{tenant}';

/** TENANT_BASE_URL, read: the host's labels around the tenant's, and what the base URL keeps. */
export interface TenantTemplate {
  /** As configured (with `{tenant}`), without a trailing slash. */
  raw: string;
  protocol: 'http:' | 'https:';
  /** Lower-case labels before and after the tenant's label. */
  before: string[];
  after: string[];
  /** The template's own port ('' when it names none: the request's Host then decides). */
  port: string;
}

// A placeholder that parses as a host label, to let the URL parser check the rest of the template.
const SLOT = 'tenant-slot-x9';
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_HOST = 253;

/**
 * Reads TENANT_BASE_URL; throws an Error saying what is wrong: `{tenant}` must appear once, as a
 * whole label of the host, beside at least one other label; no path, query, credentials; https,
 * or http for a host that never leaves the machine or a test (`localhost`, `*.localhost`, `*.test`).
 */
export function parseTenantTemplate(value: string): TenantTemplate {
  const raw = value.trim().replace(/\/+$/, '');
  if (raw.split(TENANT_MARK).length !== 2) throw new Error(`must contain ${TENANT_MARK} exactly once`);
  let url: URL;
  try {
    url = new URL(raw.replace(TENANT_MARK, SLOT));
  } catch {
    throw new Error(`must be a URL such as https://${TENANT_MARK}.agents.example.com`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('must be an https:// URL');
  const labels = url.hostname.split('.');
  const at = labels.indexOf(SLOT);
  if (at < 0 || labels.lastIndexOf(SLOT) !== at)
    throw new Error(
      `must have ${TENANT_MARK} as a whole label of the host, such as https://${TENANT_MARK}.example.com`,
    );
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== ''))
    throw new Error(
      `must be an origin only (no path, query or credentials), such as https://${TENANT_MARK}.example.com`,
    );
  const before = labels.slice(0, at);
  const after = labels.slice(at + 1);
  if (after.length === 0)
    throw new Error(`must name a domain after ${TENANT_MARK}, such as ${TENANT_MARK}.example.com`);
  if (![...before, ...after].every((l) => LABEL.test(l))) throw new Error('must have a host of DNS labels');
  const rest = after.join('.');
  const local = rest === 'localhost' || rest.endsWith('.localhost') || rest.endsWith('.test');
  if (url.protocol === 'http:' && !local)
    throw new Error('must be https:// (http only for localhost, *.localhost or *.test hosts)');
  return { raw, protocol: url.protocol, before, after, port: url.port };
}

/**
 * The workspace slug a Host header names under the template, or null when it is not a tenant host
 * (another host, the bare domain, a label that is no slug: upper case is folded, one trailing dot
 * and a port are ignored; punycode, dots inside the label, over-long or reserved labels are none).
 */
export function tenantOf(host: string | undefined, template: TenantTemplate | undefined): string | null {
  if (!template || !host || host.length > MAX_HOST + 7) return null;
  const m = /^([^:[\]]+)(?::\d{1,5})?$/.exec(host);
  if (!m) return null;
  const name = m[1]!.toLowerCase().replace(/\.$/, '');
  if (name.length > MAX_HOST) return null;
  const labels = name.split('.');
  const { before, after } = template;
  if (labels.length !== before.length + 1 + after.length) return null;
  if (before.some((l, i) => labels[i] !== l) || after.some((l, i) => labels[before.length + 1 + i] !== l)) return null;
  const slug = labels[before.length]!;
  if (slug.length > MAX_SLUG || !SLUG.test(slug) || RESERVED_WORKSPACE_SLUGS.has(slug)) return null;
  return slug;
}

/**
 * The public base URL of a workspace's host: the template with its slug, on the template's port,
 * else on `port` (the request's, when the service chose its own port: tests, development).
 */
export function tenantBaseUrl(template: TenantTemplate, slug: string, port = ''): string {
  port = template.port || port;
  const name = [...template.before, slug, ...template.after].join('.');
  return `${template.protocol}//${name}${port ? `:${port}` : ''}`;
}
