import { z } from 'zod';
import type { Clock } from '../clock.js';
import { Conflict, Invalid, NotFound } from '../errors.js';
import { newId } from '../ids.js';
import { MODEL_PROVIDERS, type ModelConfig } from './model.entities.js';
import { requireAdmin, requireMember } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';
import {
  assertModelHostAllowed,
  ModelNotConfigured,
  modelConnection,
  resolveModel,
  type ModelDefaults,
  type SecretReader,
} from './model-resolver.js';
import { ModelFailure, type LanguageModels, type ResolvedModel } from './language-model.ports.js';
import { modelRef, parse } from '../validation.js';
import { closestNames } from './close-names.js';
import { maskUrlCredentials } from './url-credentials.js';
import { environmentModels, type EnvironmentModel } from './environment-models.js';

const configureModelInput = z.object({
  name: modelRef,
  provider: z.enum(MODEL_PROVIDERS),
  model: z.string().trim().min(1, 'must not be empty').max(200),
  baseUrl: z
    .url('must be an http(s) URL')
    .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL')
    .nullable()
    .optional(),
  apiKeySecret: z.string().min(1).max(100).nullable().optional(),
  inputPricePerMillion: z.number().nonnegative().max(1e9).default(0),
  outputPricePerMillion: z.number().nonnegative().max(1e9).default(0),
  isDefault: z.boolean().default(false),
  acceptsImages: z.boolean().default(false),
});

/** A configured model as configureModel answers it: `warning` says why its name could not be checked. */
export type ConfiguredModel = ModelConfig & { warning: string | null };

/** What testModel answers: the provider's text, or its error as it gave it (credentials removed). */
export interface ModelTestResult {
  ok: boolean;
  output: string | null;
  error: string | null;
  latencyMs: number;
}

/** The one small call testModel makes. */
export const TEST_PROMPT = 'Reply with OK';
/** Enough for "OK" from any model, few enough to cost nothing worth counting. */
export const TEST_MAX_OUTPUT_TOKENS = 16;
/** A test call that takes longer than this is reported as failed. */
const TEST_TIMEOUT_MS = 30_000;
/** How many available names a refusal suggests. */
const CLOSE_NAMES = 5;

export interface ModelServiceDeps {
  store: Store;
  clock: Clock;
  models: LanguageModels;
  secrets: SecretReader;
  modelDefaults: ModelDefaults;
}

/** Language models configured for the workspace (provider, endpoint, key secret, prices). */
export class ModelService {
  private readonly store: Store;
  private readonly clock: Clock;

  constructor(private readonly deps: ModelServiceDeps) {
    this.store = deps.store;
    this.clock = deps.clock;
  }

  /** Configured models. Members only; only admins see a base URL's credentials (user info, query). */
  async list(p: Principal): Promise<ModelConfig[]> {
    const member = requireMember(p);
    const models = await this.store.repos.models.listByWorkspace(p.workspaceId);
    if (member.role === 'ADMIN') return models;
    return models.map((m) => ({ ...m, baseUrl: m.baseUrl === null ? null : maskUrlCredentials(m.baseUrl) }));
  }

  /** The model providers the environment configures (read-only; never a key). Members only. */
  environment(p: Principal): EnvironmentModel[] {
    requireMember(p);
    return environmentModels(this.deps.modelDefaults);
  }

  /** Creates or replaces the model named `name`. Admins only (it sets prices and uses secrets). */
  async configure(p: Principal, input: unknown): Promise<ConfiguredModel> {
    requireAdmin(p);
    const v = parse(configureModelInput, input, 'input');
    if (v.provider === 'openai-compatible' && !v.baseUrl) {
      throw new Invalid(
        'input.baseUrl: an openai-compatible provider needs the server URL (for example http://localhost:11434/v1)',
        'input.baseUrl',
      );
    }
    if (v.baseUrl) {
      try {
        assertModelHostAllowed(v.baseUrl, this.deps.modelDefaults.allowedHosts);
      } catch (err) {
        if (err instanceof ModelNotConfigured) throw new Invalid(`input.baseUrl: ${err.message}`, 'input.baseUrl');
        throw err;
      }
    }
    // Checked before the transaction: the provider's answer may take seconds, and a transaction
    // holds a database connection (the embedded database has only one).
    const warning = await this.checkModelName(p.workspaceId, {
      ...v,
      baseUrl: v.baseUrl ?? null,
      apiKeySecret: v.apiKeySecret ?? null,
    });
    const saved = await this.store.transaction(async (r) => {
      if (v.apiKeySecret) {
        const secret = await r.secrets.findByName(p.workspaceId, v.apiKeySecret);
        if (!secret)
          throw new Invalid(
            `input.apiKeySecret: no secret named '${v.apiKeySecret}'; create it with createSecret first`,
            'input.apiKeySecret',
          );
      }
      if (v.isDefault) await r.models.clearDefault(p.workspaceId);
      const now = this.clock.now();
      const fields = { ...v, baseUrl: v.baseUrl ?? null, apiKeySecret: v.apiKeySecret ?? null };
      const existing = await r.models.findByName(p.workspaceId, v.name);
      if (existing) return r.models.update({ ...existing, ...fields, updatedAt: now });
      return r.models.insert({
        id: newId('mdl'),
        workspaceId: p.workspaceId,
        ...fields,
        createdAt: now,
        updatedAt: now,
      });
    });
    return { ...saved, warning };
  }

  /**
   * Removes the model named `name`. Admins only. Conflict while an agent names it as its default
   * model or an entry as its override (the message lists each, so they can be changed first);
   * NotFound for a name no model has.
   */
  async remove(p: Principal, name: string): Promise<boolean> {
    requireAdmin(p);
    return this.store.transaction(async (r) => {
      const model = await r.models.findByName(p.workspaceId, name);
      if (!model) throw new NotFound('Model', name);
      const agents = await r.agents.listByWorkspace(p.workspaceId);
      const ids = agents.map((a) => a.id);
      const agentName = new Map(agents.map((a) => [a.id, a.name]));
      // One after the other: a transaction is one connection, and PostgreSQL's client does not take
      // a query while another is running on it (node-postgres warns, and will refuse in pg 9).
      const endpoints = ids.length ? await r.httpEndpoints.listByAgents(ids) : [];
      const tools = ids.length ? await r.mcpTools.listByAgents(ids) : [];
      const webhooks = ids.length ? await r.webhooks.listByAgents(ids) : [];
      const users = [
        ...agents.filter((a) => a.defaultModel === name).map((a) => `agent '${a.name}' (${a.id}) as its defaultModel`),
        ...endpoints
          .filter((e) => e.modelOverride === name)
          .map(
            (e) => `HTTP endpoint '${e.path}' (${e.id}) of agent '${agentName.get(e.agentId)}' as its modelOverride`,
          ),
        ...tools
          .filter((t) => t.modelOverride === name)
          .map((t) => `MCP tool '${t.name}' (${t.id}) of agent '${agentName.get(t.agentId)}' as its modelOverride`),
        ...webhooks
          .filter((w) => w.modelOverride === name)
          .map(
            (w) => `webhook '${w.integration}' (${w.id}) of agent '${agentName.get(w.agentId)}' as its modelOverride`,
          ),
      ];
      if (users.length) {
        throw new Conflict(
          `Model '${name}' is still in use by ${users.join('; ')}. Point them at another model (updateAgent, update…), then remove it`,
        );
      }
      return r.models.delete(model.id);
    });
  }

  /**
   * Makes one small call to the model named `name` through the same resolution as a run (its key
   * secret or the environment's key, its base URL) and returns the provider's answer or its error
   * as the provider gave it. Admins only, as configureModel: the error is the provider's own text.
   */
  async test(p: Principal, name: string): Promise<ModelTestResult> {
    requireAdmin(p);
    const configured = await this.store.repos.models.findByName(p.workspaceId, name);
    if (!configured) throw new NotFound('Model', name);
    const started = performance.now();
    const latencyMs = () => Math.round(performance.now() - started);
    try {
      const model = await resolveModel(
        this.store.repos,
        this.deps.secrets,
        this.deps.modelDefaults,
        modelTestAgent(p.workspaceId),
        name,
      );
      const result = await this.deps.models.generate({
        model,
        system: '',
        messages: [{ role: 'user', content: TEST_PROMPT }],
        tools: [],
        maxSteps: 1,
        maxOutputTokens: TEST_MAX_OUTPUT_TOKENS,
        signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
      });
      return { ok: true, output: result.text, error: null, latencyMs: latencyMs() };
    } catch (err) {
      // ModelFailure.detail: the provider's status and text with the key removed (the activity log's wording).
      if (err instanceof ModelFailure) return { ok: false, output: null, error: err.detail, latencyMs: latencyMs() };
      if (err instanceof ModelNotConfigured)
        return { ok: false, output: null, error: err.message, latencyMs: latencyMs() };
      throw err;
    }
  }

  /**
   * Null when the provider lists `model`, a warning when the name could not be checked; refuses a
   * name the provider's list does not hold, naming the closest ones it does.
   */
  private async checkModelName(
    workspaceId: string,
    v: Pick<ModelConfig, 'provider' | 'model' | 'baseUrl' | 'apiKeySecret'>,
  ): Promise<string | null> {
    const connection = await this.connectionOf(workspaceId, v);
    const unchecked = (reason: string) =>
      `The model name '${v.model}' could not be checked against the provider's model list: ${reason}. It was saved as given; testModel tries it with one call.`;
    if ('unreachable' in connection) {
      return unchecked(
        `there is no API key to ask the provider with (set apiKeySecret, or the provider's environment variable)`,
      );
    }
    const listing = this.deps.models.listModels
      ? await this.deps.models.listModels(connection)
      : { listed: false as const, reason: 'this model adapter cannot list models' };
    if (!listing.listed) return unchecked(listing.reason);
    if (listing.models.includes(v.model)) return null;
    const close = closestNames(v.model, listing.models, CLOSE_NAMES);
    throw new Invalid(
      `input.model: the provider does not list a model '${v.model}'; close names it offers: ${close.join(', ')}`,
      'input.model',
    );
  }

  /**
   * How a model about to be configured is reached: the same rules as resolveModel (runtime/
   * model-resolver.ts) applies to a saved one: its key secret, else the provider's environment key;
   * its base URL, else the environment's OpenAI base URL for OpenAI.
   */
  private async connectionOf(
    workspaceId: string,
    v: Pick<ModelConfig, 'provider' | 'model' | 'baseUrl' | 'apiKeySecret'>,
  ): Promise<ResolvedModel | { unreachable: string }> {
    let secretKey: string | null = null;
    if (v.apiKeySecret) {
      const secret = await this.deps.secrets.reveal(workspaceId, v.apiKeySecret);
      if (!secret)
        throw new Invalid(
          `input.apiKeySecret: no secret named '${v.apiKeySecret}'; create it with createSecret first`,
          'input.apiKeySecret',
        );
      secretKey = secret.value;
    }
    try {
      const { baseUrl, apiKey } = modelConnection(this.deps.modelDefaults, v.model, {
        provider: v.provider,
        baseUrl: v.baseUrl,
        secretKey,
      });
      return {
        reference: v.model,
        provider: v.provider,
        model: v.model,
        baseUrl,
        apiKey,
        inputPricePerMillion: 0,
        outputPricePerMillion: 0,
        acceptsImages: false,
      };
    } catch (err) {
      if (err instanceof ModelNotConfigured) return { unreachable: err.message };
      throw err;
    }
  }
}

/**
 * The agent a test call is resolved for: resolveModel reads only its workspace and default model,
 * and the model is named explicitly, so the test takes exactly the path of a run's model override.
 */
function modelTestAgent(workspaceId: string): Parameters<typeof resolveModel>[3] {
  return { workspaceId, defaultModel: null } as Parameters<typeof resolveModel>[3];
}
