import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { aesRunner, type Aes } from '../helpers/cli.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';
import { until } from '../helpers/until.js';

// `aes call`, `aes chat` and `aes logs` run as a user runs them (the installed bin in a child
// process) against the service started in the test process, answering from the local
// OpenAI-compatible model server.

const ADMIN_TOKEN = 'cli-calls-e2e-admin-token-01234';

describe('e2e: the aes CLI — call, chat, logs', function () {
  this.timeout(120_000);
  let svc: E2eService;
  let aes: Aes;
  let agentId: string;
  let agentKey: string;
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);
  const env = () => ({ AES_URL: svc.url, AES_TOKEN: ADMIN_TOKEN });
  const keys = async () =>
    (
      await gql('query($id: ID!) { agent(id: $id) { apiKeys { id name expiresAt revokedAt origin } } }', {
        id: agentId,
      })
    ).agent.apiKeys as {
      id: string;
      name: string;
      expiresAt: string | null;
      revokedAt: string | null;
      origin: string;
    }[];

  before(async () => {
    svc = await startE2eService('cli_calls_e2e', { adminToken: ADMIN_TOKEN });
    aes = aesRunner();
    agentId = (
      await gql(
        'mutation { createAgent(input: { name: "shop", instructions: "You are the shop assistant.", defaultModel: "fake-model" }) { id } }',
      )
    ).createAgent.id;
    await gql(
      `mutation($a: ID!) {
      e1: addHttpEndpoint(agentId: $a, input: { path: "echo/{word}", methods: [GET, POST], handler: { script: "return { word: request.params.word, input };" } }) { id }
      e2: addHttpEndpoint(agentId: $a, input: { path: "summary", methods: [POST], handler: { prompt: "Summarise the order" } }) { id }
    }`,
      { a: agentId },
    );
    agentKey = (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "test") { key } }', { a: agentId }))
      .createAgentApiKey.key;
  });

  after(async () => {
    await svc?.stop();
    aes?.cleanup();
  });

  describe('call', () => {
    it('calls an endpoint with --key (no login needed with the agent id), as text and as JSON', async () => {
      const r = await aes.run(['call', agentId, 'echo/hello', '--key', agentKey], { env: { AES_URL: svc.url } });
      expect(r.code, r.stderr).to.equal(0);
      expect(JSON.parse(r.stdout).output).to.deep.equal({ word: 'hello', input: null });
      const j = await aes.run(['call', 'shop', 'echo/there', '--data', '{"n": 1}', '-o', 'json'], {
        env: { ...env(), AES_AGENT_KEY: agentKey },
      });
      expect(j.code, j.stderr).to.equal(0);
      expect(JSON.parse(j.stdout)).to.deep.include({ status: 200 });
      expect(JSON.parse(j.stdout).body.output).to.deep.equal({ word: 'there', input: { n: 1 } });
      expect((await keys()).map((k) => k.name)).to.deep.equal(['test']);
    });

    it('without a key makes a temporary labelled key (marked CLI, expiring within the hour) and revokes it after the call', async () => {
      const payload = path.join(svc.dataDir, 'payload.json');
      fs.writeFileSync(payload, '{"from": "file"}');
      const r = await aes.run(['call', 'shop', 'echo/temp', '-X', 'POST', '--data', `@${payload}`], { env: env() });
      expect(r.code, r.stderr).to.equal(0);
      expect(JSON.parse(r.stdout).output).to.deep.equal({ word: 'temp', input: { from: 'file' } });
      const temporary = (await keys()).filter((k) => k.name.startsWith('aes cli — '));
      expect(temporary).to.have.length(1);
      expect(temporary[0]!.name).to.equal(`aes cli — ${os.hostname()}`);
      expect(temporary[0]!.origin).to.equal('CLI');
      expect(temporary[0]!.revokedAt).to.be.a('string');
      expect(Date.parse(temporary[0]!.expiresAt!) - Date.now()).to.be.within(0, 3_600_000);
    });

    it('--stream prints the deltas as they arrive', async () => {
      svc.fake.enqueue({ text: 'Order 42 ships today from Oslo.', chunkDelayMs: 150 });
      const p = aes.start(['call', 'shop', 'summary', '--data', '{}', '--stream', '--key', agentKey], { env: env() });
      p.child.stdin!.end();
      const code = await p.exited;
      expect(code, p.stderr()).to.equal(0);
      expect(p.stdout()).to.equal('Order 42 ships today from Oslo.\n');
      expect(p.chunks.length).to.be.greaterThan(2);
      expect(p.chunks[p.chunks.length - 1]!.at - p.chunks[0]!.at).to.be.greaterThan(300);
      svc.fake.enqueue({ text: 'Two words' });
      const j = await aes.run(
        ['call', 'shop', 'summary', '--data', '{}', '--stream', '--key', agentKey, '-o', 'json'],
        { env: env() },
      );
      const events = j.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(
        events
          .filter((e) => e.event === 'delta')
          .map((e) => e.data.text)
          .join(''),
      ).to.equal('Two words');
      expect(events[events.length - 1]).to.include({ event: 'done' });
      expect(events[events.length - 1].data.output).to.equal('Two words');
    });

    it('reports HTTP errors, bad JSON and unreachable services clearly', async () => {
      const notFound = await aes.run(['call', 'shop', 'nope', '--key', agentKey], { env: env() });
      expect(notFound.code).to.equal(1);
      expect(notFound.stderr).to.match(/^aes: GET http:\/\/127\.0\.0\.1:\d+\/agents\/agt_\w+\/api\/nope: HTTP 404: /);
      const badJson = await aes.run(['call', 'shop', 'echo/x', '--data', '{nope', '--key', agentKey], { env: env() });
      expect(badJson.code).to.equal(1);
      expect(badJson.stderr).to.match(/^aes: --data is not JSON: /);
      const down = await aes.run(['call', agentId, 'echo/x', '--key', agentKey], {
        env: { AES_URL: 'http://127.0.0.1:9' },
      });
      expect(down.code).to.equal(1);
      expect(down.stderr).to.contain(`cannot reach http://127.0.0.1:9/agents/${agentId}/api/echo/x`);
    });

    it('a key revoked with aes keys revoke gets 401 on call --key', async () => {
      const created = JSON.parse(
        (await aes.run(['keys', 'create', 'shop', '--name', 'short-lived', '-o', 'json'], { env: env() })).stdout,
      );
      expect((await aes.run(['call', agentId, 'echo/ok', '--key', created.key], { env: env() })).code).to.equal(0);
      const revoked = await aes.run(['keys', 'revoke', created.id], { env: env() });
      expect(revoked.code, revoked.stderr).to.equal(0);
      expect(revoked.stdout).to.equal(`Revoked ${created.id}.\n`);
      const r = await aes.run(['call', agentId, 'echo/ok', '--key', created.key], { env: env() });
      expect(r.code).to.equal(1);
      expect(r.stderr).to.match(/HTTP 401: .* — check the agent key \(--key, AES_AGENT_KEY\)\n$/);
      expect(r.stderr).not.to.contain(created.key);
    });
  });

  describe('chat', () => {
    it('chats through piped input: one message a line, two turns in one conversation, exits at EOF', async () => {
      svc.fake.enqueue({ text: 'Hello! How can I help?' }, { text: 'Order 42 is on its way.' });
      const before = svc.fake.requests.length;
      const r = await aes.run(['chat', 'shop', '-o', 'json'], {
        env: env(),
        input: 'Hi there\n\nWhere is order 42?\n',
      });
      expect(r.code, r.stderr).to.equal(0);
      const turns = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(turns.map((t) => [t.message, t.output])).to.deep.equal([
        ['Hi there', 'Hello! How can I help?'],
        ['Where is order 42?', 'Order 42 is on its way.'],
      ]);
      expect(turns[0].conversationId).to.match(/^conv_/);
      expect(turns[1].conversationId).to.equal(turns[0].conversationId);
      const second = svc.fake.requests[before + 1]!.body.messages!.map((m) => m.content).join('\n');
      expect(second).to.contain('Hi there');
      expect(second).to.contain('Hello! How can I help?');
      const temporary = (await keys()).filter((k) => k.name.startsWith('aes cli — ') && !k.revokedAt);
      expect(temporary).to.deep.equal([]);
    });

    it('prints the streamed answers as text', async () => {
      svc.fake.enqueue({ text: 'First answer.' }, { text: 'Second answer.' });
      const r = await aes.run(['chat', 'shop', '--key', agentKey], { env: env(), input: 'one\ntwo' });
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.equal('First answer.\nSecond answer.\n');
    });

    it('stops with a clear error when the widget surface is off', async () => {
      await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: WIDGET, enabled: false) { id } }', {
        a: agentId,
      });
      try {
        const r = await aes.run(['chat', 'shop', '--key', agentKey], { env: env(), input: 'hello\n' });
        expect(r.code).to.equal(1);
        expect(r.stderr).to.match(/HTTP 403: .* — is the WIDGET surface on for this agent\?\n$/);
      } finally {
        await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: WIDGET, enabled: true) { id } }', {
          a: agentId,
        });
      }
    });
  });

  describe('logs', () => {
    it('shows the activity log newest last, filtered by surface and status, as text and JSON', async () => {
      const all = await aes.run(['logs', 'shop', '-n', '50', '-o', 'json'], { env: env() });
      expect(all.code, all.stderr).to.equal(0);
      const entries = JSON.parse(all.stdout) as {
        createdAt: string;
        surface: string;
        status: number | null;
        path: string | null;
      }[];
      expect(entries.length).to.be.greaterThan(3);
      const times = entries.map((e) => Date.parse(e.createdAt));
      expect(times).to.deep.equal([...times].sort((a, b) => a - b));
      expect(new Set(entries.map((e) => e.surface))).to.deep.equal(new Set(['HTTP_API', 'WIDGET']));
      const http = JSON.parse(
        (await aes.run(['logs', 'shop', '--surface', 'http_api', '--status', '4xx', '-o', 'json'], { env: env() }))
          .stdout,
      ) as typeof entries;
      expect(http.length).to.be.greaterThan(0);
      expect(http.every((e) => e.surface === 'HTTP_API' && e.status! >= 400 && e.status! < 500)).to.equal(true);
      const text = await aes.run(['logs', 'shop', '--surface', 'HTTP_API', '-n', '3'], { env: env() });
      expect(text.stdout.trim().split('\n')).to.have.length(3);
      expect(text.stdout).to.match(/^\d{4}-\d{2}-\d{2}T\S+Z {2}HTTP_API/m);
      const bad = await aes.run(['logs', 'shop', '--surface', 'SMTP'], { env: env() });
      expect(bad.code).to.equal(1);
      expect(bad.stderr).to.equal(
        "aes: unknown surface 'SMTP': use HTTP_API, DOCUMENT_API, MCP, WEBHOOKS, WIDGET, OPENAI, A2A, EMAIL, SMS\n",
      );
    });

    it('--follow picks up a new call, and ends on Ctrl-C (SIGINT) with exit 0', async () => {
      const p = aes.start(['logs', 'shop', '--follow', '--interval', '0.3', '-n', '1', '-o', 'json'], { env: env() });
      await until('the first entry', async () => (p.stdout().includes('\n') ? true : undefined), 20_000);
      const res = await fetch(`${svc.url}/agents/${agentId}/api/echo/followed`, {
        headers: { 'x-agent-access-key': agentKey },
      });
      expect(res.status).to.equal(200);
      const line = await until(
        'the new call in the followed log',
        async () =>
          p
            .stdout()
            .split('\n')
            .find((l) => l.includes('echo/followed')),
        20_000,
      );
      expect(JSON.parse(line)).to.include({ surface: 'HTTP_API', method: 'GET', status: 200 });
      p.child.kill('SIGINT');
      expect(await p.exited).to.equal(0);
    });
  });
});
