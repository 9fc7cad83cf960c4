import { expect } from 'chai';
import type { Knex } from 'knex';
import {
  DEFAULT_CAPABILITIES,
  DEFAULT_CORS,
  DEFAULT_GUARDRAILS,
  defaultSurfaces,
} from '../../src/domain/agents/agent.schemas.js';
import type { AccountService } from '../../src/domain/accounts/account.service.js';
import { systemClock } from '../../src/domain/clock.js';
import { ConsoleSessionService } from '../../src/domain/console/session.service.js';
import { generateKey, hashKey } from '../../src/domain/core/key-material.js';
import { DEFAULT_SETTINGS } from '../../src/domain/workspace/settings.js';
import { closeDatabase, openDatabase } from '../../src/infra/db.js';
import { knexStore } from '../../src/infra/store/knex-store.js';
import { migrationSource } from '../../migrations/index.js';

// An upgraded single-workspace deployment (issue 52): a database at the migration before accounts,
// holding what such a deployment has (a workspace, two members with tokens, an agent, a console
// session, an MCP grant), migrated to the newest schema. Each member gets an account with the same
// email, the earliest admin is the operator, the workspace is `default`, the session and the tokens
// keep working, and every row that was there is there unchanged. On a database of its own, as
// 00-migrations.test.ts runs.

const ACCOUNTS = '20270410000000_accounts';
const options = (source: Knex.MigrationSource<string>) => ({ migrationSource: source, tableName: 'knex_migrations' });

/** The migrations before `name` only: the schema as a deployment of that time has it. */
const upTo = (name: string): Knex.MigrationSource<string> => ({
  ...migrationSource,
  getMigrations: async () => (await migrationSource.getMigrations([])).filter((m) => m < name),
});

/** Every row of every table (knex's own left out), each table's rows in id order, as JSON. */
async function rowsOf(db: Knex): Promise<Record<string, Record<string, unknown>[]>> {
  const tables = (await db.raw(
    `select table_name as t from information_schema.tables where table_schema = current_schema()
       and table_type = 'BASE TABLE' and table_name not like 'knex\\_%' order by 1`,
  )) as { rows: { t: string }[] };
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const { t } of tables.rows) {
    const rows = (await db(t).select('*')) as Record<string, unknown>[];
    out[t] = JSON.parse(JSON.stringify(rows)).sort((a: any, b: any) =>
      JSON.stringify(a).localeCompare(JSON.stringify(b)),
    );
  }
  return out;
}

describe('migrations: an upgraded single-workspace deployment', function () {
  this.timeout(60_000);
  let db: Knex;
  const schema = 'migration_upgrade';

  before(async () => {
    const url = process.env.TEST_DATABASE_URL || undefined;
    if (url) {
      const admin = await openDatabase({ databaseUrl: url });
      await admin.raw(`drop schema if exists ${schema} cascade`);
      await admin.raw(`create schema ${schema}`);
      await closeDatabase(admin);
    }
    db = await openDatabase({ databaseUrl: url, dataDir: 'memory', searchPath: url ? schema : undefined });
  });
  after(async () => {
    if (process.env.TEST_DATABASE_URL) await db.raw(`drop schema if exists ${schema} cascade`);
    await closeDatabase(db);
  });

  it('gives each member an account, makes the earliest admin the operator, and keeps everything working', async () => {
    await db.migrate.latest(options(upTo(ACCOUNTS)));
    const at = (s: number) => new Date(Date.UTC(2027, 3, 1, 9, 0, s));
    const now = new Date();
    await db('workspaces').insert({
      id: 'ws_upgraded0000000',
      name: 'Acme',
      settings: JSON.stringify(DEFAULT_SETTINGS),
      daily_credit_limit: 50,
      created_at: at(0),
      updated_at: at(0),
    });
    const members = [
      { id: 'mem_admin000000000', email: 'Ada@Example.com', name: 'Ada', role: 'ADMIN', created_at: at(1) },
      { id: 'mem_member00000000', email: 'bob@example.com', name: 'Bob', role: 'MEMBER', created_at: at(2) },
    ];
    await db('members').insert(members.map((m) => ({ ...m, workspace_id: 'ws_upgraded0000000' })));
    const tokens = members.map(() => generateKey('mt'));
    await db('member_tokens').insert(
      members.map((m, i) => ({
        id: `mtk_${m.name.toLowerCase()}00000000000`,
        member_id: m.id,
        name: 'laptop',
        token_hash: tokens[i]!.hash,
        prefix: tokens[i]!.prefix,
        last4: tokens[i]!.last4,
        created_at: at(3),
      })),
    );
    await db('agents').insert({
      id: 'agt_upgraded000000',
      workspace_id: 'ws_upgraded0000000',
      created_by: members[0]!.id,
      name: 'Support',
      slug: 'support',
      description: '',
      instructions: 'Help.',
      visibility: 'WORKSPACE',
      allow_workspace_keys: false,
      surfaces: JSON.stringify(defaultSurfaces()),
      cors: JSON.stringify(DEFAULT_CORS),
      capabilities: JSON.stringify(DEFAULT_CAPABILITIES),
      guardrails: JSON.stringify(DEFAULT_GUARDRAILS),
      created_at: at(4),
      updated_at: at(4),
    });
    const sessionValue = 'an-old-console-session-value-of-ada';
    await db('console_sessions').insert({
      id: 'cs_upgraded0000000',
      member_id: members[0]!.id,
      token_id: 'mtk_ada00000000000',
      session_hash: hashKey(sessionValue),
      created_at: now,
      last_seen_at: now,
    });
    await db('mcp_grants').insert({
      id: 'grt_upgraded000000',
      workspace_id: 'ws_upgraded0000000',
      agent_id: 'agt_upgraded000000',
      member_id: members[1]!.id,
      member_token_id: 'mtk_bob00000000000',
      client_id: 'https://claude.ai/oauth/mcp-client.json',
      client_name: 'Claude',
      redirect_host: 'claude.ai',
      created_at: at(5),
    });
    const old = await rowsOf(db);

    await db.migrate.latest(options(migrationSource));

    // Each member has an account with their email; the earliest admin's is the operator.
    const accounts = await db('accounts').orderBy('email');
    expect(accounts.map((a) => [a.email, a.name, a.operator, a.password_hash])).to.deep.equal([
      ['Ada@Example.com', 'Ada', true, null],
      ['bob@example.com', 'Bob', false, null],
    ]);
    const byMember = await db('members').orderBy('created_at').select('id', 'account_id');
    expect(byMember.map((m) => m.account_id)).to.deep.equal(accounts.map((a) => a.id));
    expect((await db('workspaces').first()).slug).to.equal('default');
    const session = await db('console_sessions').first();
    expect([session.account_id, session.method]).to.deep.equal([accounts[0].id, 'token']);

    // Every row that was there is there unchanged (new columns aside), and nothing else was added
    // but the accounts (single sign-on's identities table is new and empty).
    const after = await rowsOf(db);
    for (const [table, rows] of Object.entries(old)) {
      const cols = rows[0] ? Object.keys(rows[0]) : [];
      const kept = after[table]!.map((r) => Object.fromEntries(cols.map((c) => [c, r[c]])));
      expect(kept, table).to.deep.equal(rows);
    }
    expect(Object.keys(after).filter((t) => !(t in old) && after[t]!.length > 0)).to.deep.equal(['accounts']);

    // The session and both tokens keep working, in the workspace they were made for.
    const store = knexStore(db);
    // Token and session sign-in never reach the account service (it checks passwords).
    const sessions = new ConsoleSessionService(store, systemClock, {} as AccountService);
    const still = await sessions.authenticateSession(sessionValue);
    expect(still.principal).to.deep.include({ kind: 'member', memberId: members[0]!.id, role: 'ADMIN' });
    for (const [i, t] of tokens.entries()) {
      const signedIn = await sessions.signIn({ token: t.plaintext });
      expect(signedIn.principal).to.deep.include({ workspaceId: 'ws_upgraded0000000', memberId: members[i]!.id });
    }
    const grant = await store.repos.mcpGrants.get('grt_upgraded000000');
    expect(grant).to.deep.include({ memberId: members[1]!.id, agentId: 'agt_upgraded000000' });
    expect((await store.repos.workspaces.findBySlug('default'))?.id).to.equal('ws_upgraded0000000');
  });
});

// The activity log's partitioning (20270421000000_activity_partitions) on a log that holds entries:
// up keeps every entry and column (the trace id and spans of the migration before included) without a
// copy, down makes it one table again with every entry, and up again partitions it anew.
describe('migrations: the activity log partitioned and back', function () {
  this.timeout(60_000);
  let db: Knex;
  const schema = 'migration_partitions';
  const PARTITIONS = '20270421000000_activity_partitions';

  before(async () => {
    const url = process.env.TEST_DATABASE_URL || undefined;
    if (url) {
      const admin = await openDatabase({ databaseUrl: url });
      await admin.raw(`drop schema if exists ${schema} cascade`);
      await admin.raw(`create schema ${schema}`);
      await closeDatabase(admin);
    }
    db = await openDatabase({ databaseUrl: url, dataDir: 'memory', searchPath: url ? schema : undefined });
  });
  after(async () => {
    if (process.env.TEST_DATABASE_URL) await db.raw(`drop schema if exists ${schema} cascade`);
    await closeDatabase(db);
  });

  const kind = async () =>
    (await db.raw(`select relkind from pg_class where oid = to_regclass('activity_log')`)).rows[0].relkind as string;
  const primaryKey = async () =>
    (
      await db.raw(
        `select pg_get_constraintdef(oid) as d from pg_constraint where conrelid = to_regclass('activity_log') and contype = 'p'`,
      )
    ).rows[0].d as string;
  const entries = async () => JSON.parse(JSON.stringify(await db('activity_log').select('*').orderBy('id')));

  it('up keeps every entry and column, down makes one table of them again, up again partitions it', async () => {
    await db.migrate.latest(options(upTo(PARTITIONS)));
    await db('workspaces').insert({ id: 'ws_part', name: 'P', slug: 'p', settings: JSON.stringify(DEFAULT_SETTINGS) });
    await db('agents').insert({
      id: 'agt_part',
      workspace_id: 'ws_part',
      name: 'A',
      slug: 'a',
      surfaces: '{}',
      cors: '{}',
      capabilities: '{}',
      guardrails: '{}',
    });
    const row = (i: number) => ({
      id: `act_part${i}`,
      workspace_id: 'ws_part',
      agent_id: 'agt_part',
      kind: 'request',
      surface: 'HTTP_API',
      status: 200,
      request_body: JSON.stringify({ n: i }),
      trace_id: i === 1 ? '4bf92f3577b34da6a3ce929d0e0e4736' : null,
      spans: i === 1 ? JSON.stringify([{ name: 'chat gpt-4o', startMs: 0, endMs: 12 }]) : null,
      created_at: new Date(Date.now() - i * 86_400_000),
    });
    await db('activity_log').insert([row(1), row(2), row(40)]);
    const before = await entries();
    expect(await primaryKey()).to.equal('PRIMARY KEY (id)');

    await db.migrate.latest(options(migrationSource));
    expect(await kind()).to.equal('p');
    expect(await primaryKey()).to.equal('PRIMARY KEY (id, created_at)');
    expect(await entries()).to.deep.equal(before);
    // The insert's conflict target: an entry stored again is stored once.
    await db.raw(`insert into activity_log (id, workspace_id, agent_id, kind, surface, created_at)
      select id, workspace_id, agent_id, kind, surface, created_at from activity_log on conflict (id, created_at) do nothing`);
    expect(await entries()).to.deep.equal(before);

    // The partitioning's own down (later migrations, independent of it, stay applied).
    await db.migrate.down({ ...options(migrationSource), name: PARTITIONS });
    expect(await kind()).to.equal('r');
    expect(await primaryKey()).to.equal('PRIMARY KEY (id)');
    expect(await entries()).to.deep.equal(before);

    await db.migrate.latest(options(migrationSource));
    expect(await kind()).to.equal('p');
    expect(await entries()).to.deep.equal(before);
  });
});
