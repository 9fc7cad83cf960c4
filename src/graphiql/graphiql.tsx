// GraphiQL for `GET /graphql` in a browser, bundled by src/infra/graphiql/bundle.ts and served
// from /graphql/assets/ (no CDN). It reads the schema from the public SDL at
// /graphql/schema.graphql, so the documentation and autocompletion work before a token is set
// (introspection needs one); operations go to /graphql with the headers the user types.
import { GraphiQL } from 'graphiql';
// Not 'graphiql/style.css': that is the CDN build's, with Monaco's styles and fonts inlined as
// data: URLs; Monaco's own CSS comes in with its modules and its icon font is a file of /graphql/assets/.
import '@graphiql/react/style.css';
import '@graphiql/plugin-doc-explorer/style.css';
import '@graphiql/plugin-history/style.css';
import 'graphiql/graphiql.css';
import { buildSchema, type GraphQLSchema } from 'graphql';
import { createRoot } from 'react-dom/client';
import './page.css';

const ASSETS = '/graphql/assets/';

// Monaco runs its language services in workers: scripts of this origin (CSP `worker-src 'self'`).
(globalThis as { MonacoEnvironment?: unknown }).MonacoEnvironment = {
  getWorker(_workerId: string, label: string): Worker {
    const name = label === 'json' ? 'json' : label === 'graphql' ? 'graphql' : 'editor';
    return new Worker(`${ASSETS}${name}.worker.js`, { name: `${name} worker` });
  },
};

type FetcherParams = { query: string; operationName?: string | null; variables?: unknown };
type FetcherOpts = { headers?: Record<string, unknown> };

/** Posts the operation as JSON to this origin; the console's session cookie goes along. */
async function fetcher(params: FetcherParams, opts?: FetcherOpts): Promise<unknown> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  for (const [name, value] of Object.entries(opts?.headers ?? {})) {
    // The template's empty "Bearer " sends nothing, so a console session cookie still applies.
    if (value === undefined || value === null || /^bearer\s*$/i.test(String(value).trim())) continue;
    headers[name] = String(value);
  }
  const res = await fetch('/graphql', {
    method: 'POST',
    credentials: 'same-origin',
    headers,
    body: JSON.stringify(params),
  });
  const text = await res.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return { errors: [{ message: `HTTP ${res.status}: ${text.slice(0, 500)}` }] };
  }
}

const DEFAULT_QUERY = `# Agent Exposure Service: GraphQL
#
# Put a member token (ADMIN_TOKEN, or one from createMemberToken) in the
# Headers tab below:  { "Authorization": "Bearer <token>" }
# Signed in to the console? Its session cookie is sent as well.
# The Docs panel (the book, top left) lists every query and mutation;
# Ctrl+Space completes, Ctrl+Enter runs.

{
  viewer { role }
  agents { id name }
}
`;

const DEFAULT_HEADERS = `{
  "Authorization": "Bearer "
}`;

async function loadSchema(): Promise<GraphQLSchema | null> {
  try {
    const res = await fetch('/graphql/schema.graphql', { credentials: 'same-origin' });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return buildSchema(await res.text());
  } catch (err) {
    console.warn(
      'The schema could not be loaded from /graphql/schema.graphql; documentation and completion are off.',
      err,
    );
    return null;
  }
}

const container = document.getElementById('graphiql')!;
void loadSchema().then((schema) => {
  createRoot(container).render(
    <GraphiQL
      fetcher={fetcher as never}
      schema={schema}
      defaultQuery={DEFAULT_QUERY}
      defaultHeaders={DEFAULT_HEADERS}
      defaultEditorToolsVisibility="headers"
      shouldPersistHeaders={false}
    />,
  );
});
