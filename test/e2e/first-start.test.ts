import { expect } from 'chai';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { runToExit, startService, type Started } from '../helpers/process.js';
import { dataDirWithDatabase } from '../helpers/embedded-template.js';

// A first start that cannot listen must not create the workspace (and its admin token, which only
// that start would print); a later start whose generated token was never used says how to get in;
// every start says which model provider it has; a base URL without its scheme is refused at start.
// The service is started as `npm start` starts it, on the embedded database of a fresh directory.

const TOKEN_PRINTED = /Admin token \(shown once, store it now\): (mt_[A-Za-z0-9_-]+)/;
const UNUSED_HINT = /has not been used yet[\s\S]*restart with ADMIN_TOKEN/;

async function graphql(url: string, token: string, query: string) {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('e2e: the first start keeps its admin token, and every start names its model provider', function () {
  this.timeout(180_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-first-start-'));
  const base = {
    DATA_DIR: dataDir,
    ADMIN_TOKEN: undefined,
    DATABASE_URL: undefined,
    SECRETS_KEY: undefined,
    OPENAI_BASE_URL: undefined,
    OPENAI_API_KEY: undefined,
    ANTHROPIC_API_KEY: undefined,
    LOG_LEVEL: 'warn',
  };
  let svc: Started | undefined;
  let busy: net.Server | undefined;

  after(async () => {
    await svc?.stop();
    busy?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a first start on a port in use exits naming the port, before creating anything; the next start prints the token', async () => {
    busy = net.createServer();
    await new Promise<void>((resolve) => busy!.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as net.AddressInfo).port;
    const refused = await runToExit({ ...base, PORT: String(port), HOST: '127.0.0.1' });
    expect(refused.code).to.equal(1);
    expect(refused.output).to.contain(`Port ${port} on 127.0.0.1 is already in use`).and.contain('PORT');
    expect(refused.output).to.not.match(TOKEN_PRINTED);
    busy.close();
    busy = undefined;

    svc = await startService({ ...base, PORT: '0' });
    expect(svc.output(), svc.output()).to.match(TOKEN_PRINTED);
    // The next step is the console: the first address after the token is its sign-in page.
    const afterToken = svc.output().slice(svc.output().search(TOKEN_PRINTED));
    expect(/https?:\/\/\S+/.exec(afterToken.split('\n').slice(1).join('\n'))?.[0]).to.match(/\/console$/);
    expect(svc.output()).to.contain('No model provider: prompt handlers answer 500 until');
    await svc.stop();
    svc = undefined;
  });

  it('a restart whose generated token was never used says how to get in with ADMIN_TOKEN; once used, it does not', async () => {
    svc = await startService({ ...base, PORT: '0' });
    expect(svc.output()).to.not.match(TOKEN_PRINTED);
    expect(svc.output()).to.match(UNUSED_HINT);
    await svc.stop();
    svc = undefined;
  });

  it('the hint stops once the token has been used', async () => {
    // The token was printed by the first test's second start; read it from another first start here
    // (the first test started on an empty directory; this one may begin from a migrated database).
    const other = await dataDirWithDatabase('aes-first-start-used-');
    try {
      let s = await startService({ ...base, DATA_DIR: other, PORT: '0' });
      const token = TOKEN_PRINTED.exec(s.output())![1]!;
      expect((await graphql(s.url, token, '{ viewer { role } }')).body.data.viewer.role).to.equal('ADMIN');
      await s.stop();
      s = await startService({ ...base, DATA_DIR: other, PORT: '0' });
      expect(s.output()).to.not.match(UNUSED_HINT);
      await s.stop();
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it('names the environment model provider, its model and whether a key is set, never the key', async () => {
    svc = await startService({
      ...base,
      PORT: '0',
      OPENAI_BASE_URL: 'http://user:pw@127.0.0.1:11435/v1',
      OPENAI_MODEL: 'llama3.2',
      ANTHROPIC_API_KEY: 'sk-ant-secret-value',
    });
    const out = svc.output();
    expect(out).to.contain(
      'Model provider: OpenAI-compatible at http://***@127.0.0.1:11435/v1, model llama3.2, no key (a local server); Anthropic, model claude-haiku-4-5, key from ANTHROPIC_API_KEY',
    );
    expect(out).to.not.contain('sk-ant-secret-value').and.not.contain(':pw@');
    await svc.stop();
    svc = undefined;
  });

  it('refuses OPENAI_BASE_URL without its scheme at start, saying what to write', async () => {
    const r = await runToExit({ ...base, PORT: '0', OPENAI_BASE_URL: 'localhost:11435/v1' });
    expect(r.code).to.equal(1);
    expect(r.output).to.contain(
      'OPENAI_BASE_URL: must be an http(s) URL with its scheme, for example http://localhost:11434/v1',
    );
  });
});
