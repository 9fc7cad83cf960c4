import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type ReadResourceResult,
  type Server,
} from '@modelcontextprotocol/server';
import { refusalOf } from '../../domain/error-catalogue.js';
import { DomainError } from '../../domain/errors.js';
import type { Services } from '../../domain/services.js';
import { RECORDS_TEMPLATE, ResourceNotFound } from '../../domain/surfaces/mcp-resources.js';
import type { SurfaceCaller } from '../../domain/surfaces/surface-access.js';
import { encodeMcpResourceError } from './mcp.errors.js';

/** What the resource handlers need of the HTTP exchange (`ResourceExchange`). */
interface ResourceExchange {
  caller: SurfaceCaller;
  /** An unexpected failure, for the error log. */
  failure?: unknown;
}

/**
 * A failure of `resources/read` as the protocol answers it: an unknown, unexposed or malformed URI
 * is the SDK's resource-not-found error (`-32602` with `data.uri`, both eras; docs/decisions.md
 * §28); another refusal as `encodeMcpResourceError` says; anything unexpected is an internal error
 * without its message.
 */
function readFailure(err: unknown, exchange: ResourceExchange): never {
  if (err instanceof ResourceNotFound) throw new ResourceNotFoundError(err.uri);
  if (err instanceof DomainError) {
    const failure = encodeMcpResourceError(refusalOf(err));
    throw new ProtocolError(failure.code, failure.message, failure.data);
  }
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
