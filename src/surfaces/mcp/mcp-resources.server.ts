import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type ReadResourceResult,
  type Server,
} from '@modelcontextprotocol/server';
import { DomainError, Invalid, LimitExceeded, Unavailable } from '../../domain/errors.js';
import type { Services } from '../../domain/services.js';
import { RECORDS_TEMPLATE, ResourceNotFound } from '../../domain/surfaces/mcp-resources.js';
import type { SurfaceCaller } from '../../domain/surfaces/surface-access.js';

/** What the resource handlers need of the HTTP exchange (`ResourceExchange`). */
interface ResourceExchange {
  caller: SurfaceCaller;
  /** An unexpected failure, for the error log. */
  failure?: unknown;
}

/** The JSON-RPC code of a limit met while reading (implementation-defined server error, as the A2A server answers it). */
const LIMIT_CODE = -32000;

/**
 * A failure of `resources/read` as the protocol answers it: an unknown, unexposed or malformed URI
 * is the SDK's resource-not-found error (`-32602` with `data.uri`, both eras; docs/decisions.md
 * §28); a bad cursor is invalid params; a limit says when to try again; anything unexpected is an
 * internal error without its message.
 */
function readFailure(err: unknown, exchange: ResourceExchange): never {
  if (err instanceof ResourceNotFound) throw new ResourceNotFoundError(err.uri);
  if (err instanceof Invalid)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, err.message, err.field ? { field: err.field } : undefined);
  if (err instanceof LimitExceeded || err instanceof Unavailable) {
    throw new ProtocolError(LIMIT_CODE, `${err.message} Try again in ${err.retryAfterSeconds} s.`, {
      retryAfterSeconds: err.retryAfterSeconds,
    });
  }
  if (err instanceof DomainError) throw new ProtocolError(LIMIT_CODE, err.message);
  exchange.failure = err;
  throw new ProtocolError(ProtocolErrorCode.InternalError, 'Internal server error');
}

/**
 * The agent's documents as MCP resources (the server announces `resources: {}`, without
 * `listChanged`): `resources/list`, the record-page template, and `resources/read`.
 */
export function serveResources(server: Server, services: Services, exchange: ResourceExchange): void {
  const { agent } = exchange.caller;
  server.setRequestHandler('resources/list', async () => ({ resources: await services.mcpResources.list(agent) }));
  server.setRequestHandler('resources/templates/list', () => ({
    resourceTemplates: [
      {
        uriTemplate: RECORDS_TEMPLATE,
        name: 'Database records',
        description:
          "A page of a database document's records as JSON; `next` in a page is the URI of the following one",
        mimeType: 'application/json',
      },
    ],
  }));
  server.setRequestHandler('resources/read', async (request): Promise<ReadResourceResult> => {
    try {
      return { contents: [await services.mcpResources.read(exchange.caller, request.params.uri)] };
    } catch (err) {
      readFailure(err, exchange);
    }
  });
}
