import type { Agent } from '../core/agent.entities.js';
import type { Document } from '../documents/document.entities.js';
import type { RecordService } from '../documents/record.service.js';
import { tracedDocumentOp } from '../documents/document-span.js';
import { NotFound } from '../errors.js';
import { canNameEntity } from '../ids.js';
import type { Store } from '../ports.js';
import type { SurfaceRuns } from './surface-runs.ports.js';
import type { SurfaceCaller } from './surface-access.js';

/** Records in one page of a database document read as a resource. */
export const RESOURCE_PAGE = 100;
/** The URI template of a database document's record pages (RFC 6570). */
export const RECORDS_TEMPLATE = 'document://{documentId}/records{?cursor}';

const TEXT_URI = /^document:\/\/([^/?#]+)$/;
const RECORDS_URI = /^document:\/\/([^/?#]+)\/records(?:\?cursor=([^&#]*))?$/;

/** A document as `resources/list` shows it. */
export interface McpResource {
  uri: string;
  name: string;
  description?: string;
  mimeType: 'text/plain' | 'application/json';
}

/** What `resources/read` answers: one text content of the resource. */
export interface McpResourceContents {
  uri: string;
  mimeType: McpResource['mimeType'];
  text: string;
}

/** The URI of a document: its text, or (databases) the first page of its records. */
export function resourceUri(doc: Pick<Document, 'id' | 'kind'>): string {
  return doc.kind === 'TEXT' ? `document://${doc.id}` : `document://${doc.id}/records`;
}

/** The URI of the page of records after `cursor`. */
function pageUri(documentId: string, cursor: string): string {
  return `document://${documentId}/records?cursor=${encodeURIComponent(cursor)}`;
}

/** What a URI names: a text document, or a page of a database document's records; null for any other URI. */
function parseUri(uri: string): { documentId: string; records: boolean; cursor?: string } | null {
  const text = TEXT_URI.exec(uri);
  if (text) return { documentId: decode(text[1]!), records: false };
  const records = RECORDS_URI.exec(uri);
  if (!records) return null;
  return { documentId: decode(records[1]!), records: true, ...(records[2] ? { cursor: decode(records[2]) } : {}) };
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return '\u0000'; // names nothing
  }
}

/** The refusal of a URI that names no resource of this agent: unknown, unexposed or of another form. */
export class ResourceNotFound extends NotFound {
  constructor(readonly uri: string) {
    super('Resource', uri, ": list the agent's resources with resources/list");
  }
}

/**
 * The MCP server's resources (docs/decisions.md §28): the agent's documents whose exposure has the
 * MCP read permission. A TEXT document is `document://{id}` (its content as text/plain); a DATABASE
 * document is `document://{id}/records`, a page of its records as JSON whose `next` is the URI of
 * the following page (the template `RECORDS_TEMPLATE`). Anything else — an unknown, unexposed or
 * other agent's document, a URI of the wrong form for its kind — is ResourceNotFound, the same for
 * all, so a client learns nothing about documents it cannot read. Reading is admitted like a
 * Document API read (credit limit, concurrency slot).
 */
export class McpResourceService {
  constructor(
    private readonly store: Store,
    private readonly records: RecordService,
    private readonly calls: SurfaceRuns,
  ) {}

  /** The agent's documents exposed on its MCP server, by name. */
  async list(agent: Agent): Promise<McpResource[]> {
    const exposures = await this.store.repos.exposures.listByAgents([agent.id]);
    const readable = new Set(exposures.filter((e) => e.mcp).map((e) => e.documentId));
    if (readable.size === 0) return [];
    const documents = (await this.store.repos.documents.listByAgents([agent.id])).filter((d) => readable.has(d.id));
    documents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1));
    return documents.map((d) => ({
      uri: resourceUri(d),
      name: d.name,
      ...(d.description ? { description: d.description } : {}),
      mimeType: d.kind === 'TEXT' ? 'text/plain' : 'application/json',
    }));
  }

  /**
   * Reads the resource `uri` names, as `caller` (its activity entry names the URI). Throws
   * ResourceNotFound, Invalid (a cursor that is not a previous page's), LimitExceeded.
   */
  async read(caller: SurfaceCaller, uri: string): Promise<McpResourceContents> {
    caller.facts.entry = uri.slice(0, 500);
    try {
      return await this.readDocument(caller, uri);
    } catch (err) {
      // Unexposed after it was found too: the same answer as if it never was.
      throw err instanceof NotFound ? new ResourceNotFound(uri) : err;
    }
  }

  private async readDocument({ agent, principal, facts }: SurfaceCaller, uri: string): Promise<McpResourceContents> {
    const target = parseUri(uri);
    if (!target || !canNameEntity(target.documentId)) throw new ResourceNotFound(uri);
    const doc = await this.records.readable(principal, agent.id, target.documentId, 'mcp');
    if (target.records !== (doc.kind === 'DATABASE')) throw new ResourceNotFound(uri);
    if (doc.kind === 'TEXT')
      return tracedDocumentOp('get', doc, facts.span?.span(), (span) =>
        this.calls.guard(agent, '', async () => ({ uri, mimeType: 'text/plain' as const, text: doc.content }), span),
      );
    const op = await this.records.prepareQuery(principal, agent.id, doc.id, 'mcp', {
      limit: RESOURCE_PAGE,
      cursor: target.cursor,
    });
    let results = 0;
    return tracedDocumentOp(
      'query',
      doc,
      facts.span?.span(),
      (span) =>
        this.calls.guard(
          agent,
          '',
          async () => {
            const page = await op.run();
            results = page.records.length;
            const body = {
              documentId: doc.id,
              name: doc.name,
              fields: doc.fields,
              totalCount: page.totalCount,
              records: page.records,
              next: page.nextCursor === null ? null : pageUri(doc.id, page.nextCursor),
            };
            return { uri, mimeType: 'application/json' as const, text: JSON.stringify(body) };
          },
          span,
        ),
      () => ({ results }),
    );
  }
}
