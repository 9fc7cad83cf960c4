import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { gqlOk, h } from './harness.js';

// A client for the Workspace API used by its tests. Every response it receives is checked against
// the served OpenAPI document: the schema of that path, GET and status (or the Error component for
// paths and methods the document does not describe), so no test can see an undocumented shape.
// Every failure body is also checked to be exactly {"error": string}.

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const DOC_ID = 'https://workspace-api.test/openapi.json';

export interface ApiResponse {
  status: number;
  body: any;
  headers: Headers;
  /** The document path template the response was validated against, or null for the Error component. */
  template: string | null;
}

let docCache: { doc: any; ajv: Ajv2020; templates: { template: string; re: RegExp }[] } | undefined;
const validators = new Map<string, ValidateFunction>();
/** `template status` pairs validated so far (the OpenAPI test checks its coverage). */
export const validated = new Set<string>();

async function loadDoc() {
  if (docCache) return docCache;
  const res = await fetch(`${h().url}/workspaceapi/openapi.json`);
  expect(res.status).to.equal(200);
  const doc = (await res.json()) as any;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, DOC_ID);
  const templates = Object.keys(doc.paths).map((template) => ({
    template,
    re: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+').replace(/\./g, '\\.')}$`),
  }));
  docCache = { doc, ajv, templates };
  return docCache;
}

/** The served OpenAPI document (fetched once). */
export async function openApiDocument(): Promise<any> {
  return (await loadDoc()).doc;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

function validatorFor(ajv: Ajv2020, ref: string): ValidateFunction {
  let v = validators.get(ref);
  if (!v) {
    v = ajv.compile({ $ref: `${DOC_ID}#/${ref}` });
    validators.set(ref, v);
  }
  return v;
}

/** Sends a request to the Workspace API and checks the answer against the OpenAPI document. */
export async function wsApi(
  pathAndQuery: string,
  opts: { key?: string; method?: string; authorization?: string } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  if (opts.authorization !== undefined) headers.authorization = opts.authorization;
  else if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  const res = await fetch(`${h().url}${pathAndQuery}`, { method: opts.method ?? 'GET', headers });
  const text = await res.text();
  const body = text ? JSON.parse(text) : undefined;
  const { doc, ajv, templates } = await loadDoc();

  const path = new URL(pathAndQuery, 'http://x').pathname;
  const method = (opts.method ?? 'GET').toLowerCase();
  const match = templates.find((t) => t.re.test(path));
  const operation = match && doc.paths[match.template][method];
  let ref: string;
  if (operation) {
    const response = operation.responses[String(res.status)];
    expect(response, `${method.toUpperCase()} ${match.template} ${res.status} is not documented`).to.not.equal(
      undefined,
    );
    ref = pointer(
      'paths',
      match.template,
      method,
      'responses',
      String(res.status),
      'content',
      'application/json',
      'schema',
    );
  } else {
    expect(res.status, `undocumented ${method.toUpperCase()} ${path} must be 404`).to.equal(404);
    ref = pointer('components', 'schemas', 'Error');
  }
  const validate = validatorFor(ajv, ref);
  expect(
    validate(body),
    `${method.toUpperCase()} ${pathAndQuery} ${res.status}: ${JSON.stringify(validate.errors)}`,
  ).to.equal(true);
  if (res.status >= 400) {
    expect(Object.keys(body)).to.deep.equal(['error']);
    expect(body.error).to.be.a('string').and.not.equal('');
  }
  expect(res.headers.get('content-type') ?? '').to.match(/^application\/json/);
  validated.add(`${operation ? match!.template : '(undocumented)'} ${res.status}`);
  return { status: res.status, body, headers: res.headers, template: operation ? match!.template : null };
}

/** Asserts a failure: status and, optionally, a pattern its message matches. */
export function expectError(r: ApiResponse, status: number, message?: RegExp): void {
  expect(r.status, JSON.stringify(r.body)).to.equal(status);
  expect(Object.keys(r.body)).to.deep.equal(['error']);
  expect(r.body.error).to.be.a('string');
  if (message) expect(r.body.error).to.match(message);
}

/** Creates a workspace key (wk_) and returns its plaintext and id. */
export async function workspaceKey(
  adminToken: string,
  scopes: string[] = ['WORKSPACE_READ'],
): Promise<{ key: string; id: string }> {
  const d = await gqlOk(
    adminToken,
    'mutation($s: [KeyScope!]) { createWorkspaceApiKey(name: "ws api", scopes: $s) { key apiKey { id } } }',
    { s: scopes },
  );
  return { key: d.createWorkspaceApiKey.key, id: d.createWorkspaceApiKey.apiKey.id };
}

/** Records a message through the GraphQL mutation channel connectors use. */
export async function recordMessage(
  adminToken: string,
  agentId: string,
  m: {
    direction: 'inbound' | 'outbound';
    channel: 'email' | 'sms';
    sentAt: Date;
    subject?: string | null;
    body?: string;
  },
): Promise<string> {
  const d = await gqlOk(
    adminToken,
    'mutation($a: ID!, $i: RecordMessageInput!) { recordMessage(agentId: $a, input: $i) { id } }',
    {
      a: agentId,
      i: {
        direction: m.direction.toUpperCase(),
        channel: m.channel.toUpperCase(),
        from: m.direction === 'inbound' ? 'customer@example.com' : 'agent@example.com',
        to: m.direction === 'inbound' ? 'agent@example.com' : 'customer@example.com',
        subject: m.subject === undefined ? 'Hello' : m.subject,
        body: m.body ?? 'Body text',
        sentAt: m.sentAt.toISOString(),
      },
    },
  );
  return d.recordMessage.id;
}
