import type { Agent } from '../core/agent.entities.js';
import type { ModelConfig, ModelProvider } from './model.entities.js';
import type { Repositories } from '../ports.js';

// Which model a prompt run uses, and where that choice comes from. The run resolves its model with
// these (models/model-resolver.ts), and the console's Overview shows the same answer, so the two
// cannot drift apart.

/**
 * Model providers configured by the environment (OPENAI_* / ANTHROPIC_*), each with the model name
 * a run uses when neither the entry, the agent nor the workspace names one (OPENAI_MODEL /
 * ANTHROPIC_MODEL).
 */
export interface ModelDefaults {
  openai: { apiKey: string | null; baseUrl: string | null; model: string } | null;
  anthropic: { apiKey: string; model: string } | null;
  /**
   * Hosts a configured model's own base URL may name (MODEL_HOSTS_ALLOWED): `host`, `host:port`
   * or `*.domain`. Undefined or null: any host (local models are the common case).
   */
  allowedHosts?: readonly string[] | null;
}

/** Where a run's model reference comes from, in the order a run looks. */
export const MODEL_SOURCES = ['ENTRY', 'AGENT', 'WORKSPACE_DEFAULT', 'ENVIRONMENT', 'NONE'] as const;
export type ModelSource = (typeof MODEL_SOURCES)[number];

/** The reference a prompt run uses and where it came from. */
export interface ModelChoice {
  reference: string;
  source: Exclude<ModelSource, 'NONE'>;
}

/**
 * The model reference of a prompt run: the entry's override, else the agent's default, else the
 * workspace's default model, else the environment provider's model (OPENAI_MODEL, then
 * ANTHROPIC_MODEL); null when none of them names one.
 */
export async function chooseModel(
  repos: Pick<Repositories, 'models'>,
  defaults: ModelDefaults,
  agent: Pick<Agent, 'workspaceId' | 'defaultModel'>,
  modelOverride: string | null,
): Promise<ModelChoice | null> {
  if (modelOverride) return { reference: modelOverride, source: 'ENTRY' };
  if (agent.defaultModel) return { reference: agent.defaultModel, source: 'AGENT' };
  const workspaceDefault = (await repos.models.listByWorkspace(agent.workspaceId)).find((m) => m.isDefault);
  if (workspaceDefault) return { reference: workspaceDefault.name, source: 'WORKSPACE_DEFAULT' };
  const environment = defaults.openai?.model ?? defaults.anthropic?.model;
  return environment ? { reference: environment, source: 'ENVIRONMENT' } : null;
}

/**
 * The environment's provider a reference that names no configured model goes to: OpenAI (any
 * OpenAI-compatible server at OPENAI_BASE_URL) unless the name is Claude's and Anthropic is
 * configured; null when the environment configures neither.
 */
export function environmentProvider(defaults: ModelDefaults, reference: string): 'openai' | 'anthropic' | null {
  const wantsAnthropic = /^claude/i.test(reference) && defaults.anthropic;
  if (defaults.openai && !wantsAnthropic) return 'openai';
  return defaults.anthropic ? 'anthropic' : null;
}

/** The model a prompt run of an agent (or of one entry) uses, as the console shows it. */
export interface ModelInUse {
  /** The reference (a configured model's name, or a model name the environment's provider takes); null: none. */
  reference: string | null;
  source: ModelSource;
  /** The provider the run calls; null when no provider takes the reference. */
  provider: ModelProvider | null;
  /** The provider's own name of the model. */
  model: string | null;
  /** Whether the reference names a model configured in the workspace (else the environment's provider takes it). */
  configured: boolean;
  /** Why a prompt run would fail to find a model (null: it finds one). */
  problem: string | null;
}

/** What `chooseModel` picks for the agent and where the run sends it, without revealing keys. */
export async function modelInUse(
  repos: Pick<Repositories, 'models'>,
  defaults: ModelDefaults,
  agent: Pick<Agent, 'workspaceId' | 'defaultModel'>,
  modelOverride: string | null,
): Promise<ModelInUse> {
  const choice = await chooseModel(repos, defaults, agent, modelOverride);
  if (!choice)
    return {
      reference: null,
      source: 'NONE',
      provider: null,
      model: null,
      configured: false,
      problem:
        'No model is set: choose a default model for the agent, make a workspace model the default, or start the service with OPENAI_BASE_URL / OPENAI_API_KEY or ANTHROPIC_API_KEY. Script handlers work without one.',
    };
  const configured: ModelConfig | null = await repos.models.findByName(agent.workspaceId, choice.reference);
  if (configured)
    return { ...choice, provider: configured.provider, model: configured.model, configured: true, problem: null };
  const provider = environmentProvider(defaults, choice.reference);
  return {
    ...choice,
    provider,
    model: provider ? choice.reference : null,
    configured: false,
    problem: provider
      ? null
      : `No model named '${choice.reference}' is configured and the environment has no provider to send it to: configure it on the workspace's Models page, or start the service with OPENAI_BASE_URL / OPENAI_API_KEY or ANTHROPIC_API_KEY`,
  };
}
