import { expect } from 'chai';
import { agentAddresses } from '../../src/console/pages/agent/agent-addresses.js';
import {
  curlOf,
  exampleBody,
  examplePath,
  readyCall,
  stepsDone,
  type StartFacts,
} from '../../src/console/pages/agent/getting-started.js';

// The Overview's getting-started checklist ticks from what the service has; its ready call is a
// curl a shell runs as shown (quoting, the key or a variable for it, a body that fits the schema);
// the addresses are those of the surfaces that are on.

const ORIGIN = 'https://agents.example.com';
const NOW = Date.parse('2026-11-29T12:00:00Z');
const on = (...names: string[]) =>
  ['HTTP_API', 'DOCUMENT_API', 'MCP', 'WIDGET', 'WEBHOOKS', 'OPENAI', 'A2A', 'EMAIL', 'SMS'].map((surface) => ({
    surface,
    enabled: names.includes(surface),
  }));
const facts = (f: Partial<StartFacts> = {}): StartFacts => ({
  surfaces: on('HTTP_API', 'MCP', 'WIDGET'),
  entries: 0,
  keys: [],
  lastCallAt: null,
  activitySeenAt: null,
  activityStepDone: false,
  now: NOW,
  ...f,
});

describe('console: the getting-started checklist', () => {
  it('a fresh agent has nothing done', () => {
    expect(stepsDone(facts())).to.deep.equal({ entry: false, key: false, call: false, activity: false });
  });

  it('an entry, or a surface that answers without one, does the first step', () => {
    expect(stepsDone(facts({ entries: 1 })).entry).to.equal(true);
    expect(stepsDone(facts({ surfaces: on('OPENAI') })).entry).to.equal(true);
    expect(stepsDone(facts({ surfaces: on('HTTP_API', 'WIDGET', 'EMAIL') })).entry).to.equal(false);
  });

  it("a working key a person made does the second; Try it's, the CLI's, revoked and expired keys do not", () => {
    const keys = [
      { origin: 'TRY_IT', revokedAt: null, expiresAt: null },
      { origin: 'CLI', revokedAt: null, expiresAt: null },
      { origin: 'PERSON', revokedAt: '2026-11-01T00:00:00Z', expiresAt: null },
      { origin: 'PERSON', revokedAt: null, expiresAt: '2026-11-29T11:00:00Z' },
    ];
    expect(stepsDone(facts({ keys })).key).to.equal(false);
    expect(stepsDone(facts({ keys: [...keys, { origin: 'PERSON', revokedAt: null, expiresAt: null }] })).key).to.equal(
      true,
    );
  });

  it('a logged call does the third; the fourth needs the Activity tab seen since, and then stays done', () => {
    const call = '2026-11-29T11:00:00.000Z';
    expect(stepsDone(facts({ lastCallAt: call }))).to.include({ call: true, activity: false });
    expect(stepsDone(facts({ lastCallAt: call, activitySeenAt: '2026-11-29T10:59:00.000Z' })).activity).to.equal(false);
    expect(stepsDone(facts({ lastCallAt: call, activitySeenAt: '2026-11-29T11:00:01.000Z' })).activity).to.equal(true);
    expect(stepsDone(facts({ lastCallAt: call, activityStepDone: true })).activity).to.equal(true);
    expect(stepsDone(facts({ activitySeenAt: call, activityStepDone: true })).activity).to.equal(false);
  });
});

describe('console: the ready call', () => {
  it("POSTs to the first endpoint's real URL with the key and an example body, as curl", () => {
    const call = readyCall(ORIGIN, 'agt_1', [{ path: 'orders/{id}', methods: ['GET', 'POST'] }], true, 'ak_secret');
    expect(call).to.deep.equal({
      method: 'POST',
      url: `${ORIGIN}/agents/agt_1/api/orders/example-id`,
      headers: [
        ['Authorization', 'Bearer ak_secret'],
        ['Content-Type', 'application/json'],
      ],
      body: '{"message":"Hello"}',
    });
    expect(curlOf(call!)).to.equal(
      [
        `curl -X POST '${ORIGIN}/agents/agt_1/api/orders/example-id'`,
        `-H 'Authorization: Bearer ak_secret'`,
        `-H 'Content-Type: application/json'`,
        `-d '{"message":"Hello"}'`,
      ].join(' \\\n  '),
    );
  });

  it('a GET endpoint is called without a body; without the key, a shell variable stands for it', () => {
    const curl = curlOf(readyCall(ORIGIN, 'agt_1', [{ path: 'status', methods: ['GET'] }], false, null)!);
    expect(curl).to.equal(`curl '${ORIGIN}/agents/agt_1/api/status' \\\n  -H "Authorization: Bearer $AGENT_KEY"`);
  });

  it("quotes what a shell would read otherwise (a quote in the body), and fills the schema's properties", () => {
    expect(
      exampleBody({
        type: 'object',
        properties: { q: { type: 'string' }, n: { type: 'integer' }, f: { enum: ['a'] } },
      }),
    ).to.deep.equal({ q: 'Hello', n: 1, f: 'a' });
    const curl = curlOf({ method: 'POST', url: `${ORIGIN}/x`, headers: [], body: `{"q":"it's"}` });
    expect(curl).to.include(`-d '{"q":"it'\\''s"}'`);
    expect(examplePath('a/{b}/c/{d}')).to.equal('a/example-b/c/example-d');
  });

  it('without an endpoint: the chat when the widget surface is on, else nothing', () => {
    expect(readyCall(ORIGIN, 'agt_1', [], true, 'ak_x')).to.include({ url: `${ORIGIN}/agents/agt_1/chat` });
    expect(readyCall(ORIGIN, 'agt_1', [], false, 'ak_x')).to.equal(null);
  });
});

describe("console: the agent's addresses", () => {
  it('one per surface that is on, and one per entry that has its own', () => {
    const addresses = agentAddresses(ORIGIN, {
      id: 'agt_1',
      surfaces: on('HTTP_API', 'DOCUMENT_API', 'MCP', 'WEBHOOKS', 'A2A'),
      httpEndpoints: [{ path: 'greet', methods: ['POST'] }],
      webhooks: [{ integration: 'stripe' }],
      documents: [{ id: 'doc_1', name: 'FAQ' }],
      documentExposures: [{ documentId: 'doc_1' }],
      channels: [{ kind: 'EMAIL', address: 'bot@example.com' }],
    });
    expect(addresses.map((a) => [a.label, a.value])).to.deep.equal([
      ['HTTP API: POST greet', `${ORIGIN}/agents/agt_1/api/greet`],
      ['Document API: FAQ', `${ORIGIN}/agents/agt_1/documents/doc_1`],
      ['MCP server', `${ORIGIN}/agents/agt_1/mcp`],
      ['Webhook: stripe', `${ORIGIN}/agents/agt_1/webhook/stripe`],
      ['A2A agent card', `${ORIGIN}/agents/agt_1/.well-known/agent-card.json`],
      ['A2A endpoint', `${ORIGIN}/agents/agt_1/a2a`],
    ]);
  });
});
