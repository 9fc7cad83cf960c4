import type { Clock } from '../clock.js';
import { Conflict, Invalid } from '../errors.js';
import { newId } from '../ids.js';
import type { AgentChange } from './manifest.entities.js';
import type { ModelReferences } from '../models/model-references.js';
import { canSee, loadAgent, requireMember, requireWriter } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';
import type { ScriptCheck } from '../entries/script-check.js';
import type { ManifestChange } from './manifest.diff.js';
import {
  issueAt,
  manifestInvalid,
  parseManifest,
  type CheckableEntries,
  type ManifestIssue,
  type ParsedAgent,
} from './manifest.parse.js';
import { loadState, writeYaml } from './manifest.state.js';
import { manifestOut } from './manifest.output.js';
import { analyseManifest, teamNamesById, type MissingReference } from './manifest.plan.js';
import { writeAgent } from './manifest.write.js';
import type { ValuePath } from './yaml-source.js';

export interface ManifestPlan {
  /** The state the plan was made against; applyManifest refuses another. */
  digest: string;
  changes: ManifestChange[];
  missing: MissingReference[];
  /** Whether applying would change anything (deletions held back without prune do not count). */
  hasChanges: boolean;
}

export interface ManifestApplyResult {
  changed: boolean;
  changes: ManifestChange[];
  /** Each agent of the manifest: its id and what happened to it. */
  agents: { name: string; id: string; action: 'CREATED' | 'UPDATED' | 'UNCHANGED' }[];
}

/**
 * Agents as code: export agents as manifest YAML, plan a manifest against the workspace, apply a
 * plan. Members only; an agent is matched by its slug (manifest.plan.ts, matchAgent).
 */
export class ManifestService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly scripts: ScriptCheck,
    private readonly models: ModelReferences,
  ) {}

  /**
   * The agents (all the member can see when `ids` is absent) as one YAML stream, one document per
   * agent in name order. Secrets appear by name only. NotFound for an id the member cannot see.
   */
  async export(p: Principal, opts: { ids?: readonly string[] | null; withRecords?: boolean | null }): Promise<string> {
    requireMember(p);
    const r = this.store.repos;
    const agents = opts.ids
      ? await Promise.all([...new Set(opts.ids)].map((id) => loadAgent(r, p, id, 'read')))
      : (await r.agents.listByWorkspace(p.workspaceId)).filter((a) => canSee(p, a));
    // Name, then slug (not id): the same agents export in the same order from any workspace.
    agents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.slug < b.slug ? -1 : 1));
    const teams = await teamNamesById(r, p.workspaceId);
    const docs = [];
    for (const a of agents) docs.push(manifestOut(await loadState(r, a, teams, Boolean(opts.withRecords))));
    return docs.length ? writeYaml(docs) : '';
  }

  /**
   * What applying `yaml` would change, with the digest applyManifest needs. BAD_USER_INPUT with
   * every error (line and column each) when the manifest is invalid.
   */
  async plan(p: Principal, yaml: string, prune = false): Promise<ManifestPlan> {
    requireMember(p);
    const { agents, issues } = await this.validate(p, yaml);
    const analysis = await analyseManifest(this.models, this.store.repos, p, agents, prune);
    if (issues.length || analysis.issues.length)
      throw manifestInvalid([...issues, ...analysis.issues, ...analysis.missing]);
    const changes = analysis.plans.flatMap((a) => a.changes);
    return { digest: analysis.digest, changes, missing: analysis.missing, hasChanges: changes.some((c) => c.applied) };
  }

  /**
   * Applies `yaml` in one transaction: Conflict when the workspace (or the manifest, or `prune`)
   * differs from the plan whose digest is given; BAD_USER_INPUT, changing nothing, when the
   * manifest is invalid or names a secret, model or team the workspace lacks. Writes one change
   * entry per changed agent, naming the member.
   */
  async apply(p: Principal, yaml: string, planDigest: string, prune = false): Promise<ManifestApplyResult> {
    const member = requireWriter(p);
    const { agents, issues } = await this.validate(p, yaml);
    return this.store.transaction(async (r) => {
      // Applies of one workspace take turns: the second compares its digest with what the first wrote.
      await r.agentChanges.lockWorkspace(p.workspaceId);
      const analysis = await analyseManifest(this.models, r, p, agents, prune);
      const all = [...issues, ...analysis.issues, ...analysis.missing];
      if (all.length) throw manifestInvalid(all);
      if (analysis.digest !== planDigest) {
        throw new Conflict(
          'The workspace changed since this plan was made (or the manifest or prune differ): plan again, review the changes and apply the new digest',
          'planDigest',
        );
      }
      const now = this.clock.now();
      const teams = await r.teams.listByWorkspace(p.workspaceId);
      const teamIds = new Map(teams.map((t) => [t.name, t.id]));
      const out: ManifestApplyResult = { changed: false, changes: [], agents: [] };
      for (const plan of analysis.plans) {
        const applied = plan.changes.filter((c) => c.applied);
        const name = plan.desired.settings.name;
        if (applied.length === 0) {
          out.agents.push({ name, id: plan.existing!.id, action: 'UNCHANGED' });
          continue;
        }
        const agentId = await writeAgent(r, {
          workspaceId: p.workspaceId,
          memberId: member.memberId,
          existing: plan.existing,
          desired: plan.desired,
          teamIds,
          prune,
          now,
        });
        const entry: AgentChange = {
          id: newId('chg'),
          workspaceId: p.workspaceId,
          agentId,
          memberId: member.memberId,
          source: 'manifest',
          changes: applied.map((c) => ({ action: c.action, path: c.path })),
          createdAt: now,
        };
        await r.agentChanges.insert(entry);
        out.agents.push({ name, id: agentId, action: plan.existing ? 'UPDATED' : 'CREATED' });
        out.changes.push(...applied);
        out.changed = true;
      }
      return out;
    });
  }

  /** The agent's configuration changes, newest first. Members who can see the agent. */
  async changeLog(p: Principal, agentId: string, first: number): Promise<AgentChange[]> {
    requireMember(p);
    await loadAgent(this.store.repos, p, agentId, 'read');
    return this.store.repos.agentChanges.listByAgent(agentId, Math.min(Math.max(first, 1), 200));
  }

  /**
   * Parses the manifest and compiles its scripts (those of documents that do not match the schema
   * too): the documents that match, and every issue found so far. BAD_USER_INPUT at once when no
   * document could be read at all.
   */
  private async validate(p: Principal, yaml: string): Promise<{ agents: ParsedAgent[]; issues: ManifestIssue[] }> {
    const { agents, checkable, issues } = parseManifest(yaml);
    for (const c of checkable) issues.push(...(await this.scriptIssues(p, c)));
    if (issues.length && agents.length === 0) throw manifestInvalid(issues);
    return { agents, issues };
  }

  private async scriptIssues(p: Principal, a: CheckableEntries): Promise<ManifestIssue[]> {
    const s = a.spec;
    const lists: [ValuePath, { handler: { kind: string; body: string } }[] | undefined][] = [
      [['spec', 'httpApi', 'endpoints'], s.httpApi?.endpoints],
      [['spec', 'mcp', 'tools'], s.mcp?.tools],
      [['spec', 'webhooks', 'integrations'], s.webhooks?.integrations],
      [['spec', 'channels'], s.channels],
      [['spec', 'schedules'], s.schedules],
    ];
    const issues: ManifestIssue[] = [];
    for (const [base, list] of lists) {
      for (const [i, e] of (list ?? []).entries()) {
        // A hole is an entry that did not match its schema (manifest.salvage.ts).
        if (!e || e.handler.kind !== 'script') continue;
        try {
          await this.scripts.check({ kind: 'script', body: e.handler.body }, p.workspaceId);
        } catch (err) {
          if (!(err instanceof Invalid)) throw err;
          const path = [...base, i, 'handler', 'script'];
          const d = err.details as { line?: number; column?: number } | undefined;
          const at = d?.line ? a.source.locateInside(path, d.line, d.column ?? 1) : undefined;
          issues.push(issueAt(a.source, path, err.message.replace(/^handler\.script: /, ''), at));
        }
      }
    }
    return issues;
  }
}
