import { Forbidden, NotFound } from '../errors.js';
import type { Presented } from '../core/credentials.js';
import type { KeyService } from '../keys/key.service.js';
import { keyKind } from '../core/key-material.js';
import type { Agent } from '../core/agent.entities.js';
import type { Surface } from '../core/surface.entities.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';
import type { AdmittedRun } from '../runtime/pipeline.js';
import type { SpanSource } from '../tracing/call-trace.js';

const LABELS: Record<Surface, string> = {
  HTTP_API: 'HTTP API',
  DOCUMENT_API: 'Document API',
  MCP: 'MCP server',
  WIDGET: 'chat widget',
  WEBHOOKS: 'webhook receiver',
  OPENAI: 'OpenAI-compatible API',
  A2A: 'A2A server',
  EMAIL: 'email channel',
  SMS: 'SMS channel',
  SCHEDULE: 'schedule surface',
};

/**
 * The 403 of a surface that is off, naming the mutation that turns it on. Said only to a caller
 * that got past the key check (or, for webhooks, the signature check): the agent id is in the URL.
 */
export function surfaceOff(agentId: string, surface: Surface): Forbidden {
  return new Forbidden(
    `The ${LABELS[surface]} is turned off for this agent: a member who can configure the agent turns it on with the GraphQL mutation setSurface(agentId: "${agentId}", surface: ${surface}, enabled: true)`,
  );
}

/**
 * What a surface call tells its activity entry besides its answer. The surface's service fills it
 * in as it learns each fact, so a refusal at any later step (a 415 body, a 400 input schema, a 429
 * limit) or a run that fails mid-stream still finds the facts known by then.
 */
export interface CallFacts {
  /** The entry the call resolved: an endpoint path, a tool name, a document id, `chat`. */
  entry?: string;
  /** The request body as read (an MCP tool call: its arguments). */
  requestBody?: unknown;
  /** The run the call admitted: its facts once it ended. */
  run?: AdmittedRun;
  /**
   * The call is protocol traffic, not a call of the agent: an exchange its client's protocol makes
   * around the calls (an MCP `initialize`, a notification, the stream probe of a stateless server).
   */
  protocol?: boolean;
  /** The webhook delivery the call stored (or found already stored: a duplicate). */
  deliveryId?: string;
  /** The call's server span (the lifecycle's, begun when first asked for): the run and the call's operations are its children. */
  span?: SpanSource;
}

/** Who calls a surface, and what the call reported so far. */
export interface SurfaceCaller {
  agent: Agent;
  principal: Principal;
  keyId: string | null;
  facts: CallFacts;
}

/** Who an OAuth access token stands for on an agent's MCP server (McpOAuthService). */
export interface TokenAuthenticator {
  /** `origin`: the authorization server's issuer of the request's host; tokens issued elsewhere are refused. */
  authenticate(agent: Agent, token: string, origin?: string): Promise<Principal>;
}

/** A surface request's parts every service reads the same way. */
export interface SurfaceRequest {
  /** Request headers for the run input (credential headers left out). */
  headers: Record<string, string>;
  /** Fires when the client goes away. */
  signal: AbortSignal;
}

/**
 * The first checks of every key-authenticated surface, in the documented order: the agent exists
 * (NotFound) → the key is valid for it (Unauthenticated) → the surface is on (Forbidden).
 */
export class SurfaceAccess {
  constructor(
    private readonly store: Store,
    private readonly keys: KeyService,
    private readonly oauth?: TokenAuthenticator,
  ) {}

  /** The agent, if it exists (callers that log activity need it even when the key is bad). */
  findAgent(agentId: string): Promise<Agent | null> {
    return this.store.repos.agents.get(agentId);
  }

  /**
   * The checks for a workspace key already authenticated on a workspace-wide URL, where the agent is
   * named in the request: an agent of another workspace, or one that takes no workspace keys, is one
   * this key may not use (NotFound, as an unknown agent) → the surface is on (Forbidden).
   */
  enterAs(
    agent: Agent | null,
    agentId: string,
    surface: Surface,
    principal: Principal & { kind: 'workspaceKey' },
  ): SurfaceCaller {
    if (!agent || !usableBy(agent, principal)) throw new NotFound('Agent', agentId);
    if (!agent.surfaces[surface].enabled) throw surfaceOff(agent.id, surface);
    return { agent, principal, keyId: principal.keyId, facts: {} };
  }

  /** The agents a workspace key may use on `surface`: its workspace's that take workspace keys and have the surface on. */
  async usableAgents(principal: Principal & { kind: 'workspaceKey' }, surface: Surface): Promise<Agent[]> {
    const agents = await this.store.repos.agents.listByWorkspace(principal.workspaceId);
    return agents.filter((a) => usableBy(a, principal) && a.surfaces[surface].enabled);
  }

  /** `origin`: the issuer of the host the request came to (an OAuth token must have been issued there). */
  async enter(
    agent: Agent | null,
    agentId: string,
    surface: Surface,
    presentedKey: Presented,
    origin?: string,
  ): Promise<SurfaceCaller> {
    if (!agent) throw new NotFound('Agent', agentId);
    // The MCP server also takes the access tokens of its OAuth clients: a bearer value that is not
    // shaped like a key or a member token is one (docs/decisions.md §29).
    const principal =
      surface === 'MCP' && this.oauth && typeof presentedKey === 'string' && keyKind(presentedKey) === null
        ? await this.oauth.authenticate(agent, presentedKey, origin)
        : await this.keys.authenticate(agent, presentedKey);
    if (!agent.surfaces[surface].enabled) throw surfaceOff(agent.id, surface);
    const keyId = 'keyId' in principal ? principal.keyId : null;
    return { agent, principal, keyId, facts: {} };
  }
}

/** Whether a workspace key may call the agent at all (its workspace, and the agent takes workspace keys). */
function usableBy(agent: Agent, principal: Principal & { kind: 'workspaceKey' }): boolean {
  return agent.workspaceId === principal.workspaceId && agent.allowWorkspaceKeys;
}
