import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runToExit, startService, type Started } from '../helpers/process.js';

async function graphql(url: string, token: string | undefined, query: string) {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('e2e: starting the service as a user does', function () {
  this.timeout(180_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-e2e-'));
  let svc: Started | undefined;

  after(async () => {
    await svc?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('first start on an empty data directory: creates the workspace, prints an admin token once, serves health and GraphQL', async () => {
    svc = await startService({
      PORT: '0',
      DATA_DIR: dataDir,
      ADMIN_TOKEN: undefined,
      DATABASE_URL: undefined,
      SECRETS_KEY: undefined,
      LOG_LEVEL: 'warn',
    });
    const m = /Admin token \(shown once, store it now\): (mt_[A-Za-z0-9_-]+)/.exec(svc.output());
    expect(m, svc.output()).to.not.equal(null);
    const token = m![1]!;

    const key = path.join(dataDir, 'secrets.key');
    expect(fs.statSync(key).mode & 0o777).to.equal(0o600);

    expect((await fetch(`${svc.url}/healthz`)).status).to.equal(200);
    const ready = await fetch(`${svc.url}/readyz`);
    expect(ready.status).to.equal(200);
    expect(await ready.json()).to.deep.equal({ status: 'ready' });

    const anon = await graphql(svc.url, undefined, '{ viewer { id } }');
    expect(anon.status).to.equal(401);
    expect(anon.body.errors[0].extensions.code).to.equal('UNAUTHENTICATED');

    const me = await graphql(svc.url, token, '{ viewer { role } }');
    expect(me.body.data.viewer.role).to.equal('ADMIN');

    const created = await graphql(svc.url, token, 'mutation { createAgent(input: {name: "Persisted"}) { id } }');
    expect(created.body.data.createAgent.id).to.match(/^agt_/);
    fs.writeFileSync(path.join(dataDir, 'token.txt'), token);
    expect(await svc.stop()).to.equal(0);
    svc = undefined;
  });

  it('a restart without ADMIN_TOKEN keeps the data and the generated token and prints no new token', async () => {
    const token = fs.readFileSync(path.join(dataDir, 'token.txt'), 'utf8');
    svc = await startService({ PORT: '0', DATA_DIR: dataDir, ADMIN_TOKEN: undefined, LOG_LEVEL: 'warn' });
    expect(svc.output()).to.not.match(/Admin token \(shown once/);
    const agents = await graphql(svc.url, token, '{ agents { name } }');
    expect(agents.body.data.agents.map((a: any) => a.name)).to.deep.equal(['Persisted']);
    await svc.stop();
    svc = undefined;
  });

  it('a restart with ADMIN_TOKEN set: the configured token works and the generated one is refused, also on later starts', async () => {
    const generated = fs.readFileSync(path.join(dataDir, 'token.txt'), 'utf8');
    const chosenToken = 'a-chosen-admin-token-0123456789';
    svc = await startService({ PORT: '0', DATA_DIR: dataDir, ADMIN_TOKEN: chosenToken, LOG_LEVEL: 'warn' });
    expect(svc.output()).to.not.match(/Admin token \(shown once/);
    const chosen = await graphql(svc.url, chosenToken, '{ viewer { role } agents { name } }');
    expect(chosen.body.data.viewer.role).to.equal('ADMIN');
    expect(chosen.body.data.agents.map((a: any) => a.name)).to.deep.equal(['Persisted']);
    const old = await graphql(svc.url, generated, '{ viewer { role } }');
    expect(old.status).to.equal(401);
    expect(old.body.errors[0].extensions.code).to.equal('UNAUTHENTICATED');
    await svc.stop();
    // Unsetting ADMIN_TOKEN again does not bring the generated token back.
    svc = await startService({ PORT: '0', DATA_DIR: dataDir, ADMIN_TOKEN: undefined, LOG_LEVEL: 'warn' });
    expect((await graphql(svc.url, generated, '{ viewer { role } }')).status).to.equal(401);
    expect((await graphql(svc.url, chosenToken, '{ viewer { role } }')).body.data.viewer.role).to.equal('ADMIN');
    await svc.stop();
    svc = undefined;
  });

  it('refuses to start on PostgreSQL without SECRETS_KEY, and on bad configuration, with a clear message', async () => {
    const noKey = await runToExit({
      PORT: '0',
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      SECRETS_KEY: undefined,
    });
    expect(noKey.code).to.equal(1);
    expect(noKey.output).to.match(/SECRETS_KEY is required when DATABASE_URL is set/);
    const badPort = await runToExit({ PORT: 'eighty', DATA_DIR: dataDir });
    expect(badPort.code).to.equal(1);
    expect(badPort.output).to.match(/Invalid configuration: PORT/);
  });
});
