import type { Json } from '../../json.js';
import type { ModelMessage } from '../../runtime/language-model.ports.js';

// Ports of the OpenAI-compatible API the domain talks to. src/infra implements them.

/** A response of the Responses API, stored so that any instance continues it or reads it back. */
export interface StoredResponse {
  id: string;
  agentId: string;
  previousResponseId: string | null;
  /** The conversation as a response continuing this one starts from: the turns sent and answered. */
  context: ModelMessage[];
  /** The response object as answered. */
  body: Json;
  createdAt: Date;
}

export interface ResponseRepo {
  get(id: string): Promise<StoredResponse | null>;
  insert(r: StoredResponse): Promise<void>;
  /** Deletes the agent's response `id`; false when the agent has none of that id. */
  delete(id: string, agentId: string): Promise<boolean>;
  /** Deletes responses created before `before`; the number deleted. */
  pruneBefore(before: Date, limit: number): Promise<number>;
}
