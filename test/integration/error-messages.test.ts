import { expect } from 'chai';
import { createAgent, errorCode, gql, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import {
  addHttpEndpoint,
  call,
  createAgentKey,
  createDocument,
  documentPath,
  exposeDocument,
  httpApiPath,
  type Reply,
} from '../helpers/surface-calls.js';
import { expectError, workspaceKey, wsApi } from '../helpers/workspace-api.js';

// Each refusal a new user met in the first hour names the problem and the fix, in the body shape
// and with the status of DESIGN §6–7 (`{"error"}` on the agent surfaces and the Workspace API,
// GraphQL errors with extensions.code), and in the unchanged order of checks.

/** A refusal on an agent surface: the status, exactly `{"error"}`, and the message. */
function refused(r: Reply, status: number, message: RegExp): void {
  expect(r.status, r.text).to.equal(status);
  expect(Object.keys(r.json ?? {}), r.text).to.deep.equal(['error']);
  expect(r.json.error).to.match(message);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('errors that name the problem and the fix', () => {
  let ws: TestWorkspace;
  let agentId: string;
  let agentKey: string;

  before(async () => {
    ws = await newWorkspace();
    agentId = await createAgent(ws.adminToken, { name: 'Orders' });
    agentKey = await createAgentKey(ws.adminToken, agentId);
    await addHttpEndpoint(ws.adminToken, agentId, { path: 'orders', handler: { script: 'return input;' } });
  });

  it('a surface that is off: 403 naming setSurface(agentId, surface, enabled: true)', async () => {
    const off = await createAgent(ws.adminToken, { name: 'Off' });
    const key = await createAgentKey(ws.adminToken, off);
    await gqlOk(
      ws.adminToken,
      'mutation($a: ID!) { setSurface(agentId: $a, surface: HTTP_API, enabled: false) { id } }',
      { a: off },
    );
    refused(
      await call('POST', httpApiPath(off, 'orders'), { key, json: {} }),
      403,
      new RegExp(
        `^The HTTP API is turned off for this agent: .*${escape(`setSurface(agentId: "${off}", surface: HTTP_API, enabled: true)`)}$`,
      ),
    );
    await gqlOk(
      ws.adminToken,
      'mutation($a: ID!) { setSurface(agentId: $a, surface: DOCUMENT_API, enabled: false) { id } }',
      { a: off },
    );
    refused(
      await call('GET', documentPath(off, 'doc_x'), { key }),
      403,
      /^The Document API is turned off .*surface: DOCUMENT_API, enabled: true\)$/,
    );
  });

  it('a workspace key without WORKSPACE_READ: 403 saying how to create one that has it', async () => {
    const { key } = await workspaceKey(ws.adminToken, []);
    for (const path of ['/workspaceapi/overview', `/workspaceapi/agents/${agentId}/messages`]) {
      expectError(
        await wsApi(path, { key }),
        403,
        /^This workspace key lacks the WORKSPACE_READ scope: .*createWorkspaceApiKey\(name: "…", scopes: \[WORKSPACE_READ\]\)$/,
      );
    }
  });

  it('a member token (mt_) on an agent surface or the Workspace API: 401 saying it is for /graphql', async () => {
    for (const opts of [{ key: ws.adminToken }, { bearer: ws.adminToken }]) {
      refused(
        await call('POST', httpApiPath(agentId, 'orders'), { ...opts, json: {} }),
        401,
        /^This is a member token \(mt_\): it is for the GraphQL API \(POST \/graphql\)\. .*agent key \(ak_\).*createAgentApiKey/,
      );
    }
    expectError(
      await wsApi('/workspaceapi/overview', { key: ws.adminToken }),
      401,
      /^This is a member token \(mt_\): it is for the GraphQL API \(POST \/graphql\)\. The Workspace API takes a workspace key \(wk_\).*createWorkspaceApiKey/,
    );
    // The agent is looked up first: an unknown agent is a 404 whatever is sent.
    refused(
      await call('POST', httpApiPath('agt_nosuchagent', 'orders'), { key: ws.adminToken, json: {} }),
      404,
      /^Agent 'agt_nosuchagent' not found$/,
    );
  });

  it('an agent key (ak_) or workspace key (wk_) on /graphql: 401 UNAUTHENTICATED saying where it works and that /graphql takes mt_', async () => {
    const ak = await gql(agentKey, '{ viewer { id } }');
    expect(ak.status).to.equal(401);
    expect(errorCode(ak)).to.equal('UNAUTHENTICATED');
    expect(ak.errors![0]!.message).to.match(
      /^This is an agent key \(ak_\): it is for its agent's surfaces .*\/graphql takes a member token \(mt_…\): send Authorization: Bearer <member token>$/,
    );
    const wk = await gql((await workspaceKey(ws.adminToken)).key, '{ viewer { id } }');
    expect(wk.status).to.equal(401);
    expect(errorCode(wk)).to.equal('UNAUTHENTICATED');
    expect(wk.errors![0]!.message).to.match(
      /^This is a workspace key \(wk_\): it is for the Workspace API \(\/workspaceapi\/…\).*\/graphql takes a member token \(mt_…\)/,
    );
    // Anything else is still the general refusal.
    expect((await gql('mt_notarealtokenatallnotarealtoken', '{ viewer { id } }')).errors![0]!.message).to.match(
      /^Missing or invalid token: send Authorization: Bearer <member token>\. Lost the admin token.*restart the service with ADMIN_TOKEN/i,
    );
  });

  it('Authorization: <key> without "Bearer ": 401 saying to add it, on the agent surfaces, the Workspace API and /graphql', async () => {
    refused(
      await call('POST', httpApiPath(agentId, 'orders'), { headers: { authorization: agentKey }, json: {} }),
      401,
      /^The Authorization header has no "Bearer " before its value: send Authorization: Bearer <key> \(or send the key alone in the X-Agent-Access-Key header\)$/,
    );
    const { key } = await workspaceKey(ws.adminToken);
    expectError(
      await wsApi('/workspaceapi/overview', { authorization: key }),
      401,
      /^The Authorization header has no "Bearer " before its value: send Authorization: Bearer <workspace key>$/,
    );
    const res = await fetch(`${h().url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: ws.adminToken },
      body: JSON.stringify({ query: '{ viewer { id } }' }),
    });
    expect(res.status).to.equal(401);
    const body = (await res.json()) as any;
    expect(body.errors[0].extensions.code).to.equal('UNAUTHENTICATED');
    expect(body.errors[0].message).to.equal(
      'The Authorization header has no "Bearer " before its value: send Authorization: Bearer <member token>',
    );
    // The bare value is never taken as a credential, and another scheme is still "no key".
    refused(
      await call('POST', httpApiPath(agentId, 'orders'), { headers: { authorization: `Basic ${agentKey}` }, json: {} }),
      401,
      /^No API key sent/,
    );
  });

  it("an unknown GraphQL enum value: graphql-js's message plus the valid values", async () => {
    const literal = await gql(
      ws.adminToken,
      'mutation { createWorkspaceApiKey(name: "x", scopes: [READ_EVERYTHING]) { key } }',
    );
    expect(literal.status).to.equal(400);
    expect(errorCode(literal)).to.equal('GRAPHQL_VALIDATION_FAILED');
    expect(literal.errors![0]!.message).to.equal(
      'Value "READ_EVERYTHING" does not exist in "KeyScope" enum. Valid values of KeyScope: WORKSPACE_READ.',
    );
    const variable = await gql(
      ws.adminToken,
      'mutation($a: ID!, $s: Surface!) { setSurface(agentId: $a, surface: $s, enabled: true) { id } }',
      { a: agentId, s: 'HTTP' },
    );
    expect(errorCode(variable)).to.equal('BAD_USER_INPUT');
    expect(variable.errors![0]!.message).to.match(
      /Value "HTTP" does not exist in "Surface" enum\. .*Valid values of Surface: HTTP_API, DOCUMENT_API, MCP, WIDGET, WEBHOOKS, OPENAI, A2A, EMAIL, SMS, SCHEDULE\.$/,
    );
    // A quoted value (a string, not an enum value) too.
    const quoted = await gql(
      ws.adminToken,
      `mutation { setSurface(agentId: "${agentId}", surface: "HTTP_API", enabled: true) { id } }`,
    );
    expect(quoted.errors![0]!.message).to.match(
      /^Enum "Surface" cannot represent non-enum value: "HTTP_API"\..*Valid values of Surface: HTTP_API, DOCUMENT_API, MCP, WIDGET, WEBHOOKS, OPENAI, A2A, EMAIL, SMS, SCHEDULE\.$/,
    );
  });

  it("an unknown GraphQL input field: graphql-js's close names, or the type's fields when none is close", async () => {
    const close = await gql(ws.adminToken, 'mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
      i: { name: 'x', descripton: 'y' },
    });
    expect(close.errors![0]!.message).to.match(
      /Field "descripton" is not defined by type "CreateAgentInput"\. Did you mean "description"\?$/,
    );
    const far = await gql(ws.adminToken, 'mutation { createAgent(input: {name: "x", colour: "red"}) { id } }');
    expect(errorCode(far)).to.equal('GRAPHQL_VALIDATION_FAILED');
    expect(far.errors![0]!.message).to.equal(
      'Field "colour" is not defined by type "CreateAgentInput". Fields of CreateAgentInput: name, slug, description, instructions, defaultModel, visibility, teamId, allowWorkspaceKeys.',
    );
  });

  it('a path that forgot /api: 404 suggesting /agents/{id}/api/…, without looking the agent up', async () => {
    for (const agent of [agentId, 'agt_nosuchagent']) {
      refused(
        await call('POST', `/agents/${agent}/orders`, { key: agentKey, json: {} }),
        404,
        new RegExp(`^No route for POST /agents/${agent}/orders: .*did you mean POST /agents/${agent}/api/orders\\?$`),
      );
    }
    refused(
      await call('GET', `/agents/${agentId}/orders/42`, {}),
      404,
      new RegExp(`did you mean GET /agents/${agentId}/api/orders/42\\?$`),
    );
    // The suggested path is the one that answers.
    expect((await call('POST', httpApiPath(agentId, 'orders'), { key: agentKey, json: {} })).status).to.equal(200);
    // Elsewhere the 404 stays as it was.
    refused(await call('GET', '/nowhere'), 404, /^No route for GET \/nowhere$/);
  });

  describe('the Document API', () => {
    let agent: string;
    let key: string;
    let db: string;
    before(async () => {
      agent = await createAgent(ws.adminToken, { name: 'Docs' });
      key = await createAgentKey(ws.adminToken, agent);
      await gqlOk(
        ws.adminToken,
        'mutation($a: ID!) { setSurface(agentId: $a, surface: DOCUMENT_API, enabled: true) { id } }',
        { a: agent },
      );
      db = await createDocument(ws.adminToken, agent, {
        name: 'Orders',
        kind: 'DATABASE',
        fields: [{ name: 'sku', type: 'STRING', required: true }],
      });
    });

    it('a document that exists but is not exposed: 404 "not found, or not exposed to this agent: exposeDocument(…)", the same as one that does not exist', async () => {
      const hidden = await call('GET', documentPath(agent, db), { key });
      refused(
        hidden,
        404,
        new RegExp(
          `^Document '${db}' not found, or not exposed to this agent: .*${escape(`exposeDocument(agentId: "${agent}", documentId: "${db}", read: true, write: true)`)}$`,
        ),
      );
      const missing = await call('GET', documentPath(agent, 'doc_nosuchdocument'), { key });
      expect(missing.status).to.equal(404);
      expect(missing.json.error.replaceAll('doc_nosuchdocument', db)).to.equal(hidden.json.error);
    });

    it('an insert body that is an array or names its records `records`: 400 saying `items`; an unknown field: 400 naming it and the valid ones', async () => {
      await exposeDocument(ws.adminToken, agent, db);
      refused(
        await call('POST', documentPath(agent, db, 'insert'), { key, json: [{ sku: 'a' }] }),
        400,
        /^The body is a JSON array; send one JSON object: \{"items": \[\{…\}, …\]\}$/,
      );
      refused(
        await call('POST', documentPath(agent, db, 'insert'), { key, json: { records: [{ sku: 'a' }] } }),
        400,
        /^Unknown field 'records': the records to insert go in "items": \{"items": \[\{…\}, …\]\}$/,
      );
      refused(
        await call('POST', documentPath(agent, db, 'query'), { key, json: { filter: {}, pageSize: 5 } }),
        400,
        /^Unknown field 'pageSize'; the fields are filter, sort, limit, offset, cursor$/,
      );
      refused(
        await call('POST', documentPath(agent, db, 'update'), { key, json: [] }),
        400,
        /^The body is a JSON array; send one JSON object: \{"filter": \{…\}, "set": \{…\}\}$/,
      );
      // Nothing was inserted by any of them; the right body works.
      const ok = await call('POST', documentPath(agent, db, 'insert'), { key, json: { items: [{ sku: 'a' }] } });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.json.inserted).to.equal(1);
    });
  });
});
