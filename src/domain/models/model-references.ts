import { Invalid } from '../errors.js';
import type { Repositories } from '../ports.js';
import type { Agent } from '../core/agent.entities.js';
import { modelInUse, type ModelDefaults, type ModelInUse } from './model-choice.js';
import { closestNames } from './close-names.js';

/** How many configured names a refusal suggests. */
const CLOSE_NAMES = 5;

/**
 * Checks a model reference when it is saved (an agent's `defaultModel`, an entry's
 * `modelOverride`), by the rule a run resolves it with (models/model-resolver.ts): a configured
 * model's name, or any name when the environment has a provider to send it to. A reference that
 * could only fail at run time is refused now, with the configured names closest to it.
 */
export class ModelReferences {
  constructor(private readonly defaults: ModelDefaults) {}

  /**
   * Invalid (naming `field`) when `reference` names no configured model and no environment provider
   * would take it. `r`: the repositories of the saving transaction.
   */
  async check(
    r: Pick<Repositories, 'models'>,
    workspaceId: string,
    reference: string | null | undefined,
    field: string,
  ): Promise<void> {
    if (!reference || this.defaults.openai || this.defaults.anthropic) return;
    const names = (await r.models.listByWorkspace(workspaceId)).map((m) => m.name);
    if (names.includes(reference)) return;
    const close = names.length
      ? `; configured models: ${closestNames(reference, names, CLOSE_NAMES).join(', ')}`
      : '; no model is configured yet';
    throw new Invalid(
      `${field}: no model named '${reference}'${close}. Configure it first (configureModel with name "${reference}", provider, model and baseUrl), ` +
        'or start the service with OPENAI_BASE_URL / OPENAI_API_KEY or ANTHROPIC_API_KEY so that any model name goes to that provider',
      field,
    );
  }

  /** The model a prompt run of `agent` uses (with an entry's `modelOverride`, when given) and where it comes from. */
  inUse(r: Pick<Repositories, 'models'>, agent: Agent, modelOverride: string | null): Promise<ModelInUse> {
    return modelInUse(r, this.defaults, agent, modelOverride);
  }
}
