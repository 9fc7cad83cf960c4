import type { Agent } from '../core/agent.entities.js';
import type { ModelConfig } from './model.entities.js';
import type { Repositories } from '../ports.js';
import type { ResolvedModel } from './language-model.ports.js';
import { chooseModel, environmentProvider, type ModelDefaults } from './model-choice.js';

export type { ModelDefaults } from './model-choice.js';

const NO_ENVIRONMENT: ModelDefaults = { openai: null, anthropic: null };

/** A model's provider, its own base URL (null: none) and the value of its key secret (null: none). */
export interface ModelTarget {
  provider: ModelConfig['provider'];
  baseUrl: string | null;
  secretKey: string | null;
}

const sameBase = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/**
 * Where a configured model is called and with which key. The environment's key goes only where the
 * environment points: a model without a base URL of its own takes the environment's (OpenAI:
 * OPENAI_BASE_URL, else the public API; Anthropic: the public API) and its key; a model with its
 * own base URL uses its own key secret or sends none, unless that URL is the environment's own.
 * Only the provider's public address needs a key: a local server without one is called without.
 */
export function modelConnection(
  defaults: ModelDefaults,
  reference: string,
  m: ModelTarget,
): { baseUrl: string | null; apiKey: string | null } {
  let baseUrl = m.baseUrl;
  let envKey: string | null = null;
  if (m.provider === 'openai') {
    const env = defaults.openai;
    if (baseUrl === null) baseUrl = env?.baseUrl ?? null;
    if (env && (env.baseUrl === null ? m.baseUrl === null : baseUrl !== null && sameBase(baseUrl, env.baseUrl)))
      envKey = env.apiKey;
  } else if (m.provider === 'anthropic' && m.baseUrl === null) {
    envKey = defaults.anthropic?.apiKey ?? null;
  }
  const apiKey = m.secretKey ?? envKey;
  if (m.provider !== 'openai-compatible' && baseUrl === null && !apiKey) {
    const variable =
      m.provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)';
    throw new ModelNotConfigured(
      `Model '${reference}' (${m.provider}) has no API key: set apiKeySecret in configureModel, or start the service with ${variable}`,
    );
  }
  if (m.baseUrl !== null) assertModelHostAllowed(m.baseUrl, defaults.allowedHosts);
  return { baseUrl, apiKey };
}

/** Whether `url`'s host is one of `allowed` (`host`, `host:port`, `*.domain`); null or undefined allows any. */
export function modelHostAllowed(url: string, allowed: readonly string[] | null | undefined): boolean {
  if (!allowed) return true;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const host = parsed.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  return allowed.some((entry) => {
    const e = entry.trim().toLowerCase();
    const m = /^(.*?)(?::(\d+))?$/.exec(e.startsWith('[') ? e.replace(/^\[([^\]]+)\]/, '$1') : e)!;
    const [name, wantPort] = [m[1]!, m[2]];
    if (wantPort && wantPort !== port) return false;
    return name.startsWith('*.') ? host.endsWith(name.slice(1)) : host === name;
  });
}

/** Throws ModelNotConfigured when MODEL_HOSTS_ALLOWED does not list the host of `url`. */
export function assertModelHostAllowed(url: string, allowed: readonly string[] | null | undefined): void {
  if (!modelHostAllowed(url, allowed)) {
    throw new ModelNotConfigured(
      `The model's base URL names a host that MODEL_HOSTS_ALLOWED does not list (${(allowed ?? []).join(', ')}); the operator sets which hosts models may call`,
    );
  }
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
  const reference = (await chooseModel(repos, defaults, agent, modelOverride))?.reference;
  if (!reference) {
    throw new ModelNotConfigured(
      'No model configured: set a defaultModel on the agent (updateAgent), a modelOverride on the entry, or a workspace default model (configureModel with isDefault: true), or start the service with OPENAI_BASE_URL / OPENAI_API_KEY or ANTHROPIC_API_KEY',
    );
  }
  const configured = await repos.models.findByName(agent.workspaceId, reference);
  if (configured) {
    let secretKey: string | null = null;
    if (configured.apiKeySecret) {
      const secret = await secrets.reveal(agent.workspaceId, configured.apiKeySecret);
      if (!secret)
        throw new ModelNotConfigured(
          `Model '${reference}' names the secret '${configured.apiKeySecret}', which does not exist: create it with createSecret`,
        );
      secretKey = secret.value;
    }
    const { baseUrl, apiKey } = modelConnection(defaults, reference, {
      provider: configured.provider,
      baseUrl: configured.baseUrl,
      secretKey,
    });
    return {
      reference,
      provider: configured.provider,
      model: configured.model,
      baseUrl,
      apiKey,
      inputPricePerMillion: configured.inputPricePerMillion,
      outputPricePerMillion: configured.outputPricePerMillion,
      acceptsImages: configured.acceptsImages,
    };
  }
  const provider = environmentProvider(defaults, reference);
  if (provider === 'openai' && defaults.openai) {
    return {
      reference,
      provider: 'openai',
      model: reference,
      baseUrl: defaults.openai.baseUrl,
      apiKey: defaults.openai.apiKey,
      inputPricePerMillion: 0,
      outputPricePerMillion: 0,
      acceptsImages: !defaults.openai.baseUrl,
    };
  }
  if (provider === 'anthropic' && defaults.anthropic) {
    return {
      reference,
      provider: 'anthropic',
      model: reference,
      baseUrl: null,
      apiKey: defaults.anthropic.apiKey,
      inputPricePerMillion: 0,
      outputPricePerMillion: 0,
      acceptsImages: true,
    };
  }
  throw new ModelNotConfigured(
    `No model configured for '${reference}': add it with configureModel (provider, model, baseUrl, apiKeySecret) or set OPENAI_BASE_URL / OPENAI_API_KEY or ANTHROPIC_API_KEY`,
  );
}

/**
 * Whether a prompt run can cost credits: only a configured model has prices (the environment's
 * providers cost 0, and a run without a model fails without a charge).
 */
export async function modelIsPriced(repos: Repositories, agent: Agent, modelOverride: string | null): Promise<boolean> {
  // Without the environment's model, as before: the environment's providers cost nothing.
  const reference = (await chooseModel(repos, NO_ENVIRONMENT, agent, modelOverride))?.reference;
  const configured = reference ? await repos.models.findByName(agent.workspaceId, reference) : null;
  return !!configured && (configured.inputPricePerMillion > 0 || configured.outputPricePerMillion > 0);
}
