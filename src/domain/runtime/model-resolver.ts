import type { Agent } from '../entities.js';
import type { Repositories } from '../ports.js';
import type { ResolvedModel } from './ports.js';

/**
 * Model providers configured by the environment (OPENAI_* / ANTHROPIC_*), each with the model name
 * a run uses when neither the entry, the agent nor the workspace names one (OPENAI_MODEL /
 * ANTHROPIC_MODEL).
 */
export interface ModelDefaults {
  openai: { apiKey: string | null; baseUrl: string | null; model: string } | null;
  anthropic: { apiKey: string; model: string } | null;
}

/** Raised when no model can be reached; the message names what to configure. */
export class ModelNotConfigured extends Error {}

export interface SecretReader {
  reveal(workspaceId: string, name: string): Promise<{ value: string } | null>;
}

/**
 * Resolves the model of a prompt run: the entry's override, else the agent's default, else the
 * workspace default model, else the environment provider's default model (OpenAI first). A
 * reference naming a configured model uses that configuration; any other reference goes to the
 * environment's provider with that model name.
 */
export async function resolveModel(
  repos: Repositories,
  secrets: SecretReader,
  defaults: ModelDefaults,
  agent: Agent,
  modelOverride: string | null,
): Promise<ResolvedModel> {
  const reference = (await modelReference(repos, agent, modelOverride)) ?? defaults.openai?.model ?? defaults.anthropic?.model;
  if (!reference) {
    throw new ModelNotConfigured(
      'No model configured: set a defaultModel on the agent (updateAgent), a modelOverride on the entry, or a workspace default model (configureModel with isDefault: true), or start the service with OPENAI_BASE_URL / OPENAI_API_KEY or ANTHROPIC_API_KEY',
    );
  }
  const configured = await repos.models.findByName(agent.workspaceId, reference);
  if (configured) {
    let apiKey: string | null = null;
    if (configured.apiKeySecret) {
      const secret = await secrets.reveal(agent.workspaceId, configured.apiKeySecret);
      if (!secret) throw new ModelNotConfigured(`Model '${reference}' names the secret '${configured.apiKeySecret}', which does not exist: create it with createSecret`);
      apiKey = secret.value;
    } else if (configured.provider === 'anthropic') {
      apiKey = defaults.anthropic?.apiKey ?? null;
    } else if (configured.provider === 'openai') {
      apiKey = defaults.openai?.apiKey ?? null;
    }
    if (configured.provider !== 'openai-compatible' && !apiKey) {
      throw new ModelNotConfigured(`Model '${reference}' (${configured.provider}) has no API key: set apiKeySecret in configureModel or the provider's environment variable`);
    }
    return {
      reference,
      provider: configured.provider,
      model: configured.model,
      baseUrl: configured.baseUrl ?? (configured.provider === 'openai' ? defaults.openai?.baseUrl ?? null : null),
      apiKey,
      inputPricePerMillion: configured.inputPricePerMillion,
      outputPricePerMillion: configured.outputPricePerMillion,
    };
  }
  const wantsAnthropic = /^claude/i.test(reference) && defaults.anthropic;
  if (defaults.openai && !wantsAnthropic) {
    return { reference, provider: 'openai', model: reference, baseUrl: defaults.openai.baseUrl, apiKey: defaults.openai.apiKey, inputPricePerMillion: 0, outputPricePerMillion: 0 };
  }
  if (defaults.anthropic) {
    return { reference, provider: 'anthropic', model: reference, baseUrl: null, apiKey: defaults.anthropic.apiKey, inputPricePerMillion: 0, outputPricePerMillion: 0 };
  }
  throw new ModelNotConfigured(
    `No model configured for '${reference}': add it with configureModel (provider, model, baseUrl, apiKeySecret) or set OPENAI_BASE_URL / OPENAI_API_KEY or ANTHROPIC_API_KEY`,
  );
}

/** The model reference a prompt run uses: the entry's override, the agent's default, or the workspace default (null: none). */
async function modelReference(repos: Repositories, agent: Agent, modelOverride: string | null): Promise<string | null> {
  const reference = modelOverride ?? agent.defaultModel;
  if (reference) return reference;
  return (await repos.models.listByWorkspace(agent.workspaceId)).find((m) => m.isDefault)?.name ?? null;
}

/**
 * Whether a prompt run can cost credits: only a configured model has prices (the environment's
 * providers cost 0, and a run without a model fails without a charge).
 */
export async function modelIsPriced(repos: Repositories, agent: Agent, modelOverride: string | null): Promise<boolean> {
  const reference = await modelReference(repos, agent, modelOverride);
  const configured = reference ? await repos.models.findByName(agent.workspaceId, reference) : null;
  return !!configured && (configured.inputPricePerMillion > 0 || configured.outputPricePerMillion > 0);
}
