import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runToExit, startService, type Started } from '../helpers/process.js';
import { dataDirWithDatabase } from '../helpers/embedded-template.js';

// The embedded database is opened by one process only: `npm start` twice on one DATA_DIR must not
// let both write it. Child processes started as a user starts them are the point here.

const ADMIN_TOKEN = 'data-dir-lock-admin-token-012345';
const LOCK = 'service.lock';

async function viewerRole(url: string): Promise<string> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify({ query: '{ viewer { role } agents { name } }' }),
  });
  const body = (await res.json()) as any;
  return `${body.data.viewer.role}:${body.data.agents.map((a: any) => a.name).join(',')}`;
}

/** A pid that is certainly not running: a child that has already exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('e2e: one process per embedded data directory', function () {
  this.timeout(240_000);
  const env = (dataDir: string) => ({
    PORT: '0',
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    DATABASE_URL: undefined,
    SECRETS_KEY: undefined,
    LOG_LEVEL: 'warn',
  });
  const dirs: string[] = [];
  const tempDir = async () => {
    const d = await dataDirWithDatabase('aes-lock-');
    dirs.push(d);
    return d;
  };
  let first: Started | undefined;

  after(async () => {
    await first?.stop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('a second start on the same data directory exits non-zero naming the directory and the running pid; the first keeps serving', async () => {
    const dataDir = await tempDir();
    first = await startService(env(dataDir));
    const created = await fetch(`${first.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({ query: 'mutation { createAgent(input: {name: "Before"}) { id } }' }),
    });
    expect(created.status).to.equal(200);

    const second = await runToExit(env(dataDir));
    expect(second.code, second.output).to.equal(1);
    expect(second.output).to.include(
      `The data directory ${path.resolve(dataDir)} is in use by another running process (pid ${first.child.pid}`,
    );

    expect((await fetch(`${first.url}/healthz`)).status).to.equal(200);
    expect((await fetch(`${first.url}/readyz`)).status).to.equal(200);
    expect(await viewerRole(first.url)).to.equal('ADMIN:Before');

    // The lock goes with the process that held it: a clean stop releases it.
    expect(await first.stop()).to.equal(0);
    first = undefined;
    expect(fs.existsSync(path.join(dataDir, LOCK))).to.equal(false);
  });

  it('a lock file left by a process that no longer runs does not block the next start', async () => {
    const dataDir = await tempDir();
    const pid = await deadPid();
    fs.writeFileSync(
      path.join(dataDir, LOCK),
      JSON.stringify({ pid, hostname: os.hostname(), startedAt: '2026-01-01T00:00:00.000Z' }),
    );
    first = await startService(env(dataDir));
    expect(await viewerRole(first.url)).to.equal('ADMIN:');
    const lock = JSON.parse(fs.readFileSync(path.join(dataDir, LOCK), 'utf8'));
    expect(lock.pid).to.equal(first.child.pid);
    await first.stop();
    first = undefined;
  });
});
