import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startAnthropicServer, type FakeAnthropic } from '../helpers/anthropic-server.js';
import { startOpenAiServer, type FakeOpenAi } from '../helpers/openai-server.js';
import { databaseEnv, graphqlClient, startService, type Started } from '../helpers/process.js';
import { seedDataDir } from '../helpers/embedded-template.js';

// The operator's provider keys (OPENAI_API_KEY, ANTHROPIC_API_KEY) go only where the operator's
// environment points. An admin who configures a model with a base URL of their own, and no key
// secret, gets a call without any key: the service started as a user starts it, observed at local
// model servers standing in for a host the admin controls.

const OPERATOR_OPENAI_KEY = 'sk-OPERATOR-SECRET-openai-0123456789';
const OPERATOR_ANTHROPIC_KEY = 'sk-ant-OPERATOR-SECRET-0123456789';
const ADMIN = 'model-keys-admin-token-0123456789';

describe("e2e: the environment's model keys go only to the environment's base URL", function () {
  this.timeout(180_000);
  let operatorServer: FakeOpenAi;
  let exfil: FakeOpenAi;
  let exfilAnthropic: FakeAnthropic;
  let svc: Started | undefined;
  let drop = async () => {};
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-model-keys-'));
  const gql = graphqlClient(() => svc!.url, ADMIN);

  before(async () => {
    operatorServer = await startOpenAiServer();
    exfil = await startOpenAiServer();
    exfilAnthropic = await startAnthropicServer();
    await seedDataDir(dataDir);
    const database = await databaseEnv('model_keys');
    drop = database.drop;
    svc = await startService({
      PORT: '0',
      DATA_DIR: dataDir,
      ADMIN_TOKEN: ADMIN,
      OPENAI_API_KEY: OPERATOR_OPENAI_KEY,
      OPENAI_BASE_URL: operatorServer.url,
      ANTHROPIC_API_KEY: OPERATOR_ANTHROPIC_KEY,
      LOG_LEVEL: 'warn',
      ...database.env,
    });
  });
  after(async () => {
    await svc?.stop();
    await drop();
    await Promise.all([operatorServer?.close(), exfil?.close(), exfilAnthropic?.close()]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const everyHeader = (reqs: { headers: Record<string, unknown> }[]) => JSON.stringify(reqs.map((r) => r.headers));

  it('an OPENAI model with a base URL of its own and no key secret is listed and called without the operator key', async () => {
    await gql(
      'mutation { configureModel(input: {name: "exfil", provider: OPENAI, model: "fake-model", baseUrl: "' +
        exfil.url +
        '"}) { name } }',
    );
    exfil.enqueue({ text: 'OK' });
    const test = await gql('mutation { testModel(name: "exfil") { ok error } }');
    expect(test.testModel.ok, JSON.stringify(test)).to.equal(true);
    expect(exfil.listRequests.length + exfil.requests.length).to.equal(2);
    expect(everyHeader([...exfil.listRequests, ...exfil.requests])).to.not.include('OPERATOR');
  });

  it('an ANTHROPIC model with a base URL of its own and no key secret is called without the operator key', async () => {
    await gql(
      'mutation { configureModel(input: {name: "exfil-claude", provider: ANTHROPIC, model: "claude-haiku-4-5", baseUrl: "' +
        exfilAnthropic.url +
        '"}) { name } }',
    );
    // This server, like Anthropic's, answers 401 to a call without a key: what matters is what it received.
    await gql('mutation { testModel(name: "exfil-claude") { ok error } }');
    expect(exfilAnthropic.listRequests.length + exfilAnthropic.requests.length).to.equal(2);
    expect(everyHeader([...exfilAnthropic.listRequests, ...exfilAnthropic.requests])).to.not.include('OPERATOR');
  });

  it('an OPENAI model without a base URL of its own goes to OPENAI_BASE_URL with the operator key, as the environment provider does', async () => {
    await gql(
      'mutation { configureModel(input: {name: "main", provider: OPENAI, model: "fake-model-mini", isDefault: true}) { name } }',
    );
    operatorServer.enqueue({ text: 'OK' });
    const test = await gql('mutation { testModel(name: "main") { ok error } }');
    expect(test.testModel.ok, JSON.stringify(test)).to.equal(true);
    expect(operatorServer.requests.map((r) => r.headers.authorization)).to.deep.equal([
      `Bearer ${OPERATOR_OPENAI_KEY}`,
    ]);
  });
});

describe('e2e: MODEL_HOSTS_ALLOWED limits the hosts models may call', function () {
  this.timeout(180_000);
  let svc: Started | undefined;
  let drop = async () => {};
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-model-hosts-'));

  before(async () => {
    await seedDataDir(dataDir);
    const database = await databaseEnv('model_hosts');
    drop = database.drop;
    svc = await startService({
      PORT: '0',
      DATA_DIR: dataDir,
      ADMIN_TOKEN: ADMIN,
      MODEL_HOSTS_ALLOWED: 'localhost:11434, *.internal.example',
      LOG_LEVEL: 'warn',
      ...database.env,
    });
  });
  after(async () => {
    await svc?.stop();
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const configure = async (baseUrl: string) => {
    const res = await fetch(`${svc!.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
      body: JSON.stringify({
        query:
          'mutation($u: String) { configureModel(input: {name: "m", provider: OPENAI_COMPATIBLE, model: "x", baseUrl: $u}) { name } }',
        variables: { u: baseUrl },
      }),
    });
    return (await res.json()) as { data: unknown; errors?: { message: string; extensions: { code: string } }[] };
  };

  it('refuses a base URL whose host is not listed, and accepts a listed one', async () => {
    const refused = await configure('http://127.0.0.1:4799/v1');
    expect(refused.errors?.[0]?.extensions.code).to.equal('BAD_USER_INPUT');
    expect(refused.errors?.[0]?.message).to.match(/MODEL_HOSTS_ALLOWED/);
    const other = await configure('http://localhost:8080/v1');
    expect(other.errors?.[0]?.extensions.code).to.equal('BAD_USER_INPUT');
    expect((await configure('http://localhost:11434/v1')).errors).to.equal(undefined);
    expect((await configure('https://llm.internal.example/v1')).errors).to.equal(undefined);
  });
});
