import type { Agent } from '../core/agent.entities.js';
import type { ToolDefinition } from '../models/language-model.ports.js';
import type { RunInput } from './run.types.js';

/**
 * The tools of one capability an agent may switch on (Endpoint Management, Messaging), given to the
 * run service at composition (`createServices`): the runtime imports no capability's folder, so the
 * capabilities may build on the runtime without a cycle. `run` is the run the tools act within (null
 * when only their definitions are asked for); `traceparent` names its span (what it queues carries it).
 */
export interface CapabilityTools {
  toolsFor(agent: Agent, run: ToolRun | null): ToolDefinition[];
}

/** The run a capability's tools act within. */
export interface ToolRun {
  runId: string;
  input: RunInput;
  /** The W3C traceparent of the run's span (`invoke_agent`), when it has one. */
  traceparent?: string;
}
