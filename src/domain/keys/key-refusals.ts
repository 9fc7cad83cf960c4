import { Unauthenticated } from '../errors.js';

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
  return new Unauthenticated('No API key sent: send a workspace key (wk_) with the WORKSPACE_READ scope as Authorization: Bearer <key>');
}

/** A value that is not a key of this service (wrong shape, unknown hash, or its agent deleted). */
export function keyNotRecognised(): Unauthenticated {
  return new Unauthenticated('API key not recognised: check that it was copied whole (agent keys start with ak_, workspace keys with wk_)');
}

/** A key that was revoked. */
export function keyRevoked(): Unauthenticated {
  return new Unauthenticated('This API key was revoked: create a new one (GraphQL createAgentApiKey or createWorkspaceApiKey)');
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
  return new Unauthenticated('The Workspace API takes a workspace key (wk_) with the WORKSPACE_READ scope; an agent key (ak_) works only on its agent\'s surfaces');
}
