import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { aesRunner, type Aes } from '../helpers/cli.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';
import { until } from '../helpers/until.js';

// Agent names are handles (issue 51): the README's First steps done once in the console and once
// with curl give two "Support bot"s. The CLI then names each by its slug — `aes export` writes
// `<slug>.yaml`, `aes call|logs|keys <slug>` reach that agent — and a diff that passed before the
// second one existed still passes.

const ADMIN_TOKEN = 'cli-handles-e2e-admin-token-0123';

describe('e2e: the aes CLI — agents by their handles', function () {
  this.timeout(120_000);
  let svc: E2eService;
  let aes: Aes;
  const env = () => ({ AES_URL: svc.url, AES_TOKEN: ADMIN_TOKEN });
  /** A "Support bot" whose `hello` endpoint says which one it is, as the README's First steps make it. */
  const supportBot = async (which: string) => {
    const { id, slug } = (
      await svc.gql('mutation { createAgent(input: { name: "Support bot", instructions: "Be brief." }) { id slug } }')
    ).createAgent as { id: string; slug: string };
    await svc.gql(
      `mutation($a: ID!) { addHttpEndpoint(agentId: $a, input: { path: "hello", methods: [GET, POST], handler: { script: "return { which: '${which}' };" } }) { id } }`,
      { a: id },
    );
    return { id, slug };
  };

  before(async () => {
    svc = await startE2eService('cli_handles_e2e', { adminToken: ADMIN_TOKEN });
    aes = aesRunner();
  });
  after(async () => {
    await svc?.stop();
    aes?.cleanup();
  });

  it('two "Support bot"s: export by slug, call/logs/keys by slug, and the earlier diff still passes', async () => {
    const first = await supportBot('first');
    expect(first.slug).to.equal('support-bot');
    const dir = path.join(svc.dataDir, 'agents');
    const exported = await aes.run(['export', '-o', dir], { env: env() });
    expect(exported.code, exported.stderr).to.equal(0);
    expect(fs.readdirSync(dir)).to.deep.equal(['support-bot.yaml']);
    // The exported file's name is the handle the README's own style uses.
    const called = await aes.run(['call', 'support-bot', 'hello'], { env: env() });
    expect(called.code, called.stderr).to.equal(0);
    expect(JSON.parse(called.stdout).output).to.deep.equal({ which: 'first' });
    const clean = await aes.run(['diff', '-f', dir], { env: env() });
    expect(clean.code, clean.stdout + clean.stderr).to.equal(0);

    const second = await supportBot('second');
    expect(second.slug).to.equal('support-bot-2');
    const still = await aes.run(['diff', '-f', dir], { env: env() });
    expect(still.code, still.stdout + still.stderr).to.equal(0);
    for (const [ref, which] of [
      ['support-bot', 'first'],
      ['support-bot-2', 'second'],
      [second.id, 'second'],
    ] as const) {
      const r = await aes.run(['call', ref, 'hello'], { env: env() });
      expect(r.code, `${ref}: ${r.stderr}`).to.equal(0);
      expect(JSON.parse(r.stdout).output, ref).to.deep.equal({ which });
    }
    const byName = await aes.run(['call', 'Support bot', 'hello'], { env: env() });
    expect(byName.code).to.equal(1);
    expect(byName.stderr).to.contain("2 agents are named 'Support bot': give the slug (support-bot, support-bot-2)");

    const logs = await until(
      "the second agent's call in its log",
      async () => {
        const r = await aes.run(['logs', 'support-bot-2', '-o', 'json'], { env: env() });
        expect(r.code, r.stderr).to.equal(0);
        const entries = JSON.parse(r.stdout) as { path: string | null; status: number | null }[];
        return entries.filter((e) => e.path?.endsWith('hello') && e.status === 200).length === 2 ? entries : undefined;
      },
      20_000,
    );
    expect(logs.every((e) => e.path?.endsWith('hello'))).to.equal(true); // its two calls (by slug, by id), none of the first's
    const key = await aes.run(['keys', 'create', 'support-bot-2', '--name', 'ci', '-o', 'json'], { env: env() });
    expect(key.code, key.stderr).to.equal(0);
    expect(JSON.parse(key.stdout).agentId).to.equal(second.id);
    const listed = await aes.run(['keys', 'list', 'support-bot-2', '-o', 'json'], { env: env() });
    expect((JSON.parse(listed.stdout) as { name: string }[]).map((k) => k.name)).to.include('ci');
    const agents = await aes.run(['agents', 'list'], { env: env() });
    expect(agents.stdout.split('\n')[0]).to.match(/^SLUG\s+NAME\s+ID\s/);
    expect(agents.stdout).to.match(/^support-bot-2\s+Support bot\s+agt_/m);

    const again = path.join(svc.dataDir, 'again');
    expect((await aes.run(['export', '-o', again], { env: env() })).code).to.equal(0);
    expect(fs.readdirSync(again).sort()).to.deep.equal(['support-bot-2.yaml', 'support-bot.yaml']);
    const slugOf = (file: string) => parse(fs.readFileSync(path.join(again, file), 'utf8')).metadata.slug;
    expect(slugOf('support-bot-2.yaml')).to.equal('support-bot-2');
    const both = await aes.run(['diff', '-f', again], { env: env() });
    expect(both.code, both.stdout + both.stderr).to.equal(0);
  });
});
