import { expect } from 'chai';
import { Validator } from '@seriousme/openapi-schema-validator';
import {
  activityQuery,
  messagesQuery,
  usageQuery,
  agentsQuery,
} from '../../src/domain/workspace-api/workspace-api.query.js';
import { SURFACES } from '../../src/domain/core/surface.entities.js';
import { createAgent, gqlOk, h, newWorkspace } from '../helpers/harness.js';
import { operationIds } from '../helpers/openapi.js';
import { openApiDocument, validated, workspaceKey, wsApi } from '../helpers/workspace-api.js';

// The served OpenAPI document is a valid 3.1 description generated from the validating schemas,
// and every answer (success and failure) matches the schema it documents for that path and status
// (wsApi checks each one with ajv; this file makes sure every documented pair is exercised).

describe('Workspace API: OpenAPI description', () => {
  let doc: any;
  before(async () => {
    doc = await openApiDocument();
  });

  it('is served without a key (even with a wrong one) and validates as OpenAPI 3.1', async () => {
    for (const authorization of [undefined, 'Bearer wk_wrong']) {
      const r = await wsApi('/workspaceapi/openapi.json', { authorization });
      expect(r.status).to.equal(200);
      expect(r.body.openapi).to.match(/^3\.1\./);
    }
    const result = await new Validator().validate(doc);
    expect(result.errors ?? [], JSON.stringify(result.errors)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
  });

  it('carries version 1.0.0, both servers, and the bearer scheme on every endpoint but itself', () => {
    expect(doc.info.version).to.equal('1.0.0');
    expect(doc.servers).to.have.length(2);
    expect(doc.servers[0]).to.deep.include({ url: '{base_url}' });
    expect(doc.servers[0].variables.base_url.default).to.equal(h().config.baseUrl);
    expect(doc.servers[1].url).to.equal('{tenant_base_url}');
    expect(doc.servers[1].variables.tenant_base_url.default).to.be.a('string');
    expect(doc.components.securitySchemes.workspaceKey).to.include({ type: 'http', scheme: 'bearer' });
    expect(Object.keys(doc.paths)).to.have.members([
      '/workspaceapi/overview',
      '/workspaceapi/agents',
      '/workspaceapi/agents/{agentId}',
      '/workspaceapi/agents/{agentId}/messages',
      '/workspaceapi/agents/{agentId}/activity',
      '/workspaceapi/agents/{agentId}/usage',
      '/workspaceapi/agents/{agentId}/schedules',
      '/workspaceapi/openapi.json',
    ]);
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      expect(Object.keys(item), path).to.deep.equal(['get']);
      expect(item.get.security, path).to.deep.equal(path.endsWith('openapi.json') ? [] : [{ workspaceKey: [] }]);
      for (const [status, response] of Object.entries<any>(item.get.responses)) {
        if (status !== '200')
          expect(response.content['application/json'].schema, `${path} ${status}`).to.deep.equal({
            $ref: '#/components/schemas/Error',
          });
      }
    }
    expect(doc.components.schemas.Error).to.deep.include({
      type: 'object',
      required: ['error'],
      additionalProperties: false,
    });
  });

  it('names every operation with a unique camelCase operationId', () => {
    const ids = operationIds(doc);
    expect(ids).to.have.length(8);
    for (const id of ids) expect(id).to.match(/^[a-z][A-Za-z0-9]*$/);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(doc.paths['/workspaceapi/agents'].get.operationId).to.equal('listAgents');
    expect(doc.paths['/workspaceapi/agents/{agentId}/activity'].get.operationId).to.equal('listAgentActivity');
  });

  it('documents the query parameters of the very schemas that validate them', () => {
    const params = (path: string) =>
      Object.fromEntries(
        doc.paths[path].get.parameters.filter((p: any) => p.in === 'query').map((p: any) => [p.name, p]),
      );
    const cases: [string, { shape: object }][] = [
      ['/workspaceapi/agents', agentsQuery],
      ['/workspaceapi/agents/{agentId}/messages', messagesQuery],
      ['/workspaceapi/agents/{agentId}/activity', activityQuery],
      ['/workspaceapi/agents/{agentId}/usage', usageQuery],
    ];
    for (const [path, schema] of cases)
      expect(Object.keys(params(path)), path).to.deep.equal(Object.keys(schema.shape));
    const m = params('/workspaceapi/agents/{agentId}/messages');
    expect(m.pageSize.schema).to.include({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
    expect(m.page.schema).to.include({ type: 'integer', minimum: 1, default: 1 });
    expect(m.direction.schema.enum).to.deep.equal(['inbound', 'outbound']);
    expect(m.channel.schema.enum).to.deep.equal(['email', 'sms']);
    expect(m.since.schema.anyOf.map((s: any) => s.format)).to.deep.equal(['date', 'date-time']);
    expect(Object.values(m).every((p: any) => p.required === false)).to.equal(true);
    const a = params('/workspaceapi/agents/{agentId}/activity');
    expect(a.surface.schema.enum).to.deep.equal([...SURFACES]);
    expect(a.kind.schema.enum).to.deep.equal(['request', 'run']);
    expect(params('/workspaceapi/agents').includeOverview.schema.enum).to.deep.equal(['true', 'false']);
    expect(doc.paths['/workspaceapi/agents/{agentId}'].get.parameters).to.deep.equal([
      {
        schema: { type: 'string', description: 'Agent id.' },
        required: true,
        description: 'Agent id.',
        name: 'agentId',
        in: 'path',
      },
    ]);
  });

  it('says that an unknown parameter is a 400, and which overview groups this service only stores', () => {
    for (const item of Object.values<any>(doc.paths)) {
      if (item.get.responses['400'])
        expect(item.get.responses['400'].description).to.match(
          /invalid or unknown.*the parameters this endpoint takes/,
        );
    }
    const groups = doc.components.schemas.WorkspaceOverview.properties;
    for (const name of ['featureFlags', 'accountRules', 'dataProcessing', 'valueCapture', 'tags']) {
      expect(groups[name].description, name).to.match(/nothing in this service acts on it/);
    }
    for (const name of ['workspace', 'creditDefaults', 'loginSettings'])
      expect(groups[name].description, name).to.match(/^Enforced/);
    expect(doc.paths['/workspaceapi/overview'].get.description).to.match(
      /Enforced by this service:.*`loginSettings`.*`tags` are stored and returned as set.*nothing in this service acts on them/,
    );
  });

  it('matches every answer the API gives: each documented path and status, success and failure', async function () {
    this.timeout(30_000);
    const ws = await newWorkspace();
    const { key } = await workspaceKey(ws.adminToken);
    const { key: noScope } = await workspaceKey(ws.adminToken, []);
    const agent = await createAgent(ws.adminToken, { name: 'Open' });
    const hidden = await createAgent(ws.adminToken, { name: 'Hidden', visibility: 'PRIVATE' });
    await gqlOk(
      ws.adminToken,
      'mutation($a: ID!) { recordMessage(agentId: $a, input: {direction: INBOUND, channel: SMS, from: "+100", to: "+200", body: "hi"}) { id } }',
      { a: agent },
    );

    const perAgent = ['', '/messages', '/activity', '/usage'];
    const calls: [string, string | undefined, number][] = [
      ['/workspaceapi/overview', key, 200],
      ['/workspaceapi/overview', undefined, 401],
      ['/workspaceapi/overview', noScope, 403],
      ['/workspaceapi/agents?includeOverview=true', key, 200],
      ['/workspaceapi/agents', key, 200],
      ['/workspaceapi/agents?includeOverview=2', key, 400],
      ['/workspaceapi/agents', 'wk_bogus', 401],
      ['/workspaceapi/agents', noScope, 403],
      ['/workspaceapi/nowhere', key, 404],
      ...perAgent.flatMap((p): [string, string | undefined, number][] => [
        [`/workspaceapi/agents/${agent}${p}`, key, 200],
        [`/workspaceapi/agents/${agent}${p}`, undefined, 401],
        [`/workspaceapi/agents/${agent}${p}`, noScope, 403],
        [`/workspaceapi/agents/${hidden}${p}`, key, 403],
        [`/workspaceapi/agents/agt_nope${p}`, key, 404],
      ]),
      [`/workspaceapi/agents/${agent}/messages?pageSize=500`, key, 400],
      [`/workspaceapi/agents/${agent}/activity?kind=x`, key, 400],
      [`/workspaceapi/agents/${agent}/usage?days=0`, key, 400],
      // An unknown parameter, also on the endpoints that take none.
      ['/workspaceapi/overview?limit=5', key, 400],
      [`/workspaceapi/agents/${agent}?limit=5`, key, 400],
    ];
    for (const [path, k, status] of calls) expect((await wsApi(path, { key: k })).status, path).to.equal(status);
    expect((await wsApi(`/workspaceapi/agents/${agent}/messages`, { key })).body.messages[0]).to.include({
      subject: null,
      channel: 'sms',
    });

    const repo = h().service.store.repos.workspaceRead;
    const original = repo.listActivity;
    repo.listActivity = async () => Promise.reject(new Error('boom'));
    try {
      expect((await wsApi(`/workspaceapi/agents/${agent}/activity`, { key })).status).to.equal(500);
    } finally {
      repo.listActivity = original;
    }

    const expected = [
      '/workspaceapi/overview 200',
      '/workspaceapi/overview 401',
      '/workspaceapi/overview 403',
      '/workspaceapi/agents 200',
      '/workspaceapi/agents 400',
      '/workspaceapi/agents 401',
      '/workspaceapi/agents 403',
      '/workspaceapi/openapi.json 200',
      '(undocumented) 404',
      '/workspaceapi/agents/{agentId}/activity 500',
      ...['', '/messages', '/activity', '/usage'].flatMap((p) =>
        [200, 401, 403, 404].map((s) => `/workspaceapi/agents/{agentId}${p} ${s}`),
      ),
      ...['', '/messages', '/activity', '/usage'].map((p) => `/workspaceapi/agents/{agentId}${p} 400`),
      '/workspaceapi/overview 400',
    ];
    expect([...validated]).to.include.members(expected);
  });
});
