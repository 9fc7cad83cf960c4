import type { Agent } from '../core/agent.entities.js';
import type { ToolDefinition } from '../models/language-model.ports.js';
import type { RunInput } from './run.types.js';

/**
 * The tools of one capability an agent may switch on (Endpoint Management, Messaging), given to the
 * run service at composition (`createServices`): the runtime imports no capability's folder, so the
 * capabilities may build on the runtime without a cycle. `run` is the run the tools act within (null
 * when only their definitions are asked for).
 */
export interface CapabilityTools {
  toolsFor(agent: Agent, run: { runId: string; input: RunInput } | null): ToolDefinition[];
}
