/**
 * The line a start ends with: the address clients use, which is BASE_URL, not the address the
 * server is bound to. The two differ by default (BASE_URL `http://localhost:PORT`, HOST
 * `127.0.0.1`), and OAuth clients check that the resource the service advertises (made from
 * BASE_URL) is the URL they connected to: printing the bound address invited them to connect by
 * `127.0.0.1` and be refused (docs/decisions.md, "Interop with strict clients"). With PORT 0 the
 * base URL has no usable port, so the bound address is the one to use (tests read it from here).
 */
export function listeningLine(baseUrl: string, boundUrl: string): string {
  const bound = new URL(boundUrl);
  const url = new URL(baseUrl).port === '0' ? boundUrl : baseUrl.replace(/\/+$/, '');
  const where = url === boundUrl ? '' : `; bound to ${bound.host}`;
  return `Agent Exposure Service listening on ${url} (GraphQL at ${url}/graphql, console at ${url}/console${where})`;
}
