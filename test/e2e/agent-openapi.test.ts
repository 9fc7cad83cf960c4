import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { schemaViolation } from '../../src/domain/json-schema.js';
import { operationIds, OPENAPI_METHODS } from '../helpers/openapi.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';
import { call as send } from '../helpers/surface-calls.js';

// An agent's own OpenAPI document (`GET /agents/{agentId}/openapi.json`) and the two ways the docs
// page and generated clients reach a nested endpoint: plain slashes, or the whole path encoded
// (`orders%2F42%2Fsummary`), on a service started in-process by the composition root.

const ADMIN_TOKEN = 'agent-openapi-e2e-admin-token-0'; // 31 characters

const ECHO = 'return { params: request.params, path: request.path, method: request.method, body: input };';
const ORDER_INPUT = {
  type: 'object',
  required: ['item'],
  properties: { item: { type: 'string', minLength: 1 }, quantity: { type: 'integer', minimum: 1 } },
  additionalProperties: false,
};
const ORDER_OUTPUT = {
  type: 'object',
  required: ['accepted'],
  properties: { accepted: { type: 'string' }, quantity: { type: 'integer' } },
};

/** A GET sent byte-exact (fetch and URL normalise `..` and `%2E%2E` away before sending). */
function rawGet(base: string, rawPath: string, key: string): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { hostname, port, path: rawPath, method: 'GET', headers: { 'x-agent-access-key': key } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('e2e: an agent’s own OpenAPI document and nested endpoint paths', function () {
  this.timeout(120_000);
  let svc: E2eService;
  let shop: string, other: string, keyShop: string, keyOther: string;
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);
  const call = (method: string, p: string, opts: Omit<Parameters<typeof send>[2], 'baseUrl'> = {}) =>
    send(method, p, { ...opts, baseUrl: svc.url });
  const addEndpoint = (agentId: string, input: Record<string, unknown>) =>
    gql('mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
      a: agentId,
      i: input,
    });

  before(async () => {
    svc = await startE2eService('agent_openapi', { adminToken: ADMIN_TOKEN });
    const mk = async (name: string) =>
      (
        await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
          i: { name, defaultModel: 'fake-model' },
        })
      ).createAgent.id as string;
    const key = async (a: string) =>
      (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key } }', { a })).createAgentApiKey
        .key as string;
    [shop, other] = [await mk('Shop'), await mk('Other')];
    [keyShop, keyOther] = [await key(shop), await key(other)];
    await addEndpoint(shop, {
      path: 'orders/{id}/summary',
      methods: ['GET', 'PUT'],
      description: 'Summary of one order',
      handler: { script: ECHO },
    });
    await addEndpoint(shop, {
      path: 'orders',
      methods: ['POST'],
      handler: { script: 'return { accepted: input.item, quantity: input.quantity ?? 1 };' },
      inputSchema: ORDER_INPUT,
      outputSchema: ORDER_OUTPUT,
    });
    await addEndpoint(shop, { path: 'ask', handler: { prompt: 'Answer briefly.' } });
    await addEndpoint(other, { path: 'secret-report', methods: ['GET'], handler: { script: 'return 1;' } });
  });

  after(async () => {
    await svc?.stop();
  });

  const documentOf = async (agentId: string, key: string) => {
    const r = await call('GET', `/agents/${agentId}/openapi.json`, { key });
    expect(r.status, r.text).to.equal(200);
    return r.json;
  };

  it('describes each endpoint as its own path, one named operation per method, valid OpenAPI 3.1', async () => {
    const doc = await documentOf(shop, keyShop);
    const result = await new Validator().validate(doc);
    expect(result.errors ?? [], JSON.stringify(result.errors)).to.deep.equal([]);
    expect(doc.openapi).to.equal('3.1.0');
    expect(new URL(doc.servers[0].url).pathname).to.equal(`/agents/${shop}/api`);
    expect(Object.keys(doc.paths)).to.have.members(['/orders/{id}/summary', '/orders', '/ask']);
    const methods = Object.fromEntries(
      Object.entries<any>(doc.paths).map(([p, item]) => [p, OPENAPI_METHODS.filter((m) => item[m])]),
    );
    expect(methods).to.deep.equal({ '/orders/{id}/summary': ['get', 'put'], '/orders': ['post'], '/ask': ['post'] });
    expect(operationIds(doc)).to.have.members([
      'getOrdersByIdSummary',
      'putOrdersByIdSummary',
      'postOrders',
      'postAsk',
    ]);

    const summary = doc.paths['/orders/{id}/summary'];
    expect(summary.parameters).to.deep.equal([
      {
        name: 'id',
        in: 'path',
        required: true,
        description: 'One path segment (never `.` or `..`)',
        schema: { type: 'string' },
      },
    ]);
    expect(summary.get.summary).to.equal('Summary of one order');
    expect(summary.get.requestBody, 'a GET has no body').to.equal(undefined);
    expect(summary.put.requestBody.required).to.equal(false);
    expect(summary.put.requestBody.content['application/json'].schema).to.deep.equal({});

    const orders = doc.paths['/orders'].post;
    expect(orders.requestBody.required).to.equal(true);
    expect(orders.requestBody.content['application/json'].schema).to.deep.equal(ORDER_INPUT);
    expect(orders.responses['200'].content['application/json'].schema.properties.output).to.deep.equal(ORDER_OUTPUT);
    expect(orders.responses['200'].content['text/event-stream'], 'a script does not stream').to.equal(undefined);
    expect(doc.paths['/ask'].post.responses['200'].content).to.have.keys('application/json', 'text/event-stream');

    for (const op of [summary.get, summary.put, orders, doc.paths['/ask'].post]) {
      for (const status of ['400', '401', '403', '404', '429', '500'])
        expect(op.responses[status], `${op.operationId} ${status}`).to.exist;
      expect(op.responses['401'].content['application/json'].schema).to.deep.equal({
        $ref: '#/components/schemas/Error',
      });
    }
    expect(doc.components.schemas.Error).to.deep.include({ required: ['error'] });
    expect(doc.components.securitySchemes.agentKey).to.include({
      type: 'apiKey',
      in: 'header',
      name: 'X-Agent-Access-Key',
    });
    expect(doc.security).to.deep.equal([{ agentKey: [] }, { bearer: [] }]);
    expect(JSON.stringify(doc), 'nothing of the other agent').not.to.contain('secret-report');
  });

  it('is refused like the HTTP API: no key 401, another agent’s key 401, unknown agent 404, surface off 403', async () => {
    const url = `/agents/${shop}/openapi.json`;
    for (const opts of [{}, { key: keyOther }, { key: 'ak_not_a_key' }]) {
      const r = await call('GET', url, opts);
      expect(r.status, r.text).to.equal(401);
      expect(r.json.error).to.be.a('string');
      expect(r.text).not.to.contain('orders');
    }
    expect((await call('GET', '/agents/agt_nobody/openapi.json', { key: keyShop })).status).to.equal(404);
    expect((await call('GET', url, { bearer: keyShop })).status, 'the bearer form of the key').to.equal(200);
    const toggle = (enabled: boolean) =>
      gql('mutation($a: ID!, $e: Boolean) { setSurface(agentId: $a, surface: HTTP_API, enabled: $e) { id } }', {
        a: shop,
        e: enabled,
      });
    await toggle(false);
    try {
      expect((await call('GET', url, { key: keyShop })).status).to.equal(403);
    } finally {
      await toggle(true);
    }
  });

  it('a request built from the document (server, path, method, schema) reaches the endpoint it names', async () => {
    const doc = await documentOf(shop, keyShop);
    const find = (operationId: string) => {
      for (const [p, item] of Object.entries<any>(doc.paths))
        for (const m of OPENAPI_METHODS)
          if (item[m]?.operationId === operationId) return { path: p, method: m.toUpperCase(), op: item[m] };
      throw new Error(`no operation ${operationId}`);
    };
    const prefix = new URL(doc.servers[0].url).pathname;

    const summary = find('getOrdersByIdSummary');
    const r = await call(summary.method, prefix + summary.path.replace('{id}', encodeURIComponent('42')), {
      key: keyShop,
    });
    expect(r.status, r.text).to.equal(200);
    expect(r.json.output).to.deep.include({ params: { id: '42' }, path: 'orders/42/summary', method: 'GET' });

    const order = find('postOrders');
    const placed = await call(order.method, prefix + order.path, { key: keyShop, json: { item: 'tea', quantity: 2 } });
    expect(placed.status, placed.text).to.equal(200);
    expect(
      schemaViolation(order.op.responses['200'].content['application/json'].schema, placed.json),
      'the answer matches the documented schema',
    ).to.equal(null);
    expect(placed.json.output).to.deep.equal({ accepted: 'tea', quantity: 2 });

    // The declared input schema is enforced, not only described.
    for (const body of [{ quantity: 2 }, { item: 'tea', quantity: 0 }, { item: 'tea', extra: true }]) {
      const refused = await call(order.method, prefix + order.path, { key: keyShop, json: body });
      expect(refused.status, JSON.stringify(body)).to.equal(400);
      expect(refused.json.error).to.match(/^Invalid request body for endpoint 'orders': (item|quantity|extra): /);
    }
    expect(
      (await call(order.method, prefix + order.path, { key: keyShop })).status,
      'no body where one is required',
    ).to.equal(400);
  });

  it('applies the input schema to the body of POST, PUT, PATCH and DELETE; a GET or HEAD carries no body and is not checked', async () => {
    await addEndpoint(shop, {
      path: 'lookup',
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      handler: { script: 'return { method: request.method, body: input };' },
      inputSchema: ORDER_INPUT,
    });
    const url = `/agents/${shop}/api/lookup`;
    const get = await call('GET', url, { key: keyShop });
    expect(get.status, get.text).to.equal(200);
    expect(get.json.output).to.deep.equal({ method: 'GET', body: null });
    expect((await call('HEAD', url, { key: keyShop })).status, 'HEAD runs the GET').to.equal(200);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const refused = await call(method, url, { key: keyShop, json: { quantity: 2 } });
      expect(refused.status, method).to.equal(400);
      expect(refused.json.error, method).to.match(/^Invalid request body for endpoint 'lookup': item: /);
      const ok = await call(method, url, { key: keyShop, json: { item: 'tea' } });
      expect(ok.status, `${method} ${ok.text}`).to.equal(200);
      expect(ok.json.output).to.deep.equal({ method, body: { item: 'tea' } });
    }
  });

  it('reaches a nested endpoint with its path encoded whole, as the docs page sends it, and never with a dot segment', async () => {
    const plain = await call('GET', `/agents/${shop}/api/orders/42/summary`, { key: keyShop });
    expect(plain.status, plain.text).to.equal(200);
    for (const encoded of ['orders%2F42%2Fsummary', 'orders%2f42%2fsummary', 'orders/42%2Fsummary']) {
      const r = await rawGet(svc.url, `/agents/${shop}/api/${encoded}`, keyShop);
      expect(r.status, encoded).to.equal(200);
      expect(r.body.output, encoded).to.deep.equal(plain.json.output);
    }
    // A dot segment, plain or encoded, names no endpoint and is never captured by {id}.
    for (const dotted of [
      'orders/../summary',
      'orders/%2E%2E/summary',
      'orders%2F..%2Fsummary',
      'orders/./summary',
      'orders%2F.%2Fsummary',
      'orders/%2e/summary',
    ]) {
      const r = await rawGet(svc.url, `/agents/${shop}/api/${dotted}`, keyShop);
      expect(r.status, dotted).to.equal(404);
      expect(r.body.error, dotted).to.be.a('string');
    }
    // Decoding happens once: an escaped percent stays a literal percent inside the parameter.
    const once = await rawGet(svc.url, `/agents/${shop}/api/orders/a%252Fb/summary`, keyShop);
    expect(once.status).to.equal(200);
    expect(once.body.output.params).to.deep.equal({ id: 'a%2Fb' });
    expect(
      (await rawGet(svc.url, `/agents/${shop}/api/orders/%ZZ/summary`, keyShop)).status,
      'malformed escape',
    ).to.equal(400);
  });
});
