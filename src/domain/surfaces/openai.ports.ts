import type { Json } from '../json.js';
import type { ModelMessage } from '../models/language-model.ports.js';

// Ports of the OpenAI-compatible API the domain talks to. src/infra implements them.

/** A response of the Responses API, stored so that any instance continues it or reads it back. */
export interface StoredResponse {
  id: string;
  agentId: string;
  /** The caller that made it (callerRefOf); null for a response stored before callers were kept, which no one reads. */
  callerRef: string | null;
  previousResponseId: string | null;
  /**
   * Chained (every response stored now): the turns this response added, sent and answered; the
   * conversation is rebuilt by walking `previousResponseId`. Otherwise (stored before): the whole
   * conversation as a response continuing this one starts from.
   */
  context: ModelMessage[];
  chained: boolean;
  /**
   * The answer as the surface sent it (OpenAI's response object), read back as is; the domain never
   * looks inside it (its ids and times are the ones the caller saw).
   */
  body: Json;
  createdAt: Date;
}

/** One response of a chain, as a continuation reads it back. */
export type ChainLink = Pick<StoredResponse, 'id' | 'previousResponseId' | 'context' | 'chained'>;

export interface ResponseRepo {
  get(id: string): Promise<StoredResponse | null>;
  insert(r: StoredResponse): Promise<void>;
  /** Deletes the caller's response `id` of the agent; false when it has none of that id. */
  delete(id: string, agentId: string, callerRef: string): Promise<boolean>;
  /**
   * The chain ending at response `id`, newest first: each response, then the one it continues (the
   * agent's and caller's), until one that is not chained, one that is gone, or `max` responses.
   */
  chain(id: string, agentId: string, callerRef: string, max: number): Promise<ChainLink[]>;
  /** Deletes responses created before `before`; the number deleted. */
  pruneBefore(before: Date, limit: number): Promise<number>;
}
