import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createAgent, gqlOk, h, newWorkspace } from '../helpers/harness.js';
import { inviteNewPerson } from '../helpers/invitations.js';

// What the database holds at rest: keys and tokens only as SHA-256 digests, secrets only encrypted.

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** Every row of every table of the current schema, as one JSON string. */
async function dumpDatabase(): Promise<{ text: string; tables: string[] }> {
  const db = h().db;
  const rows = await db('information_schema.tables')
    .select('table_name')
    .where({ table_type: 'BASE TABLE' })
    .andWhereRaw('table_schema = current_schema()')
    .orderBy('table_name');
  const tables = rows.map((r: { table_name: string }) => r.table_name);
  const dump: Record<string, unknown[]> = {};
  for (const t of tables) dump[t] = await db.select('*').from(t);
  const text = JSON.stringify(dump, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  return { text, tables };
}

describe('At rest: keys, tokens and secrets', () => {
  const keys: string[] = [];
  const secrets: { name: string; kind: string; value: string }[] = [];
  let workspaceId: string;
  let adminToken: string;

  before(async () => {
    const ws = await newWorkspace();
    workspaceId = ws.workspaceId;
    adminToken = ws.adminToken;
    const member = await ws.addMember();
    keys.push(ws.adminToken, member.token);

    for (const name of ['First', 'Second']) {
      const agentId = await createAgent(ws.adminToken, { name });
      for (const keyName of ['prod', 'staging']) {
        const d = await gqlOk(
          ws.adminToken,
          `mutation($a: ID!, $n: String!) { createAgentApiKey(agentId: $a, name: $n) { key } }`,
          { a: agentId, n: keyName },
        );
        keys.push(d.createAgentApiKey.key);
      }
    }
    for (const scopes of [['WORKSPACE_READ'], []]) {
      const d = await gqlOk(
        ws.adminToken,
        `mutation($s: [KeyScope!]) { createWorkspaceApiKey(name: "wk", scopes: $s) { key } }`,
        { s: scopes },
      );
      keys.push(d.createWorkspaceApiKey.key);
    }
    const invited = (
      await inviteNewPerson((q, v) => gqlOk(ws.adminToken, q, v), h().url, {
        email: `at-rest-${ws.workspaceId}@example.com`,
      })
    ).memberId;
    keys.push(
      (
        await gqlOk(ws.adminToken, `mutation($m: ID!) { createMemberToken(memberId: $m, name: "cli") { token } }`, {
          m: invited,
        })
      ).createMemberToken.token,
    );
    keys.push(
      (
        await gqlOk(member.token, `mutation($m: ID!) { createMemberToken(memberId: $m) { token } }`, {
          m: member.memberId,
        })
      ).createMemberToken.token,
    );
    // a revoked key stays hashed too
    const revoked = await gqlOk(ws.adminToken, `mutation { createWorkspaceApiKey(name: "old") { key apiKey { id } } }`);
    await gqlOk(ws.adminToken, `mutation($id: ID!) { revokeApiKey(id: $id) }`, {
      id: revoked.createWorkspaceApiKey.apiKey.id,
    });
    keys.push(revoked.createWorkspaceApiKey.key);

    const rnd = () => randomBytes(12).toString('hex');
    secrets.push(
      { name: 'OPENAI_API_KEY', kind: 'MODEL_API_KEY', value: `s3cr3t-${rnd()}` },
      { name: 'stripe-signing', kind: 'WEBHOOK_SIGNING_SECRET', value: `s3cr3t-${rnd()}` },
      { name: 'generic.unicode', kind: 'GENERIC', value: `s3cr3t-${rnd()}-ünïcødé-🔑` },
      { name: 'generic.long', kind: 'GENERIC', value: `s3cr3t-${rnd()}-${'x'.repeat(4000)}` },
    );
    // the same value twice: encryption must not be deterministic
    secrets.push({ name: 'same-value', kind: 'GENERIC', value: secrets[1]!.value });
    for (const s of secrets) {
      await gqlOk(
        ws.adminToken,
        `mutation($n: String!, $k: SecretKind!, $v: String!) { createSecret(name: $n, kind: $k, value: $v) { id } }`,
        { n: s.name, k: s.kind, v: s.value },
      );
    }
    const model = await gqlOk(
      ws.adminToken,
      `mutation { configureModel(input: {name: "main", provider: OPENAI, model: "gpt-4o-mini", apiKeySecret: "OPENAI_API_KEY", isDefault: true}) { apiKeySecret } }`,
    );
    expect(model.configureModel.apiKeySecret).to.equal('OPENAI_API_KEY');
    // the tokens are used once, so last-used bookkeeping has run as well
    for (const t of [ws.adminToken, member.token]) await gqlOk(t, '{ viewer { id } }');
  });

  it('stored what it meant to: one row per key and token handed out (11, all distinct), each under its digest', async () => {
    expect(new Set(keys).size).to.equal(11);
    // What the rows must hold for each plaintext handed out: its digest and display parts only.
    const expected = (prefix: string) =>
      keys
        .filter((k) => k.startsWith(prefix))
        .map((k) => ({ hash: sha256(k), prefix: k.slice(0, 6), last4: k.slice(-4) }))
        .sort((a, b) => a.hash.localeCompare(b.hash));
    const sorted = <T extends { hash: string }>(rows: T[]) => rows.sort((a, b) => a.hash.localeCompare(b.hash));
    const db = h().db;
    const apiKeys = await db('api_keys')
      .where({ workspace_id: workspaceId })
      .select('kind', 'key_hash as hash', 'prefix', 'last4', 'name', 'revoked_at');
    const stored = (kind: string) =>
      sorted(
        apiKeys
          .filter((r: any) => r.kind === kind)
          .map((r: any) => ({ hash: r.hash, prefix: r.prefix, last4: r.last4 })),
      );
    expect(stored('AGENT')).to.deep.equal(expected('ak_')).and.have.length(4);
    expect(stored('WORKSPACE')).to.deep.equal(expected('wk_')).and.have.length(3);
    expect(apiKeys).to.have.length(7);
    expect(apiKeys.filter((r: any) => r.revoked_at !== null).map((r: any) => r.name)).to.deep.equal(['old']);
    const tokens = await db('member_tokens')
      .join('members', 'members.id', 'member_tokens.member_id')
      .where('members.workspace_id', workspaceId)
      .select('member_tokens.token_hash as hash', 'member_tokens.prefix', 'member_tokens.last4');
    expect(sorted(tokens)).to.deep.equal(expected('mt_')).and.have.length(4);
  });

  it('no table holds a plaintext key, token or secret value — but the keys’ SHA-256 digests are there', async () => {
    const { text, tables } = await dumpDatabase();
    expect(tables).to.include.members(['api_keys', 'member_tokens', 'secrets', 'models', 'members', 'workspaces']);
    expect(text).to.include(workspaceId); // the dump saw this test's rows

    const bootstrap = h().config.adminToken!;
    for (const k of [...keys, bootstrap]) {
      expect(text.includes(k), `plaintext ${k.slice(0, 6)}…`).to.equal(false);
      // nor the random part without its prefix
      if (/^(ak|wk|mt)_/.test(k)) expect(text.includes(k.slice(3)), `random part of ${k.slice(0, 6)}…`).to.equal(false);
      expect(text.includes(sha256(k)), `digest of ${k.slice(0, 6)}…`).to.equal(true);
    }
    for (const s of secrets) {
      expect(text.includes(s.value), `secret ${s.name}`).to.equal(false);
      expect(text.includes(s.value.slice(0, 31)), `start of secret ${s.name}`).to.equal(false);
      expect(text.includes(Buffer.from(s.value, 'utf8').toString('base64')), `base64 of secret ${s.name}`).to.equal(
        false,
      );
      expect(text.includes(Buffer.from(s.value, 'utf8').toString('hex')), `hex of secret ${s.name}`).to.equal(false);
    }
    expect(text).to.include('OPENAI_API_KEY'); // the model names its secret; only the name is stored
  });

  it('stores each secret as a distinct ciphertext, even for equal values', async () => {
    const rows = await h().db('secrets').where({ workspace_id: workspaceId }).select('name', 'ciphertext');
    expect(rows.map((r: any) => r.name)).to.have.members(secrets.map((s) => s.name));
    const byName = new Map(rows.map((r: any) => [r.name, r.ciphertext as string]));
    expect(byName.get('same-value')).to.not.equal(byName.get('stripe-signing'));
    expect(new Set(rows.map((r: any) => r.ciphertext)).size).to.equal(rows.length);
  });

  it('secrets round-trip through secrets.reveal, scoped by workspace', async () => {
    const svc = h().service.services.secrets;
    for (const s of secrets) {
      expect(await svc.reveal(workspaceId, s.name), s.name).to.deep.equal({ kind: s.kind, value: s.value });
    }
    expect(await svc.reveal(workspaceId, 'no-such-secret')).to.equal(null);
    const other = await newWorkspace();
    expect(await svc.reveal(other.workspaceId, 'OPENAI_API_KEY')).to.equal(null);
    // and GraphQL lists them without values
    const listed = (await gqlOk(adminToken, '{ secrets { name kind } }')).secrets;
    expect(listed).to.have.length(secrets.length);
    const text = JSON.stringify(listed);
    for (const s of secrets) expect(text.includes(s.value), s.name).to.equal(false);
  });
});
