import { expect } from 'chai';
import {
  startE2eService,
  startSurfaceService,
  type E2eService,
  type InProcessService,
} from '../helpers/surface-service.js';
import { aesRunner, type Aes } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

// A paused run outlives its instance (issue 54): the service that paused it is stopped, a new one
// on the same database (the same data directory when embedded) takes the approval, and the run completes; the
// approval is listed and given with the `aes` command line.

describe('approvals: a paused run survives a restart', function () {
  this.timeout(120_000);
  let svc: E2eService;
  let next: InProcessService | undefined;
  let aes: Aes;

  before(async () => {
    svc = await startE2eService('approvals_restart');
    aes = aesRunner();
  });
  after(async () => {
    await next?.stop();
    await svc?.stop();
    aes?.cleanup();
  });

  it('pauses on one instance, is approved on a new one after the first stopped, and completes', async () => {
    const id = (
      await svc.gql('mutation { createAgent(input: { name: "Careful", defaultModel: "fake-model" }) { id } }')
    ).createAgent.id as string;
    await svc.gql('mutation($a: ID!) { setCapabilities(agentId: $a, input: { messaging: true }) { id } }', { a: id });
    await svc.gql('mutation($a: ID!, $i: ChannelInput!) { addChannel(agentId: $a, input: $i) { id } }', {
      a: id,
      i: {
        kind: 'EMAIL',
        address: `news-${id.slice(-6)}@restart.example.net`,
        allowedSenders: ['@example.com'],
        handler: { prompt: 'Answer.' },
      },
    });
    await svc.gql('mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
      a: id,
      i: { path: 'assist', handler: { prompt: 'Use your tools.' } },
    });
    await svc.gql('mutation($a: ID!) { setApprovalPolicy(agentId: $a, input: { tools: ["send_email"] }) { tools } }', {
      a: id,
    });
    const key = (await svc.gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key } }', { a: id }))
      .createAgentApiKey.key as string;
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };

    svc.fake.enqueue({
      toolCalls: [{ name: 'send_email', arguments: { to: 'boss@example.com', subject: 'Report', text: 'Green.' } }],
    });
    const r = await fetch(`${svc.url}/agents/${id}/api/assist`, { method: 'POST', headers, body: '{}' });
    expect(r.status).to.equal(202);
    const paused = (await r.json()) as { runId: string; approval: { id: string } };

    // The first instance stops; a new one starts on the same database.
    await svc.service.close();
    next = process.env.TEST_DATABASE_URL
      ? await svc.another()
      : await startSurfaceService({
          dataDir: svc.dataDir,
          adminToken: svc.adminToken,
          modelUrl: svc.fake.url,
          platformOrigin: 'https://app.example.test',
          database: { DATABASE_URL: undefined, SECRETS_KEY: undefined },
        });
    // Approved from the command line, against the new instance.
    const env = { AES_URL: next.url, AES_TOKEN: svc.adminToken };
    const listed = await aes.run(['approvals', 'list', '--state', 'pending', '-o', 'json'], { env });
    expect(listed.code, listed.stderr).to.equal(0);
    expect(JSON.parse(listed.stdout).map((a: { id: string }) => a.id)).to.include(paused.approval.id);
    svc.fake.enqueue({ text: 'Sent after approval.' });
    const approved = await aes.run(['approvals', 'approve', paused.approval.id], { env });
    expect(approved.code, approved.stderr).to.equal(0);
    expect(approved.stdout).to.match(/^Approved send_email/);
    const done = await until(
      'the continued run',
      async () => {
        const p = await fetch(`${next!.url}/agents/${id}/runs/${paused.runId}`, { headers });
        return p.status === 200 ? ((await p.json()) as { output: unknown }) : undefined;
      },
      30_000,
    );
    expect(done.output).to.equal('Sent after approval.');
  });
});
