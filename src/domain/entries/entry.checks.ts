import { Conflict, Invalid } from '../errors.js';
import type { Repositories } from '../ports.js';
import type { Webhook } from './entry.entities.js';
import { pathShape } from './entry.schemas.js';

// The checks of an entry against what the workspace already holds, inside the write's transaction.

/** Conflict when another HTTP endpoint of the agent has the same path shape (`a/{x}` and `a/{y}` clash). */
export async function checkPathFree(
  r: Repositories,
  agentId: string,
  path: string,
  exceptId: string | null,
): Promise<void> {
  const shape = pathShape(path);
  const existing = await r.httpEndpoints.listByAgents([agentId]);
  const clash = existing.find((e) => e.id !== exceptId && pathShape(e.path) === shape);
  if (clash) throw new Conflict(`This agent already has an HTTP endpoint at '${clash.path}'`, 'path');
}

/** Invalid unless a signature check names a WEBHOOK_SIGNING_SECRET of the workspace. */
export async function checkSigningSecret(
  r: Repositories,
  workspaceId: string,
  signature: Webhook['signature'],
): Promise<void> {
  if (!signature) return;
  const secret = await r.secrets.findByName(workspaceId, signature.secretName);
  if (!secret)
    throw new Invalid(
      `signature.secretName: no secret named '${signature.secretName}'; create it with createSecret first`,
      'signature.secretName',
    );
  if (secret.kind !== 'WEBHOOK_SIGNING_SECRET') {
    throw new Invalid(
      `signature.secretName: secret '${signature.secretName}' is not of kind WEBHOOK_SIGNING_SECRET`,
      'signature.secretName',
    );
  }
}
