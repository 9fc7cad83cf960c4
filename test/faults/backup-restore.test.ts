import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { TEST_SECRETS_KEY } from '../helpers/harness.js';
import { graphqlClient, startService, type Started } from '../helpers/process.js';
import { postgresBinDir, privatePostgres, type PrivatePostgres } from './private-postgres.js';
import { onPostgres, until } from './support.js';

// The backup procedure of docs/operations.md, done as an operator does it: `pg_dump -Fc` of the
// database while the service runs, `pg_restore` into an empty database, the service started on
// the copy. The copy serves the same agents with the same keys; a stored signing secret is
// readable with the same SECRETS_KEY, and unreadable (signed deliveries refused, nothing else
// broken) with another one.

const ADMIN_TOKEN = 'faults-backup-restore-admin-token'; // 33 characters
const SIGNING_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('faults: a PostgreSQL backup restored', function () {
  this.timeout(300_000);

  before(onPostgres({ serverBinaries: true }));

  it('pg_dump while it runs, pg_restore into an empty database: the copy serves the same agents, keys, activity and secrets', async () => {
    const server: PrivatePostgres = await privatePostgres();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-faults-backup-'));
    const services: Started[] = [];
    const url = (db: string) => server.url.replace(/\/postgres$/, `/${db}`);
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      await admin.query('create database source');
      await admin.query('create database copy');
      const start = async (db: string, secretsKey = TEST_SECRETS_KEY) => {
        const s = await startService({
          DATABASE_URL: url(db),
          SECRETS_KEY: secretsKey,
          PORT: '0',
          DATA_DIR: dataDir,
          ADMIN_TOKEN,
          LOG_LEVEL: 'warn',
        });
        services.push(s);
        return s;
      };
      const source = await start('source');
      const gql = graphqlClient(() => source.url, ADMIN_TOKEN);
      const agent = (await gql('mutation { createAgent(input: { name: "Backed up" }) { id } }')).createAgent
        .id as string;
      const key = (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key } }', { a: agent }))
        .createAgentApiKey.key as string;
      await gql(
        'mutation($a: ID!) { addHttpEndpoint(agentId: $a, input: { path: "hello", handler: { script: "return { hello: input.name };" } }) { id } }',
        { a: agent },
      );
      await gql(
        'mutation($n: String!, $v: String!) { createSecret(name: $n, kind: WEBHOOK_SIGNING_SECRET, value: $v) { name } }',
        { n: 'signing', v: SIGNING_SECRET },
      );
      await gql('mutation($a: ID!, $i: WebhookInput!) { addWebhook(agentId: $a, input: $i) { id } }', {
        a: agent,
        i: {
          integration: 'events',
          handler: { script: 'return 1;' },
          signature: { scheme: 'STANDARD_WEBHOOKS', secretName: 'signing' },
        },
      });
      const hello = (s: Started) =>
        fetch(`${s.url}/agents/${agent}/api/hello`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-agent-access-key': key },
          body: JSON.stringify({ name: 'copy' }),
        });
      const signed = (s: Started, id: string) => {
        const body = JSON.stringify({ id });
        const at = new Date();
        return fetch(`${s.url}/agents/${agent}/webhook/events`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'webhook-id': id,
            'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
            'webhook-signature': new StandardWebhook(SIGNING_SECRET).sign(id, at, body),
          },
          body,
        });
      };
      expect((await hello(source)).status).to.equal(200);
      expect((await signed(source, 'before-the-backup')).status).to.equal(200);
      // Activity entries are stored in batches shortly after the answer: the backup is taken once
      // the first call's entry is in the database.
      const httpEntries = async (s: Started) =>
        (
          (
            await graphqlClient(() => s.url, ADMIN_TOKEN)(
              'query($id: ID!) { agent(id: $id) { activity(first: 50) { nodes { surface } } } }',
              { id: agent },
            )
          ).agent.activity.nodes as { surface: string }[]
        ).filter((n) => n.surface === 'HTTP_API').length;
      await until(
        'the first call in the activity log',
        async () => ((await httpEntries(source)) >= 1 ? true : undefined),
        30_000,
      );

      const dump = path.join(dataDir, 'backup.dump');
      const tool = (name: string, args: string[]) => {
        const r = spawnSync(path.join(postgresBinDir()!, name), args, { encoding: 'utf8' });
        if (r.status !== 0) throw new Error(`${name} failed: ${r.stderr}`);
      };
      tool('pg_dump', ['-Fc', '-d', url('source'), '-f', dump]);
      tool('pg_restore', ['--no-owner', '-d', url('copy'), dump]);

      const copy = await start('copy');
      const answer = await hello(copy);
      expect(answer.status).to.equal(200);
      expect(await answer.json()).to.deep.include({ output: { hello: 'copy' } });
      expect((await signed(copy, 'after-the-restore')).status, 'the signing secret is readable').to.equal(200);
      expect(
        (await graphqlClient(() => copy.url, ADMIN_TOKEN)('query($id: ID!) { agent(id: $id) { name } }', { id: agent }))
          .agent.name,
      ).to.equal('Backed up');
      // The entry from before the backup, and the copy's own.
      await until(
        "both calls in the copy's activity log",
        async () => ((await httpEntries(copy)) >= 2 ? true : undefined),
        30_000,
      );
      await copy.stop();

      // The same copy with another SECRETS_KEY: it starts and serves, but the stored secret cannot be read.
      const otherKey = Buffer.alloc(32, 9).toString('base64');
      const wrong = await start('copy', otherKey);
      expect((await hello(wrong)).status).to.equal(200);
      const refused = await signed(wrong, 'with-another-key');
      console.log(
        `      backup restored: the copy answers 200 with the same key and secret; with another SECRETS_KEY a signed delivery gets ${refused.status}`,
      );
      expect(refused.status).to.be.within(400, 503);
      expect(refused.status).to.not.equal(500);
    } finally {
      for (const s of services) if (s.child.exitCode === null) await s.stop();
      await admin.end();
      server.remove();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
