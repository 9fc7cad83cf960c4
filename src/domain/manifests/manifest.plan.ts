import { createHash } from 'node:crypto';
import { Invalid } from '../errors.js';
import { slugOf } from '../core/agent-slug.js';
import type { Agent } from '../core/agent.entities.js';
import type { ModelReferences } from '../models/model-references.js';
import { assertAgentAction, canSee } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Repositories } from '../ports.js';
import { diffAgent, type ManifestChange } from './manifest.diff.js';
import { fieldOf, issueAt, type ManifestIssue, type ParsedAgent } from './manifest.parse.js';
import { canonicalJson, desiredState, loadState, newAgentSettings, type AgentState } from './manifest.state.js';
import { manifestOut } from './manifest.output.js';
import type { ValuePath } from './yaml-source.js';

// A manifest against the workspace: each agent matched by its slug, its changes, the names it refers
// to that the workspace lacks, and the digest that ties an apply to the plan it was shown.

export const MISSING_KINDS = ['SECRET', 'MODEL', 'TEAM'] as const;
/** A name the manifest refers to that the workspace lacks; never created by an apply. */
export interface MissingReference {
  kind: (typeof MISSING_KINDS)[number];
  name: string;
  agent: string;
  field: string;
  line: number;
  column: number;
  message: string;
}

/** One agent of a manifest against the workspace. */
export interface AgentPlan {
  parsed: ParsedAgent;
  existing: Agent | null;
  current: AgentState | null;
  desired: AgentState;
  changes: ManifestChange[];
}

/**
 * Matches each manifest agent to the workspace and works out its changes, missing names and digest
 * (what a plan shows and an apply checks). Forbidden for an agent the principal may not configure.
 */
export async function analyseManifest(
  models: ModelReferences,
  r: Repositories,
  p: Principal,
  agents: ParsedAgent[],
  prune: boolean,
) {
  const all = await r.agents.listByWorkspace(p.workspaceId);
  const bySlug = new Map(all.map((a) => [a.slug, a]));
  const visible = all.filter((a) => canSee(p, a));
  const byName = new Map<string, Agent[]>();
  for (const a of visible) byName.set(a.name, [...(byName.get(a.name) ?? []), a]);
  const visibleIds = new Set(visible.map((a) => a.id));
  // The slug each document's agent has or gets, with the line of that document: one agent, one document.
  const claimed = new Map<string, number>();
  const teams = await teamNamesById(r, p.workspaceId);
  const teamNames = new Set(teams.values());
  const ws = await r.workspaces.get(p.workspaceId);
  const defaults = {
    dailyCreditLimit: ws?.settings.creditDefaults?.agentDailyCreditLimit ?? null,
    maxConcurrentRequests: ws?.settings.creditDefaults?.maxConcurrentRequests ?? null,
  };
  const issues: ManifestIssue[] = [];
  const missing: MissingReference[] = [];
  const plans: AgentPlan[] = [];
  for (const parsed of agents) {
    const { manifest: m, source } = parsed;
    const name = m.metadata.name;
    const found = matchAgent(m.metadata, bySlug, byName, visibleIds);
    const metadataField: ValuePath = ['metadata', m.metadata.slug ? 'slug' : 'name'];
    if (found.hidden) {
      issues.push(
        issueAt(
          source,
          metadataField,
          `the slug '${found.slug}' belongs to an agent you cannot see; give this agent another metadata.slug`,
        ),
      );
      continue;
    }
    const first = claimed.get(found.slug);
    if (first !== undefined) {
      issues.push(
        issueAt(
          source,
          metadataField,
          `this document and the one at line ${first} both describe the agent '${found.slug}'; give each agent its own metadata.slug`,
        ),
      );
      continue;
    }
    claimed.set(found.slug, source.start().line);
    const existing = found.agent;
    if (existing) assertAgentAction(p, existing, 'configure');
    const withRecords = new Set((m.spec.documents ?? []).filter((d) => d.records).map((d) => d.name));
    const current = existing ? await loadState(r, existing, teams, (doc) => withRecords.has(doc)) : null;
    const desired = desiredState(m, current?.settings ?? newAgentSettings(name, found.slug, defaults));
    const miss = (kind: MissingReference['kind'], refName: string, path: ValuePath, message: string) => {
      const at = source.locate(path);
      missing.push({
        kind,
        name: refName,
        agent: name,
        field: fieldOf(path),
        line: at.line,
        column: at.column,
        message,
      });
    };
    if (m.spec.team && !teamNames.has(m.spec.team))
      miss('TEAM', m.spec.team, ['spec', 'team'], `no team named '${m.spec.team}'; create it first (createTeam)`);
    await checkModel(models, r, p, m.spec.defaultModel, ['spec', 'defaultModel'], miss);
    const entryLists: [ValuePath, { modelOverride?: string | null }[] | undefined][] = [
      [['spec', 'httpApi', 'endpoints'], m.spec.httpApi?.endpoints],
      [['spec', 'mcp', 'tools'], m.spec.mcp?.tools],
      [['spec', 'webhooks', 'integrations'], m.spec.webhooks?.integrations],
      [['spec', 'channels'], m.spec.channels],
      [['spec', 'schedules'], m.spec.schedules],
    ];
    for (const [base, list] of entryLists)
      for (const [i, e] of (list ?? []).entries())
        await checkModel(models, r, p, e.modelOverride, [...base, i, 'modelOverride'], miss);
    for (const [i, w] of (m.spec.webhooks?.integrations ?? []).entries()) {
      if (!w.signature) continue;
      const secret = await r.secrets.findByName(p.workspaceId, w.signature.secretName);
      const path = ['spec', 'webhooks', 'integrations', i, 'signature', 'secretName'];
      if (!secret)
        miss(
          'SECRET',
          w.signature.secretName,
          path,
          `no secret named '${w.signature.secretName}'; create it first (createSecret, kind WEBHOOK_SIGNING_SECRET)`,
        );
      else if (secret.kind !== 'WEBHOOK_SIGNING_SECRET')
        issues.push(issueAt(source, path, `secret '${w.signature.secretName}' is not of kind WEBHOOK_SIGNING_SECRET`));
    }
    // An address routes to one agent across the service: one another agent holds is refused here,
    // with its line, rather than by the unique index in the middle of the apply.
    for (const [i, c] of (m.spec.channels ?? []).entries()) {
      const holder = await r.channels.findByAddress(c.kind, c.address);
      if (holder && holder.agentId !== existing?.id)
        issues.push(
          issueAt(
            source,
            ['spec', 'channels', i, 'address'],
            `'${c.address}' already routes to another agent: an email address or number belongs to one channel (remove it there first)`,
          ),
        );
    }
    const currentDocs = new Map((current?.documents ?? []).map((d) => [d.name, d]));
    for (const [i, d] of (m.spec.documents ?? []).entries()) {
      const c = currentDocs.get(d.name);
      if (c && c.kind !== d.kind)
        issues.push(
          issueAt(
            source,
            ['spec', 'documents', i, 'kind'],
            `the document '${d.name}' is ${c.kind}; a document's kind cannot change (give it another name, or delete it first)`,
          ),
        );
    }
    plans.push({ parsed, existing, current, desired, changes: diffAgent(current, desired, prune) });
  }
  const digest = createHash('sha256')
    .update(
      canonicalJson({
        v: 1,
        prune,
        agents: plans.map((a) => ({
          id: a.existing?.id ?? null,
          current: a.current ? manifestOut(a.current) : null,
          desired: manifestOut(a.desired),
        })),
        missing: missing.map((m) => `${m.kind}:${m.name}`),
      }),
    )
    .digest('hex');
  return { plans, issues, missing, digest };
}

/**
 * The agent a manifest document describes: by `metadata.slug` when it gives one; else the one
 * visible agent of exactly that name (what manifests matched by before agents had slugs); else by
 * the slug the name gives. `hidden` when that slug belongs to an agent the principal cannot see.
 */
export function matchAgent(
  metadata: { name: string; slug?: string },
  bySlug: ReadonlyMap<string, Agent>,
  visibleByName: ReadonlyMap<string, Agent[]>,
  visibleIds: ReadonlySet<string>,
): { agent: Agent | null; slug: string; hidden: boolean } {
  if (!metadata.slug) {
    const named = visibleByName.get(metadata.name) ?? [];
    if (named.length === 1) return { agent: named[0]!, slug: named[0]!.slug, hidden: false };
  }
  const slug = metadata.slug ?? slugOf(metadata.name);
  const agent = bySlug.get(slug) ?? null;
  if (!agent) return { agent: null, slug, hidden: false };
  return visibleIds.has(agent.id) ? { agent, slug, hidden: false } : { agent: null, slug, hidden: true };
}

async function checkModel(
  models: ModelReferences,
  r: Repositories,
  p: Principal,
  ref: string | null | undefined,
  path: ValuePath,
  miss: (kind: 'MODEL', name: string, path: ValuePath, message: string) => void,
) {
  if (!ref) return;
  try {
    await models.check(r, p.workspaceId, ref, fieldOf(path));
  } catch (err) {
    if (!(err instanceof Invalid)) throw err;
    miss('MODEL', ref, path, err.message.replace(/^[^:]*: /, ''));
  }
}

/** The workspace's team names by team id. */
export async function teamNamesById(r: Repositories, workspaceId: string): Promise<Map<string, string>> {
  return new Map((await r.teams.listByWorkspace(workspaceId)).map((t) => [t.id, t.name]));
}
