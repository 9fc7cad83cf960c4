import type { CreditBound } from '../admission/admission.service.js';
import type { Agent } from '../core/agent.entities.js';
import type { ModelUsage, ResolvedModel } from '../models/language-model.ports.js';
import { modelIsPriced } from '../models/model-resolver.js';
import type { Workspace } from '../workspace/workspace.entities.js';
import type { RunEntry } from './run.types.js';

/** The credits a prompt run's model usage costs at the model's prices. */
export function creditsFor(model: ResolvedModel, usage: ModelUsage): number {
  return (
    (usage.inputTokens * model.inputPricePerMillion + usage.outputTokens * model.outputPricePerMillion) / 1_000_000
  );
}

/** The flat credits a script run costs in the workspace. */
export function scriptRunCredits(workspace: Workspace | null): number {
  return workspace?.settings.creditDefaults?.scriptRunCredits ?? 0;
}

/**
 * What a run of `entry` can cost, as admission reserves it: a script run its flat amount, a prompt
 * run on an unpriced model nothing, otherwise the agent's `maxCreditsPerRun` (the run stops at the
 * first model step that reaches it), or null when the agent sets none.
 */
export function runCreditBound(agent: Agent, entry: RunEntry): CreditBound {
  return async (repos, scopes) => {
    if (entry.handler.kind === 'script')
      return scriptRunCredits(scopes ? scopes.workspace : await repos.workspaces.get(agent.workspaceId));
    if (!(await modelIsPriced(repos, agent, entry.modelOverride))) return 0;
    return agent.guardrails.maxCreditsPerRun;
  };
}
