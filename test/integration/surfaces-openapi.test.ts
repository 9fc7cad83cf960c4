import { expect } from 'chai';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { h } from '../helpers/harness.js';
import { operationIds } from '../helpers/openapi.js';

describe('OpenAPI of the agent surfaces', () => {
  it('is a valid OpenAPI 3.1 document describing the HTTP API and every Document API operation', async () => {
    const res = await fetch(`${h().url}/openapi.json`);
    expect(res.status).to.equal(200);
    const doc = (await res.json()) as any;
    const result = await new Validator().validate(doc);
    expect(result.valid, JSON.stringify(result.errors)).to.equal(true);
    expect(doc.openapi).to.match(/^3\.1/);
    expect(Object.keys(doc.paths)).to.include.members([
      '/agents/{agentId}/api/{path}',
      '/agents/{agentId}/documents/{documentId}',
      '/agents/{agentId}/documents/{documentId}/data/query',
      '/agents/{agentId}/documents/{documentId}/data/insert',
      '/agents/{agentId}/documents/{documentId}/data/update',
      '/agents/{agentId}/documents/{documentId}/data/delete',
    ]);
    // Generated from the validating zod schemas: the insert body requires items, update requires filter and set.
    const insert =
      doc.paths['/agents/{agentId}/documents/{documentId}/data/insert'].post.requestBody.content['application/json']
        .schema;
    expect(insert.required).to.deep.equal(['items']);
    const update =
      doc.paths['/agents/{agentId}/documents/{documentId}/data/update'].post.requestBody.content['application/json']
        .schema;
    expect(update.required).to.include.members(['filter', 'set']);
    expect(doc.paths['/agents/{agentId}/api/{path}'].post.responses['429']).to.exist;
    // The MCP server's URL, credentials and plain HTTP answers (its messages are the protocol's own).
    const mcp = doc.paths['/agents/{agentId}/mcp'].post;
    expect(mcp.description).to.include('2025-11-25').and.include('2026-07-28');
    expect(Object.keys(mcp.responses)).to.include.members(['200', '401', '403', '405', '429']);
    const webhook = doc.paths['/agents/{agentId}/webhook/{integration}'];
    expect(Object.keys(webhook)).to.include.members(['post', 'put', 'patch', 'get']);
    expect(Object.keys(webhook.post.responses), 'a sender never gets 429 or 500').to.have.members([
      '200',
      '401',
      '403',
      '404',
      '405',
      '413',
      '503',
    ]);
    for (const method of ['post', 'put', 'patch', 'get'])
      expect(webhook[method].security, `${method}: no key, said explicitly`).to.deep.equal([]);
    const chat = doc.paths['/agents/{agentId}/chat'].post;
    expect(Object.keys(chat.responses['200'].content)).to.have.members(['text/event-stream', 'application/json']);
    expect(Object.keys(doc.paths['/agents/{agentId}/chat/{conversationId}'])).to.deep.equal(['get']);
  });

  it("passes Redocly's recommended rules: no errors (every operation states its security), only the accepted warnings", async () => {
    const source = await (await fetch(`${h().url}/openapi.json`)).text();
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: `${h().url}/openapi.json`, config });
    const shown = problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
    expect(
      problems.filter((p) => p.severity === 'error'),
      shown.join('\n'),
    ).to.deep.equal([]);
    // Accepted (docs/decisions.md, "Interop with strict clients"): a filter condition's last branch
    // lets any value through to record-filter.ts, which answers the 400 naming the field; and the
    // server URL is BASE_URL, localhost on a development start.
    const accepted = ['no-illogical-composition-keywords', 'no-server-example.com'];
    expect(
      problems.filter((p) => !accepted.includes(p.ruleId)),
      shown.join('\n'),
    ).to.deep.equal([]);
  });

  it('documents every filter operator with an example, the sort, the cursor and nextCursor of the query operation', async () => {
    const doc = (await (await fetch(`${h().url}/openapi.json`)).json()) as any;
    const query = doc.paths['/agents/{agentId}/documents/{documentId}/data/query'].post;
    const body = query.requestBody.content['application/json'];
    const operators = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'contains', 'exists'];
    expect(Object.keys(body.examples)).to.include.members([...operators, 'combined', 'sorted']);
    for (const op of operators) {
      const example = body.examples[op].value.filter;
      expect(Object.values(example)[0], op).to.have.property(op);
    }
    expect(body.schema.properties.filter.description).to.include('`gt`').and.include('unknown field or operator');
    expect(body.schema.properties).to.include.keys('sort', 'cursor', 'limit', 'offset');
    expect(JSON.stringify(body.schema.properties.sort)).to.include('"asc"').and.include('"desc"');
    const ok = query.responses['200'].content['application/json'].schema;
    expect(JSON.stringify(ok)).to.include('nextCursor');
  });

  it('names every operation with a unique camelCase operationId that does not depend on its position', async () => {
    const doc = (await (await fetch(`${h().url}/openapi.json`)).json()) as any;
    const ids = operationIds(doc);
    expect(ids.length).to.be.greaterThan(15);
    for (const id of ids) expect(id).to.match(/^[a-z][A-Za-z0-9]*$/);
    expect(new Set(ids).size, 'unique').to.equal(ids.length);
    // Names generated clients call: renaming one breaks them, so they are pinned here.
    expect(doc.paths['/agents/{agentId}/api/{path}'].post.operationId).to.equal('callEndpointPost');
    expect(doc.paths['/agents/{agentId}/api/{path}'].get.operationId).to.equal('callEndpointGet');
    expect(doc.paths['/agents/{agentId}/documents/{documentId}'].get.operationId).to.equal('readDocument');
    expect(doc.paths['/agents/{agentId}/documents/{documentId}/data/query'].post.operationId).to.equal('queryRecords');
    expect(doc.paths['/agents/{agentId}/mcp'].post.operationId).to.equal('callMcpServer');
    expect(doc.paths['/agents/{agentId}/chat'].post.operationId).to.equal('sendChatMessage');
    expect(doc.paths['/agents/{agentId}/openapi.json'].get.operationId).to.equal('getAgentOpenApiDocument');
  });

  it('serves a browsable docs page with its assets', async () => {
    const page = await fetch(`${h().url}/docs`);
    expect(page.status).to.equal(200);
    expect(await page.text()).to.contain('swagger-ui-bundle.js');
    for (const asset of [
      '/docs/swagger-ui-bundle.js',
      '/docs/swagger-ui-standalone-preset.js',
      '/docs/swagger-ui.css',
      '/docs/init.js',
    ]) {
      const r = await fetch(`${h().url}${asset}`);
      expect(r.status, asset).to.equal(200);
      expect((await r.arrayBuffer()).byteLength, asset).to.be.greaterThan(10);
    }
    expect((await fetch(`${h().url}/docs/../package.json`)).status).to.equal(404);
  });
});
