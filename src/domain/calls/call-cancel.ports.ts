import type { Surface } from '../core/surface.entities.js';

// The port a call lifecycle uses to reach a call running on another instance of the service: a
// cancel (an MCP `notifications/cancelled`, an A2A CancelTask) may land on any instance behind the
// load balancer. src/infra implements it on PostgreSQL's notifications; the embedded database
// belongs to one process, whose cancels are delivered in memory (`localCancelChannel`).

/** A cancel that names a running call: its surface, agent, caller and the call's id on that surface. */
export interface CallCancel {
  surface: Surface;
  agentId: string;
  /** Who called (an MCP caller identity, an A2A caller reference): only its own calls are cancelled. */
  caller: string;
  /** The call's id on its surface: a JSON-RPC id (MCP), a task id (A2A). */
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
