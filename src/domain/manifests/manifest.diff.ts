import { canonicalJson, KEYS, type AgentState, type DocumentState } from './manifest.state.js';
import { scheduleOut } from './manifest.schedules.js';
import {
  channelOut,
  documentOut,
  endpointOut,
  manifestOut,
  settingsOut,
  toolOut,
  webhookOut,
} from './manifest.output.js';

// What a manifest would change in the workspace, entry by entry: the plan's list of changes.

export const CHANGE_ACTIONS = ['CREATE', 'UPDATE', 'DELETE'] as const;
export type ChangeAction = (typeof CHANGE_ACTIONS)[number];

export interface ManifestChange {
  /** The agent's name (metadata.name). */
  agent: string;
  action: ChangeAction;
  /** Where in the manifest: `spec.instructions`, `spec.httpApi.endpoints[path=orders/{id}]`; `agent` for a whole new agent. */
  path: string;
  before: unknown;
  after: unknown;
  /** False for a deletion held back because the request did not ask to prune. */
  applied: boolean;
}

/** Settings compared field by field inside these groups; every other setting as a whole. */
const BY_FIELD = new Set(['capabilities', 'guardrails', 'limits', 'surfaces']);

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/**
 * The changes that take the agent from `current` (null: it does not exist) to `desired`. Entries
 * are matched by their natural keys; an entry only `current` has is a deletion, applied only with
 * `prune`. A document's records are compared only when `desired` states them.
 */
export function diffAgent(current: AgentState | null, desired: AgentState, prune: boolean): ManifestChange[] {
  const agent = desired.settings.name;
  if (!current)
    return [{ agent, action: 'CREATE', path: 'agent', before: null, after: manifestOut(desired), applied: true }];
  const out: ManifestChange[] = [];
  const change = (action: ChangeAction, path: string, before: unknown, after: unknown, applied = true) =>
    out.push({ agent, action, path, before, after, applied });

  const cur = settingsOut(current.settings);
  const want = settingsOut(desired.settings);
  // Matched by slug, an agent may be renamed by its file.
  if (cur.metadata.name !== want.metadata.name)
    change('UPDATE', 'metadata.name', cur.metadata.name, want.metadata.name);
  if (!same(cur.metadata.description, want.metadata.description))
    change('UPDATE', 'metadata.description', cur.metadata.description, want.metadata.description);
  for (const [k, v] of Object.entries(want.spec)) {
    const before = (cur.spec as Record<string, unknown>)[k];
    if (BY_FIELD.has(k)) {
      for (const [f, fv] of Object.entries(v as Record<string, unknown>)) {
        const fb = (before as Record<string, unknown>)[f];
        if (!same(fb, fv)) change('UPDATE', `spec.${k}.${f}`, fb, fv);
      }
    } else if (!same(before, v)) change('UPDATE', `spec.${k}`, before, v);
  }

  diffList(
    change,
    prune,
    'spec.httpApi.endpoints',
    'path',
    current.endpoints,
    desired.endpoints,
    KEYS.endpoints,
    (e) => e.path,
    endpointOut,
  );
  diffList(change, prune, 'spec.mcp.tools', 'name', current.tools, desired.tools, KEYS.tools, (e) => e.name, toolOut);
  diffList(
    change,
    prune,
    'spec.webhooks.integrations',
    'integration',
    current.webhooks,
    desired.webhooks,
    KEYS.webhooks,
    (e) => e.integration,
    webhookOut,
  );
  diffList(
    change,
    prune,
    'spec.channels',
    'address',
    current.channels,
    desired.channels,
    KEYS.channels,
    (e) => e.address,
    channelOut,
  );
  diffList(
    change,
    prune,
    'spec.schedules',
    'name',
    current.schedules,
    desired.schedules,
    KEYS.schedules,
    (e) => e.name,
    scheduleOut,
  );
  diffList(
    change,
    prune,
    'spec.documents',
    'name',
    current.documents,
    desired.documents,
    KEYS.documents,
    (e) => e.name,
    documentOut,
  );
  // Records of documents both sides have, when the file states them.
  const currentDocs = new Map(current.documents.map((d) => [d.name, d]));
  for (const d of sortBy(desired.documents, (x) => x.name)) {
    const c = currentDocs.get(d.name);
    if (!c || d.records === undefined) continue;
    const before = c.records ?? [];
    if (!same(before, d.records)) change('UPDATE', `spec.documents[name=${d.name}].records`, before, d.records);
  }
  return out;
}

const sortBy = <T>(list: T[], key: (e: T) => string) =>
  [...list].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

/** Creates, updates and deletions between two lists of entries matched by `key`. */
export function diffList<T>(
  change: (action: ChangeAction, path: string, before: unknown, after: unknown, applied?: boolean) => void,
  prune: boolean,
  base: string,
  keyName: string,
  current: T[],
  desired: T[],
  key: (e: T) => string,
  label: (e: T) => string,
  out: (e: T) => Record<string, unknown>,
): void {
  const byKey = new Map(current.map((e) => [key(e), e]));
  const wanted = new Set<string>();
  for (const d of sortBy(desired, label)) {
    const k = key(d);
    wanted.add(k);
    const c = byKey.get(k);
    const path = `${base}[${keyName}=${label(d)}]`;
    const after = out(d);
    const records = (d as { records?: unknown[] }).records;
    if (!c) change('CREATE', path, null, records?.length ? { ...after, records } : after);
    else if (!same(out(c), after)) change('UPDATE', path, out(c), after);
  }
  for (const c of sortBy(current, label)) {
    if (!wanted.has(key(c))) change('DELETE', `${base}[${keyName}=${label(c)}]`, out(c), null, prune);
  }
}
