import { Invalid, MethodNotAllowed, NotFound } from '../errors.js';
import { describeViolation, schemaViolation, SchemaRefused } from '../json-schema.js';
import type { Agent } from '../core/agent.entities.js';
import type { HttpEndpoint } from '../entries/entry.entities.js';
import type { Store } from '../ports.js';
import type { Json } from '../json.js';
import type { AdmittedRun } from '../runtime/pipeline.js';
import type { SurfaceRuns } from './surface-runs.ports.js';
import type { RunEntry, RunInput } from '../runtime/run.types.js';
import type { CallFacts, SurfaceCaller, SurfaceRequest } from './surface-access.js';

/** An HTTP API request as the surface reads it. */
export interface HttpApiRequest extends Omit<SurfaceRequest, 'signal'> {
  /** Makes the signal that fires when the client goes away; called only for an admitted run. */
  signal: () => AbortSignal;
  method: string;
  /** The endpoint path's segments, URL-decoded. */
  segments: string[];
  query: Record<string, string | string[]>;
  /** Reads the JSON body (undefined when none was sent); called once the endpoint is known. */
  body(): Promise<Json | undefined>;
}

export interface EndpointMatch {
  endpoint: HttpEndpoint;
  params: Record<string, string>;
}

const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
/** Dot segments name no endpoint: a handler that builds a path or key from a parameter never gets one. */
const DOT_SEGMENT = /^\.{1,2}$/;

/**
 * Matches request segments against an endpoint path; literal segments must be equal, `{name}`
 * captures one that is not `.` or `..` (literal ones cannot be either: entry.schemas refuses them).
 */
function match(pattern: string, segments: string[]): Record<string, string> | null {
  const parts = pattern.split('/');
  if (parts.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const p = PARAM.exec(parts[i]!);
    if (p) {
      if (DOT_SEGMENT.test(segments[i]!)) return null;
      params[p[1]!] = segments[i]!;
    } else if (parts[i] !== segments[i]) return null;
  }
  return params;
}

/** Orders candidates so that a literal segment beats a parameter at the first place they differ. */
function specificity(pattern: string): string {
  return pattern
    .split('/')
    .map((s) => (PARAM.test(s) ? '1' : '0'))
    .join('');
}

/** Resolves HTTP API requests to the agent's endpoints and admits their runs. */
export class HttpApiService {
  constructor(
    private readonly store: Store,
    private readonly calls: SurfaceRuns,
  ) {}

  /**
   * A call of the agent's HTTP API, in the documented order: endpoint (NotFound, MethodNotAllowed)
   * → body (as `request.body` refuses it) → input schema (Invalid) → the pipeline's checks and
   * admission (Invalid, LimitExceeded). Returns the admitted run, to be run or streamed.
   */
  async call(caller: SurfaceCaller, request: HttpApiRequest): Promise<AdmittedRun> {
    const { agent, principal, facts } = caller;
    const { endpoint, params } = await this.resolve(agent, request.method, request.segments, facts);
    facts.entry = endpoint.path;
    const sent = await request.body();
    facts.requestBody = sent;
    const body = sent ?? null;
    this.checkBody(endpoint, request.method, body);
    const input: RunInput = {
      surface: 'HTTP_API',
      method: request.method,
      path: request.segments.join('/'),
      params,
      query: request.query,
      headers: request.headers,
      body,
    };
    const entry: RunEntry = {
      kind: 'http',
      id: endpoint.id,
      name: endpoint.path,
      handler: endpoint.handler,
      modelOverride: endpoint.modelOverride,
    };
    facts.run = await this.calls.admit(principal, agent, entry, input, {
      signal: request.signal,
      parent: facts.span?.span(),
    });
    return facts.run;
  }

  /** The agent's endpoints, for its OpenAPI document. */
  endpoints(agent: Agent): Promise<HttpEndpoint[]> {
    return this.store.repos.httpEndpoints.listByAgents([agent.id]);
  }

  /**
   * The endpoint for `method` and the path segments (already URL-decoded). NotFound when no endpoint
   * has the path; MethodNotAllowed (with the allowed methods) when it exists for other methods — the
   * call's `facts` then name the endpoint all the same (its activity entry has one to name).
   */
  async resolve(agent: Agent, method: string, segments: string[], facts?: CallFacts): Promise<EndpointMatch> {
    const endpoints = await this.store.repos.httpEndpoints.listByAgents([agent.id]);
    const candidates = endpoints
      .map((endpoint) => ({ endpoint, params: match(endpoint.path, segments) }))
      .filter((c): c is EndpointMatch => c.params !== null)
      .sort((a, b) => specificity(a.endpoint.path).localeCompare(specificity(b.endpoint.path)));
    if (candidates.length === 0) throw new NotFound('Endpoint', segments.join('/'));
    const verb = method === 'HEAD' ? 'GET' : method;
    const hit = candidates.find((c) => (c.endpoint.methods as string[]).includes(verb));
    if (hit) return hit;
    if (facts) facts.entry = candidates[0]!.endpoint.path;
    throw new MethodNotAllowed([...new Set(candidates.flatMap((c) => c.endpoint.methods))]);
  }

  /**
   * Checks a request body (null when none was sent) against the endpoint's declared input schema:
   * Invalid naming the first bad field. GET and HEAD carry no body, so nothing is checked for them.
   * A stored schema that is no longer usable is Invalid too (the member must fix the endpoint).
   */
  checkBody(endpoint: HttpEndpoint, method: string, body: unknown): void {
    if (!endpoint.inputSchema || method === 'GET' || method === 'HEAD') return;
    let violation;
    try {
      violation = schemaViolation(endpoint.inputSchema, body);
    } catch (err) {
      if (err instanceof SchemaRefused)
        throw new Invalid(
          `The input schema of endpoint '${endpoint.path}' cannot be used (${err.message}); fix it with updateHttpEndpoint`,
        );
      throw err;
    }
    if (violation)
      throw new Invalid(
        `Invalid request body for endpoint '${endpoint.path}': ${describeViolation(violation)}`,
        violation.field.replace(/^\//, '') || undefined,
      );
  }
}
