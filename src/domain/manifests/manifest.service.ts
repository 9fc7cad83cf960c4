import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import { Conflict, Invalid } from '../errors.js';
import { newId } from '../ids.js';
import type { Agent } from '../core/agent.entities.js';
import type { AgentChange } from './manifest.entities.js';
import type { ModelReferences } from '../models/model-references.js';
import { assertAgentAction, canSee, loadAgent, requireMember } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Repositories, Store } from '../ports.js';
import type { ScriptCheck } from '../entries/script-check.js';
import { diffAgent, type ManifestChange } from './manifest.diff.js';
import {
  fieldOf,
  issueAt,
  manifestInvalid,
  parseManifest,
  type ManifestIssue,
  type ParsedAgent,
} from './manifest.parse.js';
import {
  canonicalJson,
  desiredState,
  loadState,
  manifestOut,
  newAgentSettings,
  writeYaml,
  type AgentState,
} from './manifest.state.js';
import { writeAgent } from './manifest.write.js';
import type { ValuePath } from './yaml-source.js';

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

/** One agent of a manifest against the workspace. */
interface AgentPlan {
  parsed: ParsedAgent;
  existing: Agent | null;
  current: AgentState | null;
  desired: AgentState;
  changes: ManifestChange[];
}

/**
 * Agents as code: export agents as manifest YAML, plan a manifest against the workspace, apply a
 * plan. Members only; an agent is matched by its name among the agents the member can see.
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
    agents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1));
    const teams = await this.teamNames(r, p.workspaceId);
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
    const analysis = await this.analyse(this.store.repos, p, agents, prune);
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
    const member = requireMember(p);
    const { agents, issues } = await this.validate(p, yaml);
    return this.store.transaction(async (r) => {
      // Applies of one workspace take turns: the second compares its digest with what the first wrote.
      await r.agentChanges.lockWorkspace(p.workspaceId);
      const analysis = await this.analyse(r, p, agents, prune);
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
   * Parses the manifest and compiles its scripts: the documents that match the schema, and every
   * issue found so far. BAD_USER_INPUT at once when no document could be read at all.
   */
  private async validate(p: Principal, yaml: string): Promise<{ agents: ParsedAgent[]; issues: ManifestIssue[] }> {
    const { agents, issues } = parseManifest(yaml);
    for (const a of agents) issues.push(...(await this.scriptIssues(p, a)));
    if (issues.length && agents.length === 0) throw manifestInvalid(issues);
    return { agents, issues };
  }

  private async scriptIssues(p: Principal, a: ParsedAgent): Promise<ManifestIssue[]> {
    const s = a.manifest.spec;
    const lists: [ValuePath, { handler: { kind: string; body: string } }[] | undefined][] = [
      [['spec', 'httpApi', 'endpoints'], s.httpApi?.endpoints],
      [['spec', 'mcp', 'tools'], s.mcp?.tools],
      [['spec', 'webhooks', 'integrations'], s.webhooks?.integrations],
      [['spec', 'channels'], s.channels],
    ];
    const issues: ManifestIssue[] = [];
    for (const [base, list] of lists) {
      for (const [i, e] of (list ?? []).entries()) {
        if (e.handler.kind !== 'script') continue;
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

  /** Matches each manifest agent to the workspace and works out its changes, missing names and digest. */
  private async analyse(r: Repositories, p: Principal, agents: ParsedAgent[], prune: boolean) {
    const visible = (await r.agents.listByWorkspace(p.workspaceId)).filter((a) => canSee(p, a));
    const byName = new Map<string, Agent[]>();
    for (const a of visible) byName.set(a.name, [...(byName.get(a.name) ?? []), a]);
    const teams = await this.teamNames(r, p.workspaceId);
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
      const matches = byName.get(name) ?? [];
      if (matches.length > 1) {
        issues.push(
          issueAt(
            source,
            ['metadata', 'name'],
            `${matches.length} agents you can see are named '${name}'; rename all but one so that the name says which agent this is`,
          ),
        );
        continue;
      }
      const existing = matches[0] ?? null;
      if (existing) assertAgentAction(p, existing, 'configure');
      const withRecords = new Set((m.spec.documents ?? []).filter((d) => d.records).map((d) => d.name));
      const current = existing ? await loadState(r, existing, teams, (doc) => withRecords.has(doc)) : null;
      const desired = desiredState(m, current?.settings ?? newAgentSettings(name, defaults));
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
      await this.checkModel(r, p, m.spec.defaultModel, ['spec', 'defaultModel'], miss);
      const entryLists: [ValuePath, { modelOverride?: string | null }[] | undefined][] = [
        [['spec', 'httpApi', 'endpoints'], m.spec.httpApi?.endpoints],
        [['spec', 'mcp', 'tools'], m.spec.mcp?.tools],
        [['spec', 'webhooks', 'integrations'], m.spec.webhooks?.integrations],
        [['spec', 'channels'], m.spec.channels],
      ];
      for (const [base, list] of entryLists)
        for (const [i, e] of (list ?? []).entries())
          await this.checkModel(r, p, e.modelOverride, [...base, i, 'modelOverride'], miss);
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
          issues.push(
            issueAt(source, path, `secret '${w.signature.secretName}' is not of kind WEBHOOK_SIGNING_SECRET`),
          );
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

  private async checkModel(
    r: Repositories,
    p: Principal,
    ref: string | null | undefined,
    path: ValuePath,
    miss: (kind: 'MODEL', name: string, path: ValuePath, message: string) => void,
  ) {
    if (!ref) return;
    try {
      await this.models.check(r, p.workspaceId, ref, fieldOf(path));
    } catch (err) {
      if (!(err instanceof Invalid)) throw err;
      miss('MODEL', ref, path, err.message.replace(/^[^:]*: /, ''));
    }
  }

  private async teamNames(r: Repositories, workspaceId: string): Promise<Map<string, string>> {
    return new Map((await r.teams.listByWorkspace(workspaceId)).map((t) => [t.id, t.name]));
  }
}
