import { Forbidden, Invalid, NotFound } from '../errors.js';
import type { Document } from './document.entities.js';
import { loadAgent } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Repositories } from '../ports.js';

// Who reaches which document, and how: the one place the exposure permissions are read.

export type DocumentAccess = 'read' | 'write';

/**
 * How the caller reaches documents: through the Document API (exposure permissions apply), as a
 * resource of the agent's MCP server (read only, with the exposure's MCP permission), or as the
 * agent itself (script host API and Documents capability: its own documents, no exposure needed).
 */
export type Via = 'documentApi' | 'mcp' | 'agent';

/** Who reaches which document, for what. */
export interface Target {
  p: Principal;
  agentId: string;
  documentId: string;
  access: DocumentAccess;
  via: Via;
}

/**
 * The document `t` names, if the principal reaches it `via` that way for `access`. Throws NotFound
 * (the same words for unknown, another agent's and not exposed), Forbidden.
 */
export async function resolveDocument(
  r: Repositories,
  { p, agentId, documentId, access, via }: Target,
): Promise<Document> {
  if (via === 'agent') {
    await loadAgent(r, p, agentId, p.kind === 'agentSelf' ? 'useDocuments' : 'read');
    const doc = await r.documents.get(documentId);
    if (!doc || doc.agentId !== agentId) throw new NotFound('Document', documentId);
    return doc;
  }
  // Document API and MCP server: the principal was authenticated for this agent by the surface.
  const exposure = await r.exposures.find(agentId, documentId);
  const doc = exposure ? await r.documents.get(documentId) : null;
  if (!exposure || !doc || doc.agentId !== agentId) throw notExposed(agentId, documentId);
  // An MCP client only ever reads, and is not told of documents it may not read.
  if (via === 'mcp') {
    if (access !== 'read' || !exposure.mcp) throw notExposed(agentId, documentId);
    return doc;
  }
  if (access === 'read' && !exposure.read)
    throw new Forbidden(`Document '${documentId}' is not readable through the Document API`);
  if (access === 'write' && !exposure.write)
    throw new Forbidden(`Document '${documentId}' is not writable through the Document API`);
  return doc;
}

/** The DATABASE document `t` names (as resolveDocument); Invalid for a TEXT document. */
export async function databaseDocument(r: Repositories, t: Target): Promise<Document> {
  const doc = await resolveDocument(r, t);
  if (doc.kind !== 'DATABASE')
    throw new Invalid(
      `Document '${t.documentId}' is a TEXT document; records exist only in DATABASE documents`,
      'documentId',
    );
  return doc;
}

/**
 * The Document API's 404: the same words whether the document does not exist, belongs to another
 * agent or is not exposed, so a key holder learns nothing about documents it cannot reach.
 */
function notExposed(agentId: string, documentId: string): NotFound {
  return new NotFound(
    'Document',
    documentId,
    `, or not exposed to this agent: a member exposes an agent's document with the GraphQL mutation exposeDocument(agentId: "${agentId}", documentId: "${documentId}", read: true, write: true)`,
  );
}
