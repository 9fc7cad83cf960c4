import { expect } from 'chai';
import { execute, parse, type GraphQLSchema } from 'graphql';
import { DomainError } from '../../src/domain/errors.js';
import { createLoaders } from '../../src/graphql/context.js';
import { buildGraphqlSchema } from '../../src/graphql/schema.js';
import { VIEWER_MUTATIONS } from '../../src/graphql/viewer-guard.js';
import { gql, h, newWorkspace } from '../helpers/harness.js';
import { furnish, type Furnished } from '../helpers/isolation-fixtures.js';
import { introspect, sweep, type SweepCall } from '../helpers/graphql-sweep.js';
import { consoleSession, leaks, poolsOf, refusals, withUnknownIds } from '../helpers/isolation-checks.js';
import { call, documentPath } from '../helpers/surface-calls.js';
import { snapshotOf, type Snapshot } from '../helpers/isolation-snapshot.js';

// The isolation test (issue 52): two workspaces on one deployment, each with one of everything.
// From workspace A, every GraphQL operation (found by introspection, so new ones are covered
// without editing this file) is called with every id of B, every agent surface and the Workspace
// API with A's keys and OAuth token on B's agents, and a manifest of A names B's secrets and team.
// Each is refused (NOT_FOUND, FORBIDDEN, or BAD_USER_INPUT where the argument cannot name B's
// thing), answers nothing of B, and answers exactly as it does for an id that exists nowhere (so
// the refusal does not tell that B's thing exists); nothing of B changes. Last, A's viewer tries
// every mutation.

describe('workspace isolation: A acting on B', function () {
  this.timeout(180_000);
  let A: Furnished;
  let B: Furnished;
  let schema: GraphQLSchema;
  let before_: Snapshot;

  before(async () => {
    // The deployment's first account is its operator; neither A's nor B's people may be it.
    await newWorkspace();
    [A, B] = await Promise.all([furnish('alpha'), furnish('bravo')]);
    schema = await introspect(A.ws.adminToken);
    before_ = await snapshotOf(B);
  });

  it('GraphQL: every query and mutation with B’s ids is refused, tells nothing of B, and nothing of B shows', async () => {
    const yaml = `agent: ${B.agentId}\nteam: ${B.teamName}\n`;
    const calls = sweep(schema, poolsOf(B, yaml), poolsOf(A, yaml));
    expect(calls.length).to.be.greaterThan(100);
    const problems = await refusals(calls, B, (q, v) => gql(A.ws.adminToken, q, v));
    expect(problems).to.deep.equal([]);
  });

  it('GraphQL in a console session: every query, Try it and switching workspace with B’s ids are refused alike', async () => {
    const viaSession = await consoleSession(A.ws.adminToken);
    const calls = sweep(schema, poolsOf(B), poolsOf(A)).filter(
      (c) => c.type === 'query' || c.op === 'switchWorkspace' || c.op === 'createTryItKey',
    );
    expect(calls.map((c) => c.op)).to.include.members(['agent', 'switchWorkspace', 'createTryItKey']);
    expect(await refusals(calls, B, viaSession)).to.deep.equal([]);
  });

  it('agent surfaces: A’s agent key, workspace key and OAuth token reach none of B’s agents', async () => {
    const b = B.agentId;
    const rpc = (method: string, params: unknown = {}) => ({ jsonrpc: '2.0', id: 1, method, params });
    const requests: [string, string, unknown?][] = [
      ['GET', `/agents/${b}`],
      ['POST', `/agents/${b}/api/hello`, {}],
      ['GET', `/agents/${b}/openapi.json`],
      ['GET', documentPath(b, B.documentId)],
      ['POST', documentPath(b, B.documentId, 'query'), {}],
      ['POST', documentPath(b, B.documentId, 'insert'), { items: [{ title: 'from A' }] }],
      ['POST', documentPath(A.agentId, B.documentId, 'query'), {}],
      ['POST', documentPath(A.agentId, B.documentId, 'insert'), { items: [{ title: 'from A' }] }],
      ['POST', `/agents/${b}/mcp`, rpc('tools/list')],
      ['POST', `/agents/${b}/mcp`, rpc('tools/call', { name: 'hello', arguments: {} })],
      ['POST', `/agents/${b}/chat`, { message: 'hi' }],
      ['POST', `/agents/${A.agentId}/webhook/${B.integration}`, { from: 'A' }],
      ['POST', `/agents/${b}/v1/chat/completions`, { model: b, messages: [{ role: 'user', content: 'hi' }] }],
      ['POST', `/agents/${b}/v1/responses`, { model: b, input: 'hi' }],
      ['GET', `/agents/${b}/v1/models`],
      ['POST', '/v1/chat/completions', { model: b, messages: [{ role: 'user', content: 'hi' }] }],
      ['POST', '/v1/responses', { model: b, input: 'hi' }],
      ['GET', `/agents/${b}/.well-known/agent-card.json`],
      [
        'POST',
        `/agents/${b}/a2a`,
        rpc('message/send', { message: { role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: 'hi' }] } }),
      ],
      ['GET', `/agents/${b}/messages`],
      ['GET', `/agents/${b}/activity`],
      ['GET', `/agents/${b}/usage`],
      ['GET', `/workspaceapi/agents/${b}`],
      ['GET', `/workspaceapi/agents/${b}/messages`],
      ['GET', `/workspaceapi/agents/${b}/activity`],
      ['GET', `/workspaceapi/agents/${b}/usage`],
    ];
    const credentials: [string, { key?: string; bearer?: string }][] = [
      ['agent key', { key: A.agentKey }],
      ['agent key as bearer', { bearer: A.agentKey }],
      ['workspace key', { key: A.workspaceKey }],
      ['workspace key as bearer', { bearer: A.workspaceKey }],
      ['OAuth token', { bearer: A.accessToken }],
    ];
    const problems: string[] = [];
    const send = (method: string, path: string, json: unknown, cred: { key?: string; bearer?: string }) =>
      call(method, path, {
        ...cred,
        ...(json === undefined ? {} : { json }),
        headers: { accept: 'application/json, text/event-stream' },
      });
    for (const [method, path, json] of requests) {
      // What anyone gets without a credential: a public document (the agent card) stays public, the same.
      const anonymous = await send(method, path, json, {});
      for (const [who, cred] of credentials) {
        const r = await send(method, path, json, cred);
        if (anonymous.status === 200) {
          if (r.status !== 200 || r.text !== anonymous.text)
            problems.push(`${who} ${method} ${path}: ${r.status}, other than the public answer`);
          continue;
        }
        const leaked = leaks(r.text, B, [b, B.documentId, B.integration]);
        if (![401, 403, 404].includes(r.status))
          problems.push(`${who} ${method} ${path}: ${r.status} ${r.text.slice(0, 200)}`);
        if (leaked.length) problems.push(`${who} ${method} ${path}: answer shows ${leaked.join(', ')}`);
      }
    }
    // Listings with A's keys show A's agents, not B's.
    for (const [path, cred] of [
      ['/v1/models', { bearer: A.workspaceKey }],
      ['/workspaceapi/agents', { bearer: A.workspaceKey }],
      ['/workspaceapi/overview', { bearer: A.workspaceKey }],
    ] as const) {
      const r = await call('GET', path, cred);
      expect(r.status, `${path}: ${r.text}`).to.equal(200);
      const leaked = leaks(r.text, B, []);
      if (leaked.length) problems.push(`GET ${path}: answer shows ${leaked.join(', ')}`);
    }
    expect(problems).to.deep.equal([]);
    // The credentials work where they belong: the refusals above are about B, not broken keys.
    expect((await call('POST', `/agents/${A.agentId}/api/hello`, { key: A.agentKey, json: {} })).status).to.equal(200);
    expect((await call('GET', `/workspaceapi/agents/${A.agentId}`, { bearer: A.workspaceKey })).status).to.equal(200);
    const own = await call('POST', `/agents/${A.agentId}/mcp`, {
      bearer: A.accessToken,
      json: rpc('tools/list'),
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(own.status, own.text).to.equal(200);
  });

  it('a manifest of A naming B’s team, model and secrets finds none of them, and is not applied', async () => {
    const exported = await gql(A.ws.adminToken, 'query($ids: [ID!]) { exportAgents(ids: $ids) }', { ids: [A.agentId] });
    const signing = B.refNames[1]!;
    const yaml = String(exported.data.exportAgents)
      .split(A.teamName)
      .join(B.teamName)
      .split(A.modelName)
      .join(B.modelName)
      .replace(
        /( +)- integration: (\S+)\n/,
        (_m, indent: string, integration: string) =>
          `${indent}- integration: ${integration}\n${indent}  signature: { secretName: ${signing} }\n`,
      );
    expect(yaml).to.include(B.teamName).and.include(signing).and.include(B.modelName);
    const plan = await gql(
      A.ws.adminToken,
      'query($y: String!) { planManifest(yaml: $y) { digest missing { kind name } } }',
      {
        y: yaml,
      },
    );
    const missing = (plan.data?.planManifest?.missing ?? []).map((m: any) => `${m.kind} ${m.name}`).sort();
    expect(missing, JSON.stringify(plan)).to.deep.equal([
      `MODEL ${B.modelName}`,
      `SECRET ${signing}`,
      `TEAM ${B.teamName}`,
    ]);
    expect(leaks(JSON.stringify(plan), B, [B.teamName, B.modelName, signing])).to.deep.equal([]);
    const applied = await gql(
      A.ws.adminToken,
      'mutation($y: String!, $d: String!) { applyManifest(yaml: $y, planDigest: $d) { changed } }',
      { y: yaml, d: plan.data.planManifest.digest },
    );
    expect(applied.errors?.[0]?.extensions?.code, JSON.stringify(applied)).to.equal('BAD_USER_INPUT');
    expect(leaks(JSON.stringify(applied), B, [B.teamName, B.modelName, signing])).to.deep.equal([]);
  });

  it('nothing of B changed: row counts and updatedAt of every table with a workspace or agent column', async () => {
    expect(await snapshotOf(B)).to.deep.equal(before_);
  });

  // A's viewer, last: a mutation the domain failed to refuse would change A's fixtures.
  describe('a VIEWER changes nothing', () => {
    let calls: SweepCall[];
    before(() => {
      calls = sweep(schema, poolsOf(A, 'agent: x\n'), undefined).filter(
        (c) => c.type === 'mutation' && !VIEWER_MUTATIONS.has(c.op),
      );
    });

    it('the GraphQL guard refuses every mutation outside the allowlist (FORBIDDEN) before it runs', async () => {
      const problems: string[] = [];
      for (const op of new Set(calls.map((c) => c.op))) {
        const c = calls.find((x) => x.op === op)!;
        // Ids that exist nowhere: the domain would answer NOT_FOUND, the guard answers first.
        const r = await gql(A.viewer.token, c.shallow, withUnknownIds(c, A).variables);
        if (r.status !== 200 || r.errors?.[0]?.extensions?.code !== 'FORBIDDEN')
          problems.push(`${op}: ${r.status} ${JSON.stringify(r.errors ?? r.data).slice(0, 200)}`);
      }
      expect(problems).to.deep.equal([]);
      // Behind a fragment, inline or named, a mutation is the same mutation.
      for (const q of [
        'mutation { ... on Mutation { deleteAgent(id: "agt_0000000000000000") } }',
        'mutation { ...F } fragment F on Mutation { updateAccount(input: {}) { name } ...G } fragment G on Mutation { deleteAgent(id: "agt_0000000000000000") }',
      ])
        expect((await gql(A.viewer.token, q)).errors?.[0]?.extensions?.code, q).to.equal('FORBIDDEN');
      // The allowlisted ones pass the guard (here: refused by the domain for their own reasons, or done).
      const own = await gql(A.viewer.token, 'mutation { updateAccount(input: { name: "Vera Viewer" }) { name } }');
      expect(own.data?.updateAccount?.name, JSON.stringify(own)).to.equal('Vera Viewer');
    });

    it('the domain refuses them too (the schema executed without the guard)', async () => {
      const services = h().service.services;
      const principal = await services.keys.authenticateMember(A.viewer.token);
      const direct = await buildGraphqlSchema();
      const outcome = new Map<string, string[]>();
      for (const c of calls) {
        const r = await execute({
          schema: direct,
          document: parse(c.shallow),
          variableValues: c.variables,
          contextValue: { principal, services, loaders: createLoaders(services, principal) },
        });
        const e = r.errors?.[0]?.originalError;
        const code = e instanceof DomainError ? e.code : r.errors?.length ? `ERROR ${r.errors[0]!.message}` : 'DONE';
        outcome.set(c.op, [...(outcome.get(c.op) ?? []), code]);
      }
      // Each operation is FORBIDDEN for the ids it acts on (NOT_FOUND for ids of another kind), never done.
      const problems = [...outcome]
        .filter(
          ([, codes]) => !codes.includes('FORBIDDEN') || codes.some((x) => x !== 'FORBIDDEN' && x !== 'NOT_FOUND'),
        )
        .map(([op, codes]) => `${op}: ${[...new Set(codes)].join(', ')}`);
      expect(problems).to.deep.equal([]);
    });
  });
});
