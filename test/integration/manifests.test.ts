import { expect } from 'chai';
import type { Knex } from 'knex';
import { closeDatabase, openDatabase } from '../../src/infra/db.js';
import { loadConfig } from '../../src/infra/config.js';
import { createLogger } from '../../src/infra/logger.js';
import { migrateLatest } from '../../src/infra/migrate.js';
import { buildService, type Service } from '../../src/server.js';
import { newId } from '../../src/domain/ids.js';
import {
  createAgent,
  errorCode,
  gql,
  gqlOk,
  h,
  newWorkspace,
  TEST_SECRETS_KEY,
  type GqlResult,
  type TestWorkspace,
} from '../helpers/harness.js';

// Agents as code over GraphQL: export → plan → apply, on the embedded database and on PostgreSQL.

const SIGNING_SECRET = 'whsec-very-secret-signing-value-1234567890';
const MODEL_KEY_SECRET = 'sk-model-api-key-value-0987654321';

const EXPORT = 'query($ids: [ID!], $r: Boolean) { exportAgents(ids: $ids, withRecords: $r) }';
const PLAN =
  'query($y: String!, $p: Boolean) { planManifest(yaml: $y, prune: $p) { digest hasChanges changes { agent action path before after applied } missing { kind name agent field line column } } }';
const APPLY =
  'mutation($y: String!, $d: String!, $p: Boolean) { applyManifest(yaml: $y, planDigest: $d, prune: $p) { changed changes { action path } agents { name id action } } }';

async function configureModel(url: string, token: string, name: string) {
  await gqlAt(url, token, 'mutation($i: ConfigureModelInput!) { configureModel(input: $i) { name } }', {
    i: { name, provider: 'OPENAI_COMPATIBLE', model: name, baseUrl: 'http://127.0.0.1:9/v1' },
  });
}

/** GraphQL against any service (the harness's or the second one). */
async function gqlAt<T = any>(
  url: string,
  token: string,
  query: string,
  variables?: Record<string, unknown>,
): Promise<T> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as GqlResult<T>;
  if (body.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
  return body.data;
}

async function planAndApply(token: string, yaml: string, prune = false) {
  const plan = (await gqlOk(token, PLAN, { y: yaml, p: prune })).planManifest;
  const applied = (await gqlOk(token, APPLY, { y: yaml, d: plan.digest, p: prune })).applyManifest;
  return { plan, applied };
}

/** An agent with every kind of entry, built through the ordinary mutations. */
async function buildFullAgent(ws: TestWorkspace): Promise<string> {
  const t = ws.adminToken;
  await gqlOk(
    t,
    'mutation { createSecret(name: "stripe-signing", kind: WEBHOOK_SIGNING_SECRET, value: "' +
      SIGNING_SECRET +
      '") { name } }',
  );
  await gqlOk(
    t,
    'mutation { createSecret(name: "model-key", kind: MODEL_API_KEY, value: "' + MODEL_KEY_SECRET + '") { name } }',
  );
  await configureModel(h().url, t, 'gpt-4o-mini');
  await configureModel(h().url, t, 'claude-small');
  const team = (await gqlOk(t, 'mutation { createTeam(name: "support") { id } }')).createTeam.id;
  const id = await createAgent(t, {
    name: 'orders-bot',
    description: 'Answers order questions',
    instructions: 'Be brief.\nAlways cite the order id.',
    defaultModel: 'gpt-4o-mini',
    teamId: team,
    allowWorkspaceKeys: true,
    visibility: 'PRIVATE',
  });
  await gqlOk(
    t,
    `mutation($a: ID!) {
    setCapabilities(agentId: $a, input: { documents: true }) { id }
    setGuardrails(agentId: $a, input: { blockedInputPatterns: ["ignore previous"], redactPresets: [email], maxInputChars: 5000, maxToolSteps: 3 }) { id }
    setAgentLimits(agentId: $a, dailyCreditLimit: 12.5, maxConcurrentRequests: 4) { id }
    setSurface(agentId: $a, surface: WIDGET, enabled: false) { id }
    s2: setSurface(agentId: $a, surface: MCP, activityLogging: false) { id }
    setCors(agentId: $a, allowPlatformApps: false, customOrigins: ["https://shop.example.com"]) { id }
  }`,
    { a: id },
  );
  await gqlOk(
    t,
    `mutation($a: ID!) {
    e1: addHttpEndpoint(agentId: $a, input: { path: "orders/{id}", methods: [GET], handler: { script: "return { id: input.id ?? null };" }, inputSchema: { type: "object" }, outputSchema: { type: "object", properties: { id: { type: "string" } } } }) { id }
    e2: addHttpEndpoint(agentId: $a, input: { path: "summarise", handler: { prompt: "Summarise the order" }, modelOverride: "claude-small", description: "A summary" }) { id }
    t1: addMcpTool(agentId: $a, input: { name: "lookup_order", description: "Find an order", handler: { prompt: "Look it up" }, inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } }) { id }
    w1: addWebhook(agentId: $a, input: { integration: "stripe", handler: { script: "return input;" }, signature: { scheme: STRIPE, secretName: "stripe-signing" }, maxBodyBytes: 200000 }) { id }
    c1: addChannel(agentId: $a, input: { kind: SMS, address: "+1 415 555 0700", handler: { prompt: "Answer by text" }, allowedSenders: ["+442079460700"], autoReply: false }) { id }
    c2: addChannel(agentId: $a, input: { kind: EMAIL, address: "Orders@Mail.Example.com", handler: { script: "return { reply: 'ok' };" }, modelOverride: null }) { id }
  }`,
    { a: id },
  );
  const text = (
    await gqlOk(
      t,
      'mutation($a: ID!) { createDocument(agentId: $a, input: { name: "faq", description: "Questions", content: "Q: Where?\\nA: Here." }) { id } }',
      { a: id },
    )
  ).createDocument.id;
  const db = (
    await gqlOk(
      t,
      'mutation($a: ID!) { createDocument(agentId: $a, input: { name: "orders", kind: DATABASE, fields: [{ name: "ref", type: STRING, required: true }, { name: "total", type: NUMBER }, { name: "meta", type: JSON }] }) { id } }',
      { a: id },
    )
  ).createDocument.id;
  await gqlOk(
    t,
    'mutation($a: ID!, $d: ID!, $f: ID!) { exposeDocument(agentId: $a, documentId: $d, read: true, write: true) { id } e2: exposeDocument(agentId: $a, documentId: $f, read: true, mcp: true) { id } }',
    { a: id, d: db, f: text },
  );
  await h().service.store.repos.records.insertMany(
    db,
    [
      { id: newId('rec'), data: { ref: 'A-1', total: 10, meta: { b: 1, a: [1, 2] } } },
      { id: newId('rec'), data: { ref: 'A-2', total: 20.5 } },
    ],
    new Date(),
  );
  return id;
}

interface Second {
  service: Service;
  db: Knex;
  url: string;
  token: string;
  stop(): Promise<void>;
}

/** A second service on a database of its own (another in-memory database, or a schema of the PostgreSQL test database). */
async function startSecond(): Promise<Second> {
  const url = process.env.TEST_DATABASE_URL || undefined;
  const schema = 'manifest_second';
  if (url) {
    const admin = await openDatabase({ databaseUrl: url });
    await admin.raw(`drop schema if exists ${schema} cascade`);
    await admin.raw(`create schema ${schema}`);
    await closeDatabase(admin);
  }
  const db = await openDatabase({ databaseUrl: url, dataDir: 'memory', searchPath: url ? schema : undefined });
  await migrateLatest(db);
  const token = 'second-service-admin-token-0123456789';
  const config = loadConfig({
    DATABASE_URL: url,
    DATA_DIR: 'memory',
    SECRETS_KEY: TEST_SECRETS_KEY,
    ADMIN_TOKEN: token,
    LOG_LEVEL: 'silent',
    PORT: '0',
  });
  const service = await buildService(config, { db, skipMigrations: true, logger: createLogger('silent') });
  const { url: base } = await service.listen(0, '127.0.0.1');
  return {
    service,
    db,
    url: base,
    token,
    stop: async () => {
      await service.close();
      if (url) await db.raw(`drop schema if exists ${schema} cascade`);
      await closeDatabase(db);
    },
  };
}

/** The rows of the tables a manifest writes, for one workspace, as text (ids and times included). */
async function dump(workspaceId: string): Promise<string> {
  const db = h().db;
  const agents = await db('agents').where({ workspace_id: workspaceId }).orderBy('id');
  const ids = agents.map((a) => a.id);
  const out: Record<string, unknown> = { agents };
  for (const table of [
    'http_endpoints',
    'mcp_tools',
    'webhooks',
    'channels',
    'documents',
    'document_exposures',
    'agent_changes',
  ]) {
    out[table] = await db(table).whereIn('agent_id', ids).orderBy('id');
  }
  out.records = await db('document_records')
    .whereIn('document_id', db('documents').select('id').whereIn('agent_id', ids))
    .orderBy('id');
  out.teams = await db('teams').where({ workspace_id: workspaceId }).orderBy('id');
  out.secrets = await db('secrets').where({ workspace_id: workspaceId }).orderBy('id');
  return JSON.stringify(out);
}

describe('agents as code: exportAgents, planManifest, applyManifest', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  let agentId: string;
  let exported: string;
  let second: Second;

  before(async () => {
    ws = await newWorkspace();
    agentId = await buildFullAgent(ws);
    exported = (await gqlOk(ws.adminToken, EXPORT, { ids: [agentId], r: true })).exportAgents;
    second = await startSecond();
  });
  after(async () => {
    await second?.stop();
  });

  it('exports every kind of entry, secrets by name only', () => {
    for (const s of [
      'apiVersion: agents/v1',
      'kind: Agent',
      'name: orders-bot',
      'team: support',
      'defaultModel: gpt-4o-mini',
      'path: orders/{id}',
      'modelOverride: claude-small',
      'name: lookup_order',
      'integration: stripe',
      'secretName: stripe-signing',
      'scheme: STRIPE',
      'https://shop.example.com',
      'kind: DATABASE',
      'ref: A-1',
      'blockedInputPatterns:',
      'dailyCreditLimit: 12.5',
      'maxBodyBytes: 200000',
      'kind: SMS',
      'address: "+14155550700"',
      'address: orders@mail.example.com',
      '- "+442079460700"',
      'autoReply: false',
    ]) {
      expect(exported).to.include(s);
    }
    // The MCP permission is written where it is on (the text document), and only there.
    expect(exported.match(/\bmcp: true\b/g)).to.have.length(1);
    expect(exported).not.to.include('mcp: false');
    expect(exported).not.to.include(SIGNING_SECRET);
    expect(exported).not.to.include(MODEL_KEY_SECRET);
    expect(exported).not.to.match(/\b(ak|wk|mt)_[A-Za-z0-9]/);
    expect(exported).not.to.match(/\bid: (agt|ep|tool|wh|ch|doc|rec)_/);
  });

  it('exports records only when asked', async () => {
    const without = (await gqlOk(ws.adminToken, EXPORT, { ids: [agentId] })).exportAgents;
    expect(without).not.to.include('records:');
    expect(without).not.to.include('A-1');
    expect(exported).to.include('records:');
  });

  it('round trip: export → apply to an empty workspace of another database → export gives the same text', async () => {
    // The names the manifest refers to must exist there: they are listed as missing, never created.
    const before = (await gqlAt(second.url, second.token, PLAN, { y: exported })).planManifest;
    expect(before.missing.map((m: any) => `${m.kind}:${m.name}`).sort()).to.deep.equal([
      'MODEL:claude-small',
      'MODEL:gpt-4o-mini',
      'SECRET:stripe-signing',
      'TEAM:support',
    ]);
    expect(before.missing.every((m: any) => m.line > 0 && m.column > 0)).to.equal(true);
    await gqlAt(
      second.url,
      second.token,
      'mutation { createSecret(name: "stripe-signing", kind: WEBHOOK_SIGNING_SECRET, value: "other") { name } createTeam(name: "support") { id } }',
    );
    await configureModel(second.url, second.token, 'gpt-4o-mini');
    await configureModel(second.url, second.token, 'claude-small');

    const plan = (await gqlAt(second.url, second.token, PLAN, { y: exported })).planManifest;
    expect(plan.missing).to.deep.equal([]);
    expect(plan.changes).to.have.length(1);
    expect(plan.changes[0]).to.include({ agent: 'orders-bot', action: 'CREATE', path: 'agent' });
    const applied = (await gqlAt(second.url, second.token, APPLY, { y: exported, d: plan.digest })).applyManifest;
    expect(applied.changed).to.equal(true);
    expect(applied.agents[0]).to.include({ name: 'orders-bot', action: 'CREATED' });
    const again = (await gqlAt(second.url, second.token, EXPORT, { r: true })).exportAgents;
    expect(again).to.equal(exported);
  });

  it('applying the same manifest twice changes nothing the second time', async () => {
    const { plan, applied } = await planAndApply(ws.adminToken, exported);
    expect(plan.hasChanges).to.equal(false);
    expect(plan.changes).to.deep.equal([]);
    expect(applied.changed).to.equal(false);
    expect(applied.agents).to.deep.equal([{ name: 'orders-bot', id: agentId, action: 'UNCHANGED' }]);
  });

  it("a changed file's plan lists exactly its changes, and apply makes them, with one change entry naming the member", async () => {
    const member = await ws.addMember('MEMBER');
    const visible = exported.replace('visibility: PRIVATE', 'visibility: WORKSPACE');
    await planAndApply(ws.adminToken, visible);
    const changed = visible
      .replace('Always cite the order id.', 'Always cite the order number.')
      .replace('maxToolSteps: 3', 'maxToolSteps: 4')
      .replace('prompt: Summarise the order', 'prompt: Summarise the order briefly')
      .replace(
        '  mcp:\n    tools:\n',
        '  mcp:\n    tools:\n      - name: cancel_order\n        description: Cancel it\n        handler:\n          prompt: Cancel the order\n',
      );
    expect(changed).not.to.equal(visible);
    const plan = (await gqlOk(member.token, PLAN, { y: changed })).planManifest;
    expect(plan.changes.map((c: any) => `${c.action} ${c.path}`)).to.deep.equal([
      'UPDATE spec.instructions',
      'UPDATE spec.guardrails.maxToolSteps',
      'UPDATE spec.httpApi.endpoints[path=summarise]',
      'CREATE spec.mcp.tools[name=cancel_order]',
    ]);
    const summarise = plan.changes[2];
    expect(summarise.before.handler).to.deep.equal({ prompt: 'Summarise the order' });
    expect(summarise.after.handler).to.deep.equal({ prompt: 'Summarise the order briefly' });
    const applied = (await gqlOk(member.token, APPLY, { y: changed, d: plan.digest })).applyManifest;
    expect(applied.changes).to.have.length(4);
    const a = (
      await gqlOk(
        ws.adminToken,
        'query($id: ID!) { agent(id: $id) { instructions guardrails { maxToolSteps } mcpTools { name } changeLog { memberId source changes { action path } } } }',
        { id: agentId },
      )
    ).agent;
    expect(a.instructions).to.equal('Be brief.\nAlways cite the order number.');
    expect(a.guardrails.maxToolSteps).to.equal(4);
    expect(a.mcpTools.map((t: any) => t.name).sort()).to.deep.equal(['cancel_order', 'lookup_order']);
    expect(a.changeLog[0].memberId).to.equal(member.memberId);
    expect(a.changeLog[0].source).to.equal('manifest');
    expect(a.changeLog[0].changes).to.have.length(4);
    // Back to the exported text: the tool absent from the file is reported, removed only with prune.
    const back = await planAndApply(ws.adminToken, visible);
    expect(back.plan.changes.find((c: any) => c.path === 'spec.mcp.tools[name=cancel_order]')).to.include({
      action: 'DELETE',
      applied: false,
    });
    const pruned = await planAndApply(ws.adminToken, visible, true);
    expect(pruned.applied.changes).to.deep.equal([{ action: 'DELETE', path: 'spec.mcp.tools[name=cancel_order]' }]);
    expect((await gqlOk(ws.adminToken, EXPORT, { ids: [agentId], r: true })).exportAgents).to.equal(visible);
    await planAndApply(ws.adminToken, exported);
  });

  it('a plan made before someone else changed the agent is refused at apply (CONFLICT)', async () => {
    const changed = exported.replace('maxToolSteps: 3', 'maxToolSteps: 6');
    const plan = (await gqlOk(ws.adminToken, PLAN, { y: changed })).planManifest;
    await gqlOk(ws.adminToken, 'mutation($a: ID!) { setAgentLimits(agentId: $a, maxConcurrentRequests: 9) { id } }', {
      a: agentId,
    });
    const before = await dump(ws.workspaceId);
    const r = await gql(ws.adminToken, APPLY, { y: changed, d: plan.digest });
    expect(errorCode(r)).to.equal('CONFLICT');
    expect(r.errors![0]!.message).to.match(/plan again/);
    expect(await dump(ws.workspaceId)).to.equal(before);
    // A digest of another manifest is refused too.
    const other = (await gqlOk(ws.adminToken, PLAN, { y: exported })).planManifest;
    expect(errorCode(await gql(ws.adminToken, APPLY, { y: changed, d: other.digest }))).to.equal('CONFLICT');
    await gqlOk(ws.adminToken, 'mutation($a: ID!) { setAgentLimits(agentId: $a, maxConcurrentRequests: 4) { id } }', {
      a: agentId,
    });
  });

  it('two applies planned on the same state take turns: one applies, the other is refused (CONFLICT)', async () => {
    const six = exported.replace('maxToolSteps: 3', 'maxToolSteps: 6');
    const seven = exported.replace('maxToolSteps: 3', 'maxToolSteps: 7');
    const [p6, p7] = await Promise.all([
      gqlOk(ws.adminToken, PLAN, { y: six }),
      gqlOk(ws.adminToken, PLAN, { y: seven }),
    ]);
    const results = await Promise.all([
      gql(ws.adminToken, APPLY, { y: six, d: p6.planManifest.digest }),
      gql(ws.adminToken, APPLY, { y: seven, d: p7.planManifest.digest }),
    ]);
    const codes = results.map((r) => (r.errors ? errorCode(r) : 'OK')).sort();
    expect(codes).to.deep.equal(['CONFLICT', 'OK']);
    const won = results[0]!.errors ? 7 : 6;
    const { agent } = await gqlOk(
      ws.adminToken,
      'query($a: ID!) { agent(id: $a) { guardrails { maxToolSteps } changeLog { id } } }',
      { a: agentId },
    );
    expect(agent.guardrails.maxToolSteps).to.equal(won);
    await planAndApply(ws.adminToken, exported);
  });

  it('an invalid manifest gets every error with its line and column, and changes nothing', async () => {
    const bad = `apiVersion: agents/v1
kind: Agent
metadata:
  name: orders-bot
spec:
  visibility: 42
  colour: blue
  httpApi:
    endpoints:
      - path: orders/{id}
        handler:
          script: |
            const a = 1;
            return a +;
      - path: orders/{other}
        handler:
          prompt: Hi
  webhooks:
    integrations:
      - integration: github
        handler:
          prompt: Handle it
        signature:
          secretName: no-such-secret
`;
    const before = await dump(ws.workspaceId);
    const plan = await gql(ws.adminToken, PLAN, { y: bad });
    expect(errorCode(plan)).to.equal('BAD_USER_INPUT');
    const errors = plan.errors![0]!.extensions!.errors as {
      field: string;
      line: number;
      column: number;
      message: string;
    }[];
    const at = (field: string) => errors.find((e) => e.field === field);
    expect(at('spec.visibility')).to.include({ line: 6, column: 15 });
    expect(at('spec.colour')).to.include({ line: 7, column: 3 });
    expect(at('spec.colour')!.message).to.match(/unknown field 'colour'/);
    expect(plan.errors![0]!.extensions).to.include({ line: 6, column: 15 });
    // The schema errors hide nothing (issue 51): the script's syntax error and the duplicate path
    // come in the same answer, each at its line and column.
    expect(at('spec.httpApi.endpoints.0.handler.script')).to.include({ line: 14 });
    expect(at('spec.httpApi.endpoints.0.handler.script')!.column).to.be.within(13, 24);
    expect(at('spec.httpApi.endpoints.1.path')).to.include({ line: 15, column: 15 });
    expect(at('spec.httpApi.endpoints.1.path')!.message).to.match(/appears twice/);
    expect(errors.map((e) => e.field)).to.have.length(4);
    expect(plan.errors![0]!.message).to.match(
      /^The manifest has 4 errors: line 6, column 15: spec\.visibility: .*line 7, column 3: spec\.colour: .*line 14, column \d+: spec\.httpApi\.endpoints\.0\.handler\.script: .*line 15, column 15: spec\.httpApi\.endpoints\.1\.path: /,
    );

    // Without the type errors, the rest is reported at once: bad script, duplicate path, missing secret.
    const rest = bad.replace('  visibility: 42\n  colour: blue\n', '');
    const r = await gql(ws.adminToken, APPLY, { y: rest, d: 'x' });
    expect(errorCode(r)).to.equal('BAD_USER_INPUT');
    const errs = r.errors![0]!.extensions!.errors as { field: string; line: number; column: number; message: string }[];
    const fields = errs.map((e) => e.field);
    expect(fields).to.include.members([
      'spec.httpApi.endpoints.0.handler.script',
      'spec.httpApi.endpoints.1.path',
      'spec.webhooks.integrations.0.signature.secretName',
    ]);
    const script = errs.find((e) => e.field === 'spec.httpApi.endpoints.0.handler.script')!;
    expect(script.line).to.equal(12);
    expect(errs.find((e) => e.field === 'spec.httpApi.endpoints.1.path')).to.include({ line: 13, column: 15 });
    expect(errs.find((e) => e.field === 'spec.webhooks.integrations.0.signature.secretName')).to.include({
      line: 22,
      column: 23,
    });
    expect(r.errors![0]!.message).to.match(/line 12/);
    expect(await dump(ws.workspaceId)).to.equal(before);
  });

  it('refuses YAML syntax errors, unknown kinds and oversized input with clear errors', async () => {
    const syntax = await gql(ws.adminToken, PLAN, { y: 'apiVersion: agents/v1\nkind: [Agent\n' });
    expect(errorCode(syntax)).to.equal('BAD_USER_INPUT');
    expect(syntax.errors![0]!.extensions!.line).to.be.a('number');
    const kind = await gql(ws.adminToken, PLAN, { y: 'apiVersion: agents/v2\nkind: Agent\nmetadata: {name: x}\n' });
    expect(kind.errors![0]!.message).to.match(/apiVersion: must be "agents\/v1"/);
    const dup = await gql(ws.adminToken, PLAN, { y: 'apiVersion: agents/v1\napiVersion: agents/v1\n' });
    expect(errorCode(dup)).to.equal('BAD_USER_INPUT');
    const empty = await gql(ws.adminToken, PLAN, { y: '' });
    expect(empty.errors![0]!.message).to.match(/no document/);
    const bomb = await gql(ws.adminToken, PLAN, {
      y: 'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n',
    });
    expect(errorCode(bomb)).to.equal('BAD_USER_INPUT');
    const deep = await gql(ws.adminToken, PLAN, { y: '['.repeat(50_000) });
    expect(errorCode(deep)).to.equal('BAD_USER_INPUT');
    const big = h().service.services.manifests.plan(
      { kind: 'member', memberId: ws.adminId, workspaceId: ws.workspaceId, role: 'ADMIN' },
      'x'.repeat(1024 * 1024 + 1),
    );
    await big.then(
      () => expect.fail('accepted'),
      (err: Error) => expect(err.message).to.match(/larger than 1 MiB/),
    );
  });

  it('export and plan refuse other principals and unknown ids', async () => {
    const hidden = await createAgent(ws.adminToken, { name: 'hidden', visibility: 'PRIVATE' });
    const member = await ws.addMember('MEMBER');
    expect(errorCode(await gql(member.token, EXPORT, { ids: [hidden] }))).to.equal('NOT_FOUND');
    const all = (await gqlOk(member.token, EXPORT, {})).exportAgents;
    expect(all).not.to.include('name: hidden');
    expect(errorCode(await gql(undefined, EXPORT, {}))).to.equal('UNAUTHENTICATED');
    await gqlOk(ws.adminToken, 'mutation($id: ID!) { deleteAgent(id: $id) }', { id: hidden });
  });

  it('serves the JSON Schema publicly, cacheable', async () => {
    const res = await fetch(`${h().url}/schemas/agent-manifest.v1.json`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('cache-control')).to.match(/public/);
    const schema = (await res.json()) as any;
    expect(schema.$schema).to.equal('https://json-schema.org/draft/2020-12/schema');
    expect(schema.properties.spec.additionalProperties).to.equal(false);
    const again = await fetch(`${h().url}/schemas/agent-manifest.v1.json`, {
      headers: { 'if-none-match': res.headers.get('etag')! },
    });
    expect(again.status).to.equal(304);
  });
});
