import { Forbidden, Unauthenticated } from '../errors.js';

// The 401 a key-authenticated surface answers, one message per case so a caller can tell what to fix.
// Each message speaks only of the key the caller holds: whether a key is known or revoked says
// nothing about any agent, and an agent's own settings are named only to a key of its workspace.

const HOW_TO_SEND = 'send it in the X-Agent-Access-Key header or as Authorization: Bearer <key>';

/** No key at all (or an Authorization header that is not `Bearer <key>`). */
export function noKeySent(): Unauthenticated {
  return new Unauthenticated(`No API key sent: ${HOW_TO_SEND}`);
}

/** No key on the Workspace API. */
export function noWorkspaceKeySent(): Unauthenticated {
  return new Unauthenticated(
    'No API key sent: send a workspace key (wk_) with the WORKSPACE_READ scope as Authorization: Bearer <key>',
  );
}

/** Which credential a place takes, for the refusals that point the caller to the right one. */
export type CredentialPlace = 'agentSurface' | 'workspaceApi' | 'graphql';

const TAKES: Record<CredentialPlace, string> = {
  agentSurface: '<key>',
  workspaceApi: '<workspace key>',
  graphql: '<member token>',
};

const CREATE_WORKSPACE_KEY = 'createWorkspaceApiKey(name: "…", scopes: [WORKSPACE_READ])';

/** An `Authorization` header that holds a bare value: the caller left out `Bearer `. */
export function bearerSchemeMissing(place: CredentialPlace): Unauthenticated {
  const alternative = place === 'agentSurface' ? ' (or send the key alone in the X-Agent-Access-Key header)' : '';
  return new Unauthenticated(
    `The Authorization header has no "Bearer " before its value: send Authorization: Bearer ${TAKES[place]}${alternative}`,
  );
}

/** A member token (mt_, by its shape) presented where an API key is expected. */
export function memberTokenNotAKey(place: Exclude<CredentialPlace, 'graphql'>): Unauthenticated {
  const takes =
    place === 'agentSurface'
      ? 'An agent\'s surfaces take an agent key (ak_): create one with the GraphQL mutation createAgentApiKey(agentId: "…", name: "…")'
      : `The Workspace API takes a workspace key (wk_) with the WORKSPACE_READ scope: an admin creates one with the GraphQL mutation ${CREATE_WORKSPACE_KEY}`;
  return new Unauthenticated(`This is a member token (mt_): it is for the GraphQL API (POST /graphql). ${takes}`);
}

/** What `/graphql` says to a token it does not know; an API key (by its shape) is pointed to where it works. */
export function memberTokenRefused(presented: string | undefined): Unauthenticated {
  const send = 'send Authorization: Bearer <member token>';
  if (presented?.startsWith('ak_')) {
    return new Unauthenticated(
      `This is an agent key (ak_): it is for its agent's surfaces (/agents/{agentId}/api/…, /documents/…, /mcp, /chat). /graphql takes a member token (mt_…): ${send}`,
    );
  }
  if (presented?.startsWith('wk_')) {
    return new Unauthenticated(
      `This is a workspace key (wk_): it is for the Workspace API (/workspaceapi/…) and the surfaces of agents that allow workspace keys. /graphql takes a member token (mt_…): ${send}`,
    );
  }
  return new Unauthenticated(
    `Missing or invalid token: ${send}. Lost the admin token (it is printed once, on the first start)? ` +
      'Restart the service with ADMIN_TOKEN set to a value of your choice (at least 16 characters): that value becomes the admin token',
  );
}

/** A valid workspace key without the scope the Workspace API needs (403). */
export function workspaceReadMissing(): Forbidden {
  return new Forbidden(
    `This workspace key lacks the WORKSPACE_READ scope: an admin creates a key that has it with the GraphQL mutation ${CREATE_WORKSPACE_KEY}`,
  );
}

/** A value that is not a key of this service (wrong shape, unknown hash, or its agent deleted). */
export function keyNotRecognised(): Unauthenticated {
  return new Unauthenticated(
    'API key not recognised: check that it was copied whole (agent keys start with ak_, workspace keys with wk_)',
  );
}

/** A key that was revoked. */
export function keyRevoked(): Unauthenticated {
  return new Unauthenticated(
    'This API key was revoked: create a new one (GraphQL createAgentApiKey or createWorkspaceApiKey)',
  );
}

/** A key past its expiry: refused by every instance from that instant on. */
export function keyExpired(expiresAt: Date): Unauthenticated {
  return new Unauthenticated(
    `This API key expired at ${expiresAt.toISOString()}: create a new one (GraphQL createAgentApiKey or createWorkspaceApiKey, with expiresAt if it should expire too)`,
  );
}

/** An agent key presented on another agent's surface (a key of another agent is an invalid key). */
export function keyOfAnotherAgent(): Unauthenticated {
  return new Unauthenticated('This API key belongs to another agent: use a key created for this agent');
}

/** A workspace key of another workspace: said without naming anything about the agent. */
export function keyNotForThisAgent(): Unauthenticated {
  return new Unauthenticated('This API key is not valid for this agent: use a key created for this agent');
}

/** A workspace key of the agent's own workspace while the agent does not take workspace keys. */
export function workspaceKeysOff(agentId: string): Unauthenticated {
  return new Unauthenticated(
    `Workspace keys are turned off for this agent: use an agent key (ak_), or have a member who can configure the agent turn them on with the GraphQL mutation updateAgent(id: "${agentId}", input: {allowWorkspaceKeys: true})`,
  );
}

/** An agent key presented on the Workspace API. */
export function workspaceKeyRequired(): Unauthenticated {
  return new Unauthenticated(
    "The Workspace API takes a workspace key (wk_) with the WORKSPACE_READ scope; an agent key (ak_) works only on its agent's surfaces",
  );
}

/** An agent key presented on the workspace-wide OpenAI-compatible URL (`/v1`). */
export function workspaceKeyForAllAgents(): Unauthenticated {
  return new Unauthenticated(
    "This URL serves every agent of a workspace and takes a workspace key (wk_); an agent key (ak_) works at its agent's own URL, /agents/{agentId}/v1",
  );
}
