import type { Clock } from '../clock.js';
import { Conflict, Invalid } from '../errors.js';
import { newId } from '../ids.js';
import type { Surface } from '../core/surface.entities.js';
import type { Agent } from '../core/agent.entities.js';
import { canSee, loadAgent, requireMember, requireWriter } from '../policy.js';
import type { Principal } from '../principal.js';
import type { ModelReferences } from '../models/model-references.js';
import type { ModelInUse } from '../models/model-choice.js';
import type { Repositories, Store } from '../ports.js';
import { modelRef, parse, stripUndefined } from '../validation.js';
import { slugFor } from './agent-slugs.js';
import {
  capabilitiesInput,
  corsInput,
  createAgentInput,
  DEFAULT_CAPABILITIES,
  DEFAULT_CORS,
  DEFAULT_GUARDRAILS,
  defaultSurfaces,
  guardrailsInput,
  limitsInput,
  surfaceInput,
  updateAgentInput,
} from './agent.schemas.js';

/** Agents and their settings: surfaces, CORS, capabilities, guardrails, limits. */
export class AgentService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly models: ModelReferences,
  ) {}

  /** Agents the principal can see. */
  async list(p: Principal): Promise<Agent[]> {
    const all = await this.store.repos.agents.listByWorkspace(p.workspaceId);
    return all.filter((a) => canSee(p, a));
  }

  /** One agent, or NotFound when it does not exist or is not visible. */
  async get(p: Principal, id: string): Promise<Agent> {
    return loadAgent(this.store.repos, p, id, 'read');
  }

  /**
   * The model a prompt run of the agent uses — an entry's override when given, else the agent's
   * default, the workspace's default, the environment's — and where it comes from. Whoever may read the agent.
   */
  async modelInUse(p: Principal, id: string, modelOverride: string | null = null): Promise<ModelInUse> {
    const override = parse(modelRef.nullable(), modelOverride, 'modelOverride');
    const agent = await loadAgent(this.store.repos, p, id, 'read');
    return this.models.inUse(this.store.repos, agent, override);
  }

  /**
   * Creates an agent with every surface enabled and logging on, and a slug unique in the workspace
   * (the given one, else its name's). Members only; Conflict when the given slug is taken.
   */
  async create(p: Principal, input: unknown): Promise<Agent> {
    const member = requireWriter(p);
    const v = parse(createAgentInput, input, 'input');
    // Two agents of one name made at once may pick the same free slug: the unique index refuses the
    // second, which then picks again — a slug nobody gave is not worth a CONFLICT.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.insertAgent(p, member.memberId, v);
      } catch (err) {
        const slugTaken = err instanceof Conflict && err.details?.field === 'slug';
        if (!slugTaken || v.slug || attempt === 5) throw err;
      }
    }
  }

  private async insertAgent(
    p: Principal,
    memberId: string,
    v: ReturnType<typeof createAgentInput.parse>,
  ): Promise<Agent> {
    return this.store.transaction(async (r) => {
      await this.checkTeam(r, p, v.teamId ?? null);
      await this.models.check(r, p.workspaceId, v.defaultModel, 'input.defaultModel');
      const ws = await r.workspaces.get(p.workspaceId);
      const now = this.clock.now();
      const slug = await slugFor(r, p, { given: v.slug, name: v.name });
      return r.agents.insert({
        id: newId('agt'),
        workspaceId: p.workspaceId,
        teamId: v.teamId ?? null,
        createdBy: memberId,
        name: v.name,
        slug,
        description: v.description,
        instructions: v.instructions,
        defaultModel: v.defaultModel ?? null,
        visibility: v.visibility,
        allowWorkspaceKeys: v.allowWorkspaceKeys,
        surfaces: defaultSurfaces(),
        cors: DEFAULT_CORS,
        capabilities: DEFAULT_CAPABILITIES,
        guardrails: DEFAULT_GUARDRAILS,
        dailyCreditLimit: ws?.settings.creditDefaults?.agentDailyCreditLimit ?? null,
        maxConcurrentRequests: ws?.settings.creditDefaults?.maxConcurrentRequests ?? null,
        createdAt: now,
        updatedAt: now,
      });
    });
  }

  /**
   * Updates name, slug, description, instructions, model, visibility, team, allowWorkspaceKeys.
   * Members only. A new name keeps the slug (handles stay stable); Conflict when a given slug is taken.
   */
  async update(p: Principal, id: string, input: unknown): Promise<Agent> {
    const v = parse(updateAgentInput, input, 'input');
    return this.mutate(p, id, 'configure', async (agent, r) => {
      if (v.teamId !== undefined) await this.checkTeam(r, p, v.teamId);
      if (v.slug !== undefined && v.slug !== agent.slug)
        await slugFor(r, p, { given: v.slug, name: agent.name, self: agent.id });
      await this.models.check(r, p.workspaceId, v.defaultModel, 'input.defaultModel');
      const next = { ...agent };
      for (const [k, val] of Object.entries(v)) if (val !== undefined) (next as Record<string, unknown>)[k] = val;
      return next;
    });
  }

  /** Deletes an agent and everything that belongs to it. Members only. */
  async delete(p: Principal, id: string): Promise<boolean> {
    return this.store.transaction(async (r) => {
      await loadAgent(r, p, id, 'configure');
      return r.agents.delete(id);
    });
  }

  /** Turns a surface on or off and sets its activity logging. Members, or the agent itself with Endpoint Management. */
  async setSurface(
    p: Principal,
    agentId: string,
    input: { surface: unknown; enabled?: unknown; activityLogging?: unknown },
  ): Promise<Agent> {
    const v = parse(surfaceInput, input);
    return this.mutate(p, agentId, 'manageSurfaces', async (agent) => {
      const current = agent.surfaces[v.surface as Surface];
      return {
        ...agent,
        surfaces: {
          ...agent.surfaces,
          [v.surface]: {
            enabled: v.enabled ?? current.enabled,
            activityLogging: v.activityLogging ?? current.activityLogging,
          },
        },
      };
    });
  }

  /** Sets the HTTP API CORS settings. Members, or the agent itself with Endpoint Management. */
  async setCors(p: Principal, agentId: string, input: unknown): Promise<Agent> {
    const v = parse(corsInput, input);
    return this.mutate(p, agentId, 'manageSurfaces', async (agent) => ({
      ...agent,
      cors: { allowPlatformApps: v.allowPlatformApps, customOrigins: [...new Set(v.customOrigins)] },
    }));
  }

  /** Turns capabilities on or off. Members only. */
  async setCapabilities(p: Principal, agentId: string, input: unknown): Promise<Agent> {
    const v = parse(capabilitiesInput, input, 'input');
    return this.mutate(p, agentId, 'configure', async (agent) => ({
      ...agent,
      capabilities: { ...agent.capabilities, ...stripUndefined(v) },
    }));
  }

  /** Replaces the given guardrail settings (absent ones are kept). Members only. */
  async setGuardrails(p: Principal, agentId: string, input: unknown): Promise<Agent> {
    const v = parse(guardrailsInput, input, 'input');
    return this.mutate(p, agentId, 'configure', async (agent) => ({
      ...agent,
      guardrails: { ...agent.guardrails, ...stripUndefined(v) },
    }));
  }

  /** Sets the agent's daily credit limit and maximum concurrent requests (null removes). Members only. */
  async setLimits(p: Principal, agentId: string, input: unknown): Promise<Agent> {
    const v = parse(limitsInput, input);
    return this.mutate(p, agentId, 'configure', async (agent) => ({
      ...agent,
      dailyCreditLimit: v.dailyCreditLimit === undefined ? agent.dailyCreditLimit : v.dailyCreditLimit,
      maxConcurrentRequests:
        v.maxConcurrentRequests === undefined ? agent.maxConcurrentRequests : v.maxConcurrentRequests,
    }));
  }

  private async mutate(
    p: Principal,
    agentId: string,
    action: 'manageSurfaces' | 'configure',
    change: (agent: Agent, r: Repositories) => Promise<Agent>,
  ): Promise<Agent> {
    return this.store.transaction(async (r) => {
      const agent = await loadAgent(r, p, agentId, action);
      const next = await change(agent, r);
      return r.agents.update({ ...next, id: agent.id, workspaceId: agent.workspaceId, updatedAt: this.clock.now() });
    });
  }

  private async checkTeam(r: Repositories, p: Principal, teamId: string | null): Promise<void> {
    if (!teamId) return;
    const team = await r.teams.get(teamId);
    if (!team || team.workspaceId !== p.workspaceId)
      throw new Invalid(`teamId: team '${teamId}' does not exist`, 'teamId');
  }
}
