import { MethodNotAllowed, NotFound } from '../errors.js';
import type { Agent, HttpEndpoint } from '../entities.js';
import type { Store } from '../ports.js';

export interface EndpointMatch {
  endpoint: HttpEndpoint;
  params: Record<string, string>;
}

const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** Matches request segments against an endpoint path; literal segments must be equal, `{name}` captures one. */
function match(pattern: string, segments: string[]): Record<string, string> | null {
  const parts = pattern.split('/');
  if (parts.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const p = PARAM.exec(parts[i]!);
    if (p) params[p[1]!] = segments[i]!;
    else if (parts[i] !== segments[i]) return null;
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

/** Resolves HTTP API requests to the agent's endpoints. */
export class HttpApiService {
  constructor(private readonly store: Store) {}

  /**
   * The endpoint for `method` and the path segments (already URL-decoded). NotFound when no endpoint
   * has the path; MethodNotAllowed (with the allowed methods) when it exists for other methods.
   */
  async resolve(agent: Agent, method: string, segments: string[]): Promise<EndpointMatch> {
    const endpoints = await this.store.repos.httpEndpoints.listByAgents([agent.id]);
    const candidates = endpoints
      .map((endpoint) => ({ endpoint, params: match(endpoint.path, segments) }))
      .filter((c): c is EndpointMatch => c.params !== null)
      .sort((a, b) => specificity(a.endpoint.path).localeCompare(specificity(b.endpoint.path)));
    if (candidates.length === 0) throw new NotFound('Endpoint', segments.join('/'));
    const verb = method === 'HEAD' ? 'GET' : method;
    const hit = candidates.find((c) => (c.endpoint.methods as string[]).includes(verb));
    if (hit) return hit;
    throw new MethodNotAllowed([...new Set(candidates.flatMap((c) => c.endpoint.methods))]);
  }
}
