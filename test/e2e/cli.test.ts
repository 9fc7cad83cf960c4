import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { clientConfigs, mcpUrl, serverName } from '../../packages/cli/src/shared/mcp-configs.js';
import { aesRunner, type Aes } from '../helpers/cli.js';
import { gqlOk, h, newWorkspace } from '../helpers/harness.js';
import { ROOT } from '../helpers/process.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';

// The `aes` CLI run as a user runs it (the installed bin in a child process) against the service
// started in the test process: login and whoami, agents, export → edit → diff → apply, refusals
// (no confirmation, a stale plan, an invalid manifest), keys, MCP configurations, every command's
// help, and the round trip export → apply to a second service on its own database → export.

const ADMIN_TOKEN = 'cli-e2e-admin-token-0123456789';
const SIGNING_SECRET = 'whsec-cli-signing-value-0123456789abcdef';

describe('e2e: the aes CLI — login, agents, agents as code, keys, MCP configurations', function () {
  this.timeout(120_000);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-cli-files-'));
  let svc: E2eService;
  let aes: Aes;
  let agentId: string;
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);
  const env = () => ({ AES_URL: svc.url, AES_TOKEN: ADMIN_TOKEN });
  const json = (s: string) => JSON.parse(s);

  before(async () => {
    svc = await startE2eService('cli_e2e', { adminToken: ADMIN_TOKEN });
    aes = aesRunner();
    await gql(
      'mutation { createSecret(name: "stripe-signing", kind: WEBHOOK_SIGNING_SECRET, value: "' +
        SIGNING_SECRET +
        '") { name } }',
    );
    const team = (await gql('mutation { createTeam(name: "support") { id } }')).createTeam.id;
    agentId = (
      await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
        i: {
          name: 'orders-bot',
          description: 'Answers order questions',
          instructions: 'Be brief.',
          defaultModel: 'fake-model',
          teamId: team,
        },
      })
    ).createAgent.id;
    await gql(
      `mutation($a: ID!) {
      setGuardrails(agentId: $a, input: { blockedInputPatterns: ["ignore previous"], maxToolSteps: 3 }) { id }
      setAgentLimits(agentId: $a, dailyCreditLimit: 12.5) { id }
      setSurface(agentId: $a, surface: MCP, activityLogging: false) { id }
      e1: addHttpEndpoint(agentId: $a, input: { path: "orders/{id}", methods: [GET], handler: { script: "return { id: request.params.id };" }, inputSchema: { type: "object" } }) { id }
      e2: addHttpEndpoint(agentId: $a, input: { path: "summarise", handler: { prompt: "Summarise the order" }, description: "A summary" }) { id }
      t1: addMcpTool(agentId: $a, input: { name: "lookup_order", description: "Find an order", handler: { prompt: "Look it up" } }) { id }
      w1: addWebhook(agentId: $a, input: { integration: "stripe", handler: { script: "return input;" }, signature: { scheme: STRIPE, secretName: "stripe-signing" } }) { id }
      c1: addChannel(agentId: $a, input: { kind: SMS, address: "+1 415 555 0900", handler: { prompt: "Answer by text" }, autoReply: false }) { id }
    }`,
      { a: agentId },
    );
    const faq = (
      await gql(
        'mutation($a: ID!) { createDocument(agentId: $a, input: { name: "faq", content: "Q: Where?\\nA: Here." }) { id } }',
        { a: agentId },
      )
    ).createDocument.id;
    const orders = (
      await gql(
        'mutation($a: ID!) { createDocument(agentId: $a, input: { name: "orders", kind: DATABASE, fields: [{ name: "ref", type: STRING, required: true }, { name: "total", type: NUMBER }] }) { id } }',
        { a: agentId },
      )
    ).createDocument.id;
    await gql(
      'mutation($a: ID!, $d: ID!, $f: ID!) { exposeDocument(agentId: $a, documentId: $d, read: true, write: true) { id } e2: exposeDocument(agentId: $a, documentId: $f, read: true) { id } }',
      { a: agentId, d: orders, f: faq },
    );
    const key = (
      await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "setup") { key } }', { a: agentId })
    ).createAgentApiKey.key;
    const inserted = await fetch(`${svc.url}/agents/${agentId}/documents/${orders}/data/insert`, {
      method: 'POST',
      headers: { 'x-agent-access-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        items: [
          { ref: 'A-1', total: 10 },
          { ref: 'A-2', total: 20.5 },
        ],
      }),
    });
    expect(inserted.status).to.equal(200);
    await gql('mutation { createAgent(input: { name: "second agent" }) { id } }');
  });

  after(async () => {
    await svc?.stop();
    aes?.cleanup();
    fs.rmSync(work, { recursive: true, force: true });
  });

  describe('login and whoami', () => {
    it('says "not logged in" (exit 4) before a login, and names the URL it cannot reach', async () => {
      const r = await aes.run(['whoami']);
      expect(r.code).to.equal(4);
      expect(r.stderr).to.match(/not logged in: run `aes login --url URL`/);
      const down = await aes.run(['whoami'], { env: { AES_URL: 'http://127.0.0.1:9', AES_TOKEN: 'x' } });
      expect(down.code).to.equal(1);
      expect(down.stderr).to.contain('cannot reach http://127.0.0.1:9/graphql');
      expect(down.stderr).not.to.match(/\n\s+at /);
    });

    it('refuses a wrong token with 401 advice, and saves nothing', async () => {
      const r = await aes.run(['login', '--url', svc.url], { env: { AES_TOKEN: 'not-a-valid-token-000000' } });
      expect(r.code).to.equal(4);
      expect(r.stderr).to.contain('run `aes login');
      expect(fs.existsSync(path.join(aes.configDir, 'config.json'))).to.equal(false);
    });

    it('logs in with the token piped to the prompt, then with AES_TOKEN; the file is 0600 in a 0700 directory', async () => {
      const piped = await aes.run(['login', '--url', `${svc.url}/`], { input: `${ADMIN_TOKEN}\n` });
      expect(piped.code, piped.stderr).to.equal(0);
      expect(piped.stdout).to.match(/^Logged in to http:\/\/127\.0\.0\.1:\d+ as .* \(ADMIN\)\./);
      expect(piped.stdout).not.to.contain(ADMIN_TOKEN);
      const file = path.join(aes.configDir, 'config.json');
      expect(json(fs.readFileSync(file, 'utf8'))).to.deep.equal({ url: svc.url, token: ADMIN_TOKEN });
      expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
      expect(fs.statSync(aes.configDir).mode & 0o777).to.equal(0o700);

      const viaEnv = await aes.run(['login', '--url', svc.url, '-o', 'json'], { env: { AES_TOKEN: ADMIN_TOKEN } });
      expect(viaEnv.code, viaEnv.stderr).to.equal(0);
      const out = json(viaEnv.stdout);
      expect(out.url).to.equal(svc.url);
      expect(out.member.role).to.equal('ADMIN');
      expect(out.configFile).to.equal(file);
      expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
    });

    it('whoami uses the saved login; AES_URL/AES_TOKEN override it', async () => {
      const r = await aes.run(['whoami', '-o', 'json']);
      expect(r.code, r.stderr).to.equal(0);
      expect(json(r.stdout)).to.include({ url: svc.url });
      expect(json(r.stdout).member.role).to.equal('ADMIN');
      const text = await aes.run(['whoami']);
      expect(text.stdout).to.match(/\(ADMIN, mem_\w+\) at http:\/\/127\.0\.0\.1/);
      const overridden = await aes.run(['whoami'], { env: { AES_TOKEN: 'overridden-bad-token-0000' } });
      expect(overridden.code).to.equal(4);
    });
  });

  describe('agents', () => {
    it('lists agents as a table, JSON and YAML', async () => {
      const t = await aes.run(['agents', 'list']);
      expect(t.code, t.stderr).to.equal(0);
      expect(t.stdout.split('\n')[0]).to.match(/^SLUG\s+NAME\s+ID\s+VISIBILITY\s+MODEL\s+ENDPOINTS/);
      expect(t.stdout).to.match(
        new RegExp(`orders-bot\\s+orders-bot\\s+${agentId}\\s+WORKSPACE\\s+fake-model\\s+2\\s+1\\s+1\\s+2`),
      );
      const j = json((await aes.run(['agents', 'list', '-o', 'json'])).stdout);
      expect(j.map((a: { name: string }) => a.name).sort()).to.deep.equal(['orders-bot', 'second agent']);
      expect(j.find((a: { id: string }) => a.id === agentId)).to.include({
        name: 'orders-bot',
        endpoints: 2,
        tools: 1,
        webhooks: 1,
        documents: 2,
      });
      const y = parse((await aes.run(['agents', 'list', '-o', 'yaml'])).stdout);
      expect(y).to.deep.equal(j);
    });

    it('gets one agent by name or id as a table, JSON and YAML; an unknown one is a clear error', async () => {
      const t = await aes.run(['agents', 'get', 'orders-bot']);
      expect(t.code, t.stderr).to.equal(0);
      expect(t.stdout).to.match(new RegExp(`^ID\\s+${agentId}$`, 'm'));
      expect(t.stdout).to.match(/^ENDPOINTS\s+GET orders\/\{id\}; POST summarise$/m);
      const j = json((await aes.run(['agents', 'get', agentId, '-o', 'json'])).stdout);
      expect(j).to.include({ id: agentId, name: 'orders-bot', defaultModel: 'fake-model', instructions: 'Be brief.' });
      expect(j.mcpTools).to.deep.equal([{ name: 'lookup_order', description: 'Find an order' }]);
      expect(parse((await aes.run(['agents', 'get', 'orders-bot', '-o', 'yaml'])).stdout)).to.deep.equal(j);
      const missing = await aes.run(['agents', 'get', 'no-such-agent']);
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.equal(
        "aes: no agent 'no-such-agent' (by slug, id or name) among the agents you can see: `aes agents list` shows them\n",
      );
      const badFormat = await aes.run(['agents', 'get', 'orders-bot', '-o', 'xml']);
      expect(badFormat.code).to.equal(1);
      expect(badFormat.stderr).to.contain("unknown output format 'xml'");
    });
  });

  describe('agents as code: export, diff, apply', () => {
    const dir = () => path.join(work, 'agents');
    const file = () => path.join(dir(), 'orders-bot.yaml');

    it("exports to stdout (the service's text, byte for byte), to a directory, and as JSON", async () => {
      const expected = (await gql('query($ids: [ID!]) { exportAgents(ids: $ids) }', { ids: [agentId] })).exportAgents;
      const out = await aes.run(['export', 'orders-bot']);
      expect(out.code, out.stderr).to.equal(0);
      expect(out.stdout).to.equal(expected);
      expect(out.stdout).not.to.contain(SIGNING_SECRET);
      expect(out.stdout).to.contain(
        '  channels:\n    - kind: SMS\n      address: "+14155550900"\n      autoReply: false\n',
      );
      const toDir = await aes.run(['export', '-o', dir()]);
      expect(toDir.code, toDir.stderr).to.equal(0);
      expect(fs.readdirSync(dir()).sort()).to.deep.equal(['orders-bot.yaml', 'second-agent.yaml']);
      expect(fs.readFileSync(file(), 'utf8')).to.equal(expected);
      const j = json((await aes.run(['export', agentId, '--with-records', '-o', 'json'])).stdout);
      expect(j.agents.map((a: { name: string }) => a.name)).to.deep.equal(['orders-bot']);
      expect(parse(j.yaml).spec.documents.find((d: { name: string }) => d.name === 'orders').records).to.have.length(2);
    });

    it('diff of an unchanged directory exits 0; an edited file exits 2 and lists exactly the changes', async () => {
      const same = await aes.run(['diff', '-f', dir()]);
      expect(same.code, same.stderr).to.equal(0);
      expect(same.stdout).to.equal('No changes: the workspace matches the files.\n');

      const text = fs
        .readFileSync(file(), 'utf8')
        .replace('instructions: Be brief.', 'instructions: Be very brief.')
        .replace('maxToolSteps: 3', 'maxToolSteps: 4');
      fs.writeFileSync(file(), text);
      const d = await aes.run(['diff', '-f', dir()]);
      expect(d.code, d.stderr).to.equal(2);
      expect(d.stdout).to.contain(
        'orders-bot\n  ~ update spec.instructions\n      - Be brief.\n      + Be very brief.\n  ~ update spec.guardrails.maxToolSteps\n      - 3\n      + 4\n',
      );
      expect(d.stdout).to.contain('Plan: 0 to create, 2 to update, 0 to delete.');
      expect(d.stdout).not.to.contain('\x1b[');
      const coloured = await aes.run(['diff', '-f', dir(), '--color']);
      expect(coloured.stdout).to.contain('\x1b[33m~ update spec.instructions\x1b[39m');
      const noColor = await aes.run(['diff', '-f', dir()], { env: { NO_COLOR: '1' } });
      expect(noColor.stdout).not.to.contain('\x1b[');
      const j = await aes.run(['diff', '-f', file(), '-o', 'json']);
      expect(j.code).to.equal(2);
      const plan = json(j.stdout);
      expect(plan.hasChanges).to.equal(true);
      expect(plan.digest).to.match(/^[0-9a-f]{64}$/);
      expect(plan.changes.map((c: { action: string; path: string }) => `${c.action} ${c.path}`)).to.deep.equal([
        'UPDATE spec.instructions',
        'UPDATE spec.guardrails.maxToolSteps',
      ]);
    });

    it('apply without --yes and without a terminal refuses and changes nothing', async () => {
      const r = await aes.run(['apply', '-f', dir()]);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.contain('not applied: stdin is not a terminal, so nobody can confirm — pass --yes');
      expect(
        (await gql('query($id: ID!) { agent(id: $id) { instructions } }', { id: agentId })).agent.instructions,
      ).to.equal('Be brief.');
    });

    it('apply --yes applies; diff then exits 0; applying again changes nothing', async () => {
      const r = await aes.run(['apply', '-f', dir(), '--yes']);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.match(
        /\nupdated {2}orders-bot \(agt_\w+\)\nunchanged {2}second agent \(agt_\w+\)\nApplied 2 changes\.\n$/,
      );
      expect(
        (await gql('query($id: ID!) { agent(id: $id) { instructions guardrails { maxToolSteps } } }', { id: agentId }))
          .agent,
      ).to.deep.equal({ instructions: 'Be very brief.', guardrails: { maxToolSteps: 4 } });
      const d = await aes.run(['diff', '-f', dir()]);
      expect(d.code).to.equal(0);
      const again = await aes.run(['apply', '-f', dir(), '--yes', '-o', 'json']);
      expect(again.code, again.stderr).to.equal(0);
      expect(json(again.stdout)).to.include({ changed: false });
    });

    it('a plan made before someone else changed the agent is refused with CONFLICT (exit 3)', async () => {
      fs.writeFileSync(
        file(),
        fs.readFileSync(file(), 'utf8').replace('instructions: Be very brief.', 'instructions: Be brief again.'),
      );
      const plan = json((await aes.run(['diff', '-f', dir(), '-o', 'json'])).stdout);
      await gql(
        'mutation($id: ID!) { updateAgent(id: $id, input: { description: "changed by someone else" }) { id } }',
        { id: agentId },
      );
      const r = await aes.run(['apply', '-f', dir(), '--yes', '--digest', plan.digest]);
      expect(r.code).to.equal(3);
      expect(r.stderr).to.match(/^aes: CONFLICT: not applied — /);
      expect(r.stderr).to.contain('Run `aes diff` again');
      expect(
        (await gql('query($id: ID!) { agent(id: $id) { instructions } }', { id: agentId })).agent.instructions,
      ).to.equal('Be very brief.');
      const j = await aes.run(['apply', '-f', dir(), '--yes', '--digest', plan.digest, '-o', 'json']);
      expect(j.code).to.equal(3);
    });

    it('an invalid manifest gets every error as file:line:column, exit 1, and changes nothing', async () => {
      const bad = path.join(work, 'bad.yaml');
      fs.writeFileSync(
        bad,
        'apiVersion: agents/v1\nkind: Agent\nmetadata:\n  name: broken\nspec:\n  visibility: NOPE\n  colour: red\n',
      );
      const before = (await aes.run(['export'])).stdout;
      const r = await aes.run(['apply', '-f', file(), '-f', bad, '--yes']);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.contain('aes: the manifest has 2 errors; nothing was changed\n');
      expect(r.stderr).to.contain(`  ${bad}:6:15: spec.visibility: Invalid option`);
      expect(r.stderr).to.contain(`  ${bad}:7:3: spec.colour: unknown field 'colour'`);
      expect(r.stderr).not.to.match(/\n\s+at /);
      const d = await aes.run(['diff', '-f', bad]);
      expect(d.code).to.equal(1);
      expect(d.stderr).to.contain(`${bad}:6:15`);
      expect((await aes.run(['export'])).stdout).to.equal(before);
      const none = await aes.run(['diff', '-f', path.join(work, 'nope.yaml')]);
      expect(none.code).to.equal(1);
      expect(none.stderr).to.equal(`aes: no such file or directory: ${path.join(work, 'nope.yaml')}\n`);
    });

    it('round trip: export from this service → apply to an empty workspace of another service → export is byte for byte the same', async () => {
      const exported = await aes.run(['export', '--with-records']);
      expect(exported.code, exported.stderr).to.equal(0);
      fs.writeFileSync(path.join(work, 'all.yaml'), exported.stdout);
      const ws = await newWorkspace();
      const other = { AES_URL: h().url, AES_TOKEN: ws.adminToken };
      const missing = await aes.run(['diff', '-f', path.join(work, 'all.yaml')], { env: other });
      expect(missing.code).to.equal(1);
      expect(missing.stdout).to.contain('Missing in the workspace');
      expect(missing.stdout).to.match(/all\.yaml:\d+:\d+: secret 'stripe-signing'/);
      await gqlOk(
        ws.adminToken,
        'mutation { createSecret(name: "stripe-signing", kind: WEBHOOK_SIGNING_SECRET, value: "another-signing-secret-value-0123") { name } }',
      );
      await gqlOk(ws.adminToken, 'mutation { createTeam(name: "support") { id } }');
      await gqlOk(
        ws.adminToken,
        'mutation { configureModel(input: { name: "fake-model", provider: OPENAI_COMPATIBLE, model: "fake-model", baseUrl: "http://127.0.0.1:9/v1" }) { name } }',
      );
      const applied = await aes.run(['apply', '-f', path.join(work, 'all.yaml'), '--yes', '-o', 'json'], {
        env: other,
      });
      expect(applied.code, applied.stderr).to.equal(0);
      expect(json(applied.stdout).agents.map((a: { action: string }) => a.action)).to.deep.equal([
        'CREATED',
        'CREATED',
      ]);
      const again = await aes.run(['export', '--with-records'], { env: other });
      expect(again.code, again.stderr).to.equal(0);
      expect(again.stdout).to.equal(exported.stdout);
    });
  });

  it('the GitOps example: its manifest plans cleanly, its workflow diffs on pull requests and applies on main', async () => {
    const d = await aes.run(['diff', '-f', path.join(ROOT, 'examples/gitops/agents')], {
      env: { AES_URL: h().url, AES_TOKEN: (await newWorkspace()).adminToken },
    });
    expect(d.code, d.stderr).to.equal(2);
    expect(d.stdout).to.match(/^orders-bot\n {2}\+ create agent\n/);
    const workflow = parse(fs.readFileSync(path.join(ROOT, 'examples/gitops/.github/workflows/agents.yaml'), 'utf8'));
    expect(Object.keys(workflow.on)).to.deep.equal(['pull_request', 'push']);
    expect(workflow.on.push.branches).to.deep.equal(['main']);
    const runs = (job: string) => workflow.jobs[job].steps.map((s: { run?: string }) => s.run ?? '').join('\n');
    expect(workflow.jobs.plan.if).to.contain('pull_request');
    expect(runs('plan')).to.match(/aes diff -f agents\//);
    expect(workflow.jobs.apply.if).to.contain('refs/heads/main');
    expect(runs('apply')).to.match(/aes apply -f agents\/ --yes/);
    for (const job of ['plan', 'apply'])
      expect(workflow.jobs[job].env).to.deep.equal({
        AES_URL: '${{ secrets.AES_URL }}',
        AES_TOKEN: '${{ secrets.AES_TOKEN }}',
      });
  });

  describe('keys and MCP configurations', () => {
    it('creates a key (printed once), lists it by prefix and last four, revokes it', async () => {
      const created = await aes.run(['keys', 'create', 'orders-bot', '--name', 'ci', '--expires', '7d', '-o', 'json']);
      expect(created.code, created.stderr).to.equal(0);
      const k = json(created.stdout || created.stderr);
      expect(k.key).to.match(/^ak_/);
      expect(Date.parse(k.expiresAt) - Date.now()).to.be.closeTo(7 * 86_400_000, 60_000);
      const human = await aes.run(['keys', 'create', 'orders-bot', '--name', 'website']);
      expect(human.stdout).to.match(/Store it now — it is not shown again:\n\n {2}ak_\S+\n/);
      const list = await aes.run(['keys', 'list', 'orders-bot']);
      expect(list.code, list.stderr).to.equal(0);
      expect(list.stdout).to.contain(`${k.prefix}…${k.last4}`);
      expect(list.stdout).not.to.contain(k.key);
      const all = json((await aes.run(['keys', 'list', '-o', 'json'])).stdout);
      const listed = all.find((x: { id: string }) => x.id === k.id);
      expect(listed).to.include({ name: 'ci', agentName: 'orders-bot', revokedAt: null });
      expect(JSON.stringify(all)).not.to.contain(k.key);
      const revoked = await aes.run(['keys', 'revoke', k.id, '-o', 'json']);
      expect(json(revoked.stdout)).to.deep.equal({ id: k.id, revoked: true });
      const after = json((await aes.run(['keys', 'list', 'orders-bot', '-o', 'json'])).stdout);
      expect(after.find((x: { id: string }) => x.id === k.id).revokedAt).to.be.a('string');
      expect((await aes.run(['keys', 'list', 'orders-bot'])).stdout).to.match(
        new RegExp(`${k.id}\\s+ci\\s+orders-bot\\s+\\S+\\s+revoked`),
      );
      const badExpiry = await aes.run(['keys', 'create', 'orders-bot', '--name', 'x', '--expires', 'soon']);
      expect(badExpiry.code).to.equal(1);
      expect(badExpiry.stderr).to.contain("--expires 'soon' is neither a duration");
    });

    for (const client of ['claude', 'cursor', 'vscode'] as const) {
      it(`mcp config --client ${client} prints what the console shows (a placeholder), and the key with --key`, async () => {
        const expected = clientConfigs(mcpUrl(svc.url, agentId), serverName('orders-bot')).find(
          (c) => c.id === client,
        )!;
        const r = await aes.run(['mcp', 'config', 'orders-bot', '--client', client]);
        expect(r.code, r.stderr).to.equal(0);
        expect(json(r.stdout)).to.deep.equal(expected.config);
        expect(r.stderr).to.contain(`# ${expected.client}: paste into`);
        const j = json((await aes.run(['mcp', 'config', agentId, '--client', client, '-o', 'json'])).stdout);
        expect(j).to.include({ client: expected.client, url: `${svc.url}/agents/${agentId}/mcp` });
        expect(j.config).to.deep.equal(expected.config);
        const withKey = await aes.run(['mcp', 'config', 'orders-bot', '--client', client, '--key', 'ak_test_key_1234']);
        expect(withKey.stdout).to.contain('ak_test_key_1234');
        expect(withKey.stdout).not.to.contain('<your agent key');
      });
    }

    it('refuses an unknown MCP client', async () => {
      const r = await aes.run(['mcp', 'config', 'orders-bot', '--client', 'emacs']);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.equal("aes: unknown client 'emacs': use claude, cursor, vscode\n");
    });
  });

  it('every command has --help with an example', async () => {
    const commands = [
      [],
      ['login'],
      ['whoami'],
      ['agents'],
      ['agents', 'list'],
      ['agents', 'get'],
      ['export'],
      ['diff'],
      ['apply'],
      ['call'],
      ['chat'],
      ['logs'],
      ['keys'],
      ['keys', 'create'],
      ['keys', 'list'],
      ['keys', 'revoke'],
      ['mcp'],
      ['mcp', 'config'],
      ['events'],
      ['events', 'list'],
      ['events', 'deliveries'],
      ['events', 'test'],
    ];
    for (const c of commands) {
      const r = await aes.run([...c, '--help']);
      expect(r.code, c.join(' ')).to.equal(0);
      expect(r.stdout, c.join(' ')).to.match(/Usage: aes/);
      expect(r.stdout, c.join(' ')).to.match(/Examples:\n {2}\$ (\w+=\S+ )?(printf .* \| )?aes /);
    }
    const unknown = await aes.run(['frobnicate']);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.contain("error: unknown command 'frobnicate'");
  });
});
