// The port an MCP server uses to reach a tool call running on another instance of the service
// (stateless HTTP: a `notifications/cancelled` may land anywhere behind the load balancer).
// src/infra implements it on the database's change-notification channel.

/** A cancel that names a running call: the agent, the caller (`callerIdentity`) and the JSON-RPC id. */
export interface CallCancel {
  agentId: string;
  caller: string;
  requestId: string | number;
}

/** Carries cancels between every instance of one database. */
export interface CancelChannel {
  /**
   * Announces `cancel` to every instance, this one included. Best effort: an instance that is not
   * listening at that moment never sees it. An id too long to announce is dropped.
   */
  publish(cancel: CallCancel): Promise<void>;
  /** Calls `handler` with each cancel any instance announces, until the returned function is called. */
  subscribe(handler: (cancel: CallCancel) => void): () => void;
}
