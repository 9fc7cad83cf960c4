import { expect } from 'chai';
import type { HttpEndpoint, HttpMethod } from '../../src/domain/entries/entry.entities.js';
import { valueSchema } from '../../src/domain/entries/entry.schemas.js';
import { baseOperationId, operationIds } from '../../src/rest/openapi/agent.openapi.js';
import { endpointSegments } from '../../src/surfaces/shared/http-io.js';

function endpoint(path: string, methods: HttpMethod[], createdSecond: number, id = `ep_${path}`): HttpEndpoint {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, createdSecond));
  return {
    id,
    agentId: 'agt_1',
    path,
    methods,
    handler: { kind: 'script', body: 'return 1;' },
    modelOverride: null,
    description: '',
    inputSchema: null,
    outputSchema: null,
    createdAt: at,
    updatedAt: at,
  };
}

const IDENTIFIER = /^[a-z][A-Za-z0-9_]*$/;

describe('agent OpenAPI: operation names', () => {
  it('names an operation from its method and path, parameters as By<Name>', () => {
    const cases: [HttpMethod, string, string][] = [
      ['GET', 'orders/{id}/summary', 'getOrdersByIdSummary'],
      ['POST', 'orders', 'postOrders'],
      ['DELETE', 'order-items/{item_id}', 'deleteOrderItemsByItemId'],
      ['PUT', 'v1.2/2024/report~x', 'putV122024ReportX'],
      ['PATCH', '{a}/{b}', 'patchByAByB'],
      ['GET', '-', 'get'],
    ];
    for (const [method, path, expected] of cases) {
      expect(baseOperationId(method, path), `${method} ${path}`).to.equal(expected);
      expect(expected).to.match(IDENTIFIER);
    }
  });

  it('keeps names unique: the earliest endpoint keeps a shared name, a later one gets a suffix of its own, and adding one renames nothing', () => {
    const older = endpoint('order-items', ['GET', 'POST'], 1);
    const newer = endpoint('order_items', ['GET'], 2);
    const names = operationIds([newer, older]);
    expect(names.get('GET order-items')).to.equal('getOrderItems');
    expect(names.get('POST order-items')).to.equal('postOrderItems');
    expect(names.get('GET order_items')).to.match(/^getOrderItems_[0-9a-f]{8}$/);

    const newest = endpoint('Order-Items', ['GET'], 3);
    const after = operationIds([older, newer, newest]);
    for (const [k, v] of names) expect(after.get(k), k).to.equal(v);
    expect(new Set(after.values()).size).to.equal(after.size);
    for (const v of after.values()) expect(v).to.match(IDENTIFIER);
  });
});

describe('HTTP API: endpoint path segments', () => {
  const prefix = '/agents/agt_1/api';
  it('splits on encoded slashes as on plain ones, decoding once', () => {
    expect(endpointSegments(`${prefix}/orders%2F42%2Fsummary`, prefix)).to.deep.equal(['orders', '42', 'summary']);
    expect(endpointSegments(`${prefix}/orders/42%2fsummary/`, prefix)).to.deep.equal(['orders', '42', 'summary']);
    expect(endpointSegments(`${prefix}/a%252Fb`, prefix)).to.deep.equal(['a%2Fb']);
    expect(endpointSegments(`${prefix}/caf%C3%A9%20x`, prefix)).to.deep.equal(['café x']);
    expect(endpointSegments(prefix, prefix)).to.deep.equal([]);
  });

  it('refuses a malformed escape with a 400 message', () => {
    expect(() => endpointSegments(`${prefix}/a%2`, prefix)).to.throw('malformed percent-escape');
  });
});

describe('entry schemas: an HTTP endpoint’s declared JSON Schema', () => {
  it('takes a schema of any JSON value and refuses one the validator cannot use or over 64 KiB', () => {
    expect(valueSchema.safeParse({ type: 'array', items: { type: 'integer' } }).success).to.equal(true);
    expect(valueSchema.safeParse({ type: 'string' }).success).to.equal(true);
    expect(valueSchema.safeParse({ type: 'no-such-type' }).success).to.equal(false);
    expect(valueSchema.safeParse({ $ref: 'https://example.com/other.json' }).success).to.equal(false);
    expect(valueSchema.safeParse({ type: 'string', description: 'x'.repeat(70_000) }).success).to.equal(false);
  });
});
