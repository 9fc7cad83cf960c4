import { expect } from 'chai';
import { createAgent, gqlOk, newWorkspace } from '../helpers/harness.js';

describe('GraphQL: a webhook integration without a signature check says so', () => {
  it('addWebhook without a signature returns a warning naming the risk and the fix; with one, none', async () => {
    const ws = await newWorkspace();
    const agent = await createAgent(ws.adminToken);
    const open = await gqlOk(
      ws.adminToken,
      'mutation($a: ID!) { addWebhook(agentId: $a, input: {integration: "open", handler: {script: "return 1"}}) { warning } }',
      { a: agent },
    );
    expect(open.addWebhook.warning)
      .to.contain('anyone who knows its URL')
      .and.contain('createSecret')
      .and.contain('signature');
    await gqlOk(
      ws.adminToken,
      'mutation { createSecret(name: "s", kind: WEBHOOK_SIGNING_SECRET, value: "v") { name } }',
    );
    const signed = await gqlOk(
      ws.adminToken,
      'mutation($a: ID!) { addWebhook(agentId: $a, input: {integration: "signed", handler: {script: "return 1"}, signature: {scheme: HMAC_SHA256, secretName: "s"}}) { warning } }',
      { a: agent },
    );
    expect(signed.addWebhook.warning).to.equal(null);
  });
});
