import { randomBytes } from 'node:crypto';
import { gqlOk, h, newWorkspace, createAgent, type TestWorkspace } from './harness.js';
import { call, documentPath } from './surface-calls.js';
import { obtainAccessToken } from './oauth-flow.js';
import { until } from './until.js';

// A workspace furnished with one of everything a workspace owns, for the isolation test
// (test/integration/workspace-isolation.test.ts): people of every role, agents with every surface
// on, keys of every kind, a document with records, entries of every kind, channels, a model, secrets,
// a team, a webhook delivery, a recorded message and an OAuth grant with its access token.

/** Every surface the schema names (introspection: a new surface is turned on without editing this). */
async function surfaces(token: string): Promise<string[]> {
  const d = await gqlOk(token, '{ __type(name: "Surface") { enumValues { name } } }');
  return d.__type.enumValues.map((v: { name: string }) => v.name);
}

export interface Furnished {
  tag: string;
  ws: TestWorkspace;
  member: { memberId: string; token: string };
  viewer: { memberId: string; token: string };
  slug: string;
  agentId: string;
  /** A PRIVATE agent created by the member. */
  privateAgentId: string;
  agentKey: string;
  workspaceKey: string;
  accessToken: string;
  documentId: string;
  integration: string;
  /** Ids by the kind of thing they name (the GraphQL sweep fills arguments from these). */
  ids: Record<string, string[]>;
  /** Names and addresses that must not show up outside the workspace. */
  names: string[];
  /** Names a `name` argument may use to refer to a thing (secrets, models). */
  refNames: string[];
  modelName: string;
  secretName: string;
  teamName: string;
}

const rand = () => randomBytes(4).toString('hex');
const digits = () => String(1000 + (randomBytes(2).readUInt16BE(0) % 9000));

/** Builds a workspace with one of everything; `tag` goes into its names (`alpha`, `bravo`). */
export async function furnish(tag: string): Promise<Furnished> {
  const ws = await newWorkspace();
  const admin = ws.adminToken;
  const member = await ws.addMember('MEMBER');
  const viewer = await ws.addMember('VIEWER');
  const r = rand();
  const teamName = `${tag}-team-${r}`;
  const secretName = `${tag.toUpperCase()}_SECRET_${r}`.toUpperCase();
  const signingName = `${tag.toUpperCase()}_SIGNING_${r}`.toUpperCase();
  const modelName = `${tag}-model-${r}`;
  const team = await gqlOk(admin, 'mutation($n: String!) { createTeam(name: $n) { id } }', { n: teamName });
  const secrets = [];
  for (const [name, kind] of [
    [secretName, 'GENERIC'],
    [signingName, 'WEBHOOK_SIGNING_SECRET'],
  ])
    secrets.push(
      (
        await gqlOk(
          admin,
          'mutation($n: String!, $k: SecretKind!) { createSecret(name: $n, kind: $k, value: "v") { id } }',
          {
            n: name,
            k: kind,
          },
        )
      ).createSecret.id as string,
    );
  const model = await gqlOk(admin, 'mutation($i: ConfigureModelInput!) { configureModel(input: $i) { id } }', {
    i: { name: modelName, provider: 'OPENAI_COMPATIBLE', model: 'm', baseUrl: 'http://127.0.0.1:9/v1' },
  });
  const agentName = `${tag} agent ${r}`;
  const agentId = await createAgent(admin, {
    name: agentName,
    slug: `${tag}-agent-${r}`,
    teamId: team.createTeam.id,
    allowWorkspaceKeys: true,
    defaultModel: modelName,
  });
  const privateAgentId = await createAgent(member.token, { name: `${tag} private ${r}`, visibility: 'PRIVATE' });
  for (const a of [agentId, privateAgentId])
    for (const surface of await surfaces(admin))
      await gqlOk(
        admin,
        'mutation($a: ID!, $s: Surface!) { setSurface(agentId: $a, surface: $s, enabled: true) { id } }',
        {
          a,
          s: surface,
        },
      );
  const entry = async (op: string, type: string, input: Record<string, unknown>) =>
    (
      await gqlOk(admin, `mutation($a: ID!, $i: ${type}!) { ${op}(agentId: $a, input: $i) { id } }`, {
        a: agentId,
        i: input,
      })
    )[op].id as string;
  const script = { script: 'return { ok: true };' };
  const endpointId = await entry('addHttpEndpoint', 'HttpEndpointInput', { path: 'hello', handler: script });
  const toolId = await entry('addMcpTool', 'McpToolInput', {
    name: 'hello',
    description: 'Says hello',
    handler: script,
  });
  const integration = `${tag}hook`;
  const webhookId = await entry('addWebhook', 'WebhookInput', { integration, handler: script });
  const email = `${tag}-${r}@mail.example.com`;
  const phone = `+1415555${digits()}`;
  const emailChannel = await entry('addChannel', 'ChannelInput', { kind: 'EMAIL', address: email, handler: script });
  const smsChannel = await entry('addChannel', 'ChannelInput', { kind: 'SMS', address: phone, handler: script });
  const documentName = `${tag}-doc-${r}`;
  const documentId = await entry('createDocument', 'DocumentInput', {
    name: documentName,
    kind: 'DATABASE',
    fields: [{ name: 'title', type: 'STRING' }],
  });
  const textDocumentId = await entry('createDocument', 'DocumentInput', {
    name: `${tag}-notes-${r}`,
    content: 'notes',
  });
  await gqlOk(
    admin,
    'mutation($a: ID!, $d: ID!) { exposeDocument(agentId: $a, documentId: $d, read: true, write: true, mcp: true) { id } }',
    {
      a: agentId,
      d: documentId,
    },
  );
  const agentKeyResult = await gqlOk(
    admin,
    'mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key apiKey { id } } }',
    {
      a: agentId,
    },
  );
  const wsKeyResult = await gqlOk(
    admin,
    'mutation { createWorkspaceApiKey(name: "w", scopes: [WORKSPACE_READ]) { key apiKey { id } } }',
  );
  const agentKey = agentKeyResult.createAgentApiKey.key as string;
  const inserted = await call('POST', documentPath(agentId, documentId, 'insert'), {
    key: agentKey,
    json: { items: [{ title: `${tag}-record-${r}` }] },
  });
  if (inserted.status !== 200 && inserted.status !== 201) throw new Error(`record insert: ${inserted.text}`);
  const hook = await call('POST', `/agents/${agentId}/webhook/${integration}`, { json: { hello: tag } });
  if (hook.status >= 300) throw new Error(`webhook: ${hook.status} ${hook.text}`);
  const message = await gqlOk(
    admin,
    'mutation($a: ID!, $i: RecordMessageInput!) { recordMessage(agentId: $a, input: $i) { id } }',
    {
      a: agentId,
      i: { channel: 'EMAIL', direction: 'INBOUND', from: `someone-${r}@example.com`, to: email, body: 'hi' },
    },
  );
  const tokens = await obtainAccessToken(h().url, agentId, admin);
  const listed = await gqlOk(
    admin,
    `query($a: ID!) { agent(id: $a) { mcpGrants { id } } webhookDeliveries(agentId: $a) { nodes { id } } }`,
    { a: agentId },
  );
  const memberTokenIds = [];
  for (const m of [ws.adminId, member.memberId, viewer.memberId])
    memberTokenIds.push(
      ...(await gqlOk(admin, 'query($m: ID!) { memberTokens(memberId: $m) { id } }', { m })).memberTokens.map(
        (t: any) => t.id,
      ),
    );
  const records = await call('POST', documentPath(agentId, documentId, 'query'), { key: agentKey, json: {} });
  // An event webhook (to a port that refuses: its deliveries fail, which changes nothing here) and a delivery of it.
  const events = await gqlOk(
    admin,
    'mutation($i: EventSubscriptionInput!) { createEventSubscription(input: $i) { subscription { id } } }',
    { i: { url: 'http://127.0.0.1:9/events', kinds: ['key.revoked'] } },
  );
  const eventSubscription = events.createEventSubscription.subscription.id as string;
  const eventDelivery = (
    await gqlOk(admin, 'mutation($s: ID!) { sendTestEvent(subscriptionId: $s) { id } }', { s: eventSubscription })
  ).sendTestEvent.id as string;
  // The delivery fails for good within the harness's short retries; waited for, so that nothing of
  // it changes while a test compares the tables before and after.
  await until('the fixture event delivery settles', async () => {
    const d = await gqlOk(
      admin,
      'query($s: ID!) { eventDeliveries(subscriptionId: $s, first: 5) { nodes { state } } }',
      {
        s: eventSubscription,
      },
    );
    const nodes = d.eventDeliveries.nodes as { state: string }[];
    return nodes.length > 0 && nodes.every((n) => n.state !== 'PENDING') ? true : undefined;
  });
  return {
    tag,
    ws,
    member,
    viewer,
    slug: ws.workspaceId.slice(3),
    agentId,
    privateAgentId,
    agentKey,
    workspaceKey: wsKeyResult.createWorkspaceApiKey.key as string,
    accessToken: tokens.accessToken,
    documentId,
    integration,
    ids: {
      workspace: [ws.workspaceId],
      agent: [agentId, privateAgentId],
      member: [ws.adminId, member.memberId, viewer.memberId],
      memberToken: memberTokenIds,
      apiKey: [agentKeyResult.createAgentApiKey.apiKey.id, wsKeyResult.createWorkspaceApiKey.apiKey.id],
      team: [team.createTeam.id],
      secret: secrets,
      model: [model.configureModel.id],
      document: [documentId, textDocumentId],
      record: (records.json?.records ?? []).map((x: any) => x.id),
      httpEndpoint: [endpointId],
      mcpTool: [toolId],
      webhook: [webhookId],
      channel: [emailChannel, smsChannel],
      grant: listed.agent.mcpGrants.map((g: any) => g.id),
      webhookDelivery: listed.webhookDeliveries.nodes.map((d: any) => d.id),
      message: [message.recordMessage.id],
      // `subscriptionId` arguments and the `id` of …EventSubscription / …EventDelivery operations.
      subscription: [eventSubscription],
      eventSubscription: [eventSubscription],
      eventDelivery: [eventDelivery],
    },
    names: [teamName, secretName, signingName, modelName, agentName, documentName, email, phone, `${tag}-record-${r}`],
    refNames: [secretName, signingName, modelName],
    modelName,
    secretName,
    teamName,
  };
}
