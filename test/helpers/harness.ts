import type http from 'node:http';
import type { Knex } from 'knex';
import type { Config } from '../../src/infra/config.js';
import { loadConfig } from '../../src/infra/config.js';
import { closeDatabase, dumpDatabase, openDatabase } from '../../src/infra/db.js';
import { createLogger } from '../../src/infra/logger.js';
import { migrateLatest } from '../../src/infra/migrate.js';
import { buildService, type Service } from '../../src/server.js';
import { TestDns, type DkimSigner } from './mail-auth.js';
import { newId } from '../../src/domain/ids.js';
import { generateKey } from '../../src/domain/core/key-material.js';
import { DEFAULT_SETTINGS } from '../../src/domain/workspace/settings.js';
import { ensureAccount } from '../../src/domain/workspace/workspace-rows.js';
import type { Role } from '../../src/domain/principal.js';
import { startTestOidc, type TestOidc } from './oidc-provider.js';

// One database and one started service per test run (PGlite in memory, or the PostgreSQL of
// TEST_DATABASE_URL with its public schema reset). Tests isolate themselves by creating their own
// workspace with `newWorkspace()`; everything the service stores is scoped by workspace.

export interface Harness {
  service: Service;
  db: Knex;
  url: string;
  onPostgres: boolean;
  config: Config;
  /** The SMTP listener's port (the email channel's way in). */
  smtpPort: number;
  /** Signs mail as customer.example: the harness's DNS serves its key, so such mail authenticates (and is answered). */
  customerDkim: DkimSigner;
  /** The single sign-on provider the service is configured with (its provider made on first `use`). */
  oidc: TestOidc;
}

/** The SMS provider account of the harness's service (TWILIO_*): callbacks are signed with this token. */
export const HARNESS_TWILIO = { accountSid: 'AC0000000000harness', authToken: 'harness-twilio-auth-token' };

let harness: Harness | undefined;

// Under a mutation tester every mutant starts the harness again in the same process. Creating an
// embedded database takes about 1.5 s; a copy of the freshly migrated one opens in about 0.4 s, so
// those runs start from that copy: each run still gets a database of its own, as `npm test` does.
const underMutationTesting = () => '__stryker__' in globalThis;
let migratedCopy: Blob | undefined;

export const TEST_SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

export async function startHarness(): Promise<Harness> {
  if (harness) return harness;
  const databaseUrl = process.env.TEST_DATABASE_URL || undefined;
  const db = await openDatabase({
    databaseUrl,
    dataDir: 'memory',
    loadDataDir: databaseUrl ? undefined : migratedCopy,
  });
  if (databaseUrl) {
    await db.raw('drop schema if exists public cascade');
    await db.raw('create schema public');
  }
  if (!migratedCopy || databaseUrl) await migrateLatest(db);
  if (!databaseUrl && !migratedCopy && underMutationTesting()) migratedCopy = await dumpDatabase(db);
  const oidc = await startTestOidc();
  const config = loadConfig({
    ...oidc.env,
    DATABASE_URL: databaseUrl,
    DATA_DIR: 'memory',
    SECRETS_KEY: TEST_SECRETS_KEY,
    ADMIN_TOKEN: 'bootstrap-admin-token-for-tests',
    LOG_LEVEL: 'silent',
    PORT: '0',
    // Each workspace also answers on <slug>.agents.test (test/integration/tenant-hosts.test.ts): no
    // port in the template, since the harness's is chosen at listen; on a chosen port (PORT 0) a
    // tenant host's base URL takes the port its request came to.
    TENANT_BASE_URL: 'http://{tenant}.agents.test',
    // The channels' ways in are on; their ways out lead nowhere (replies stay queued, retried).
    SMTP_PORT: '0',
    MAIL_DOMAIN: 'harness.example.test',
    TWILIO_ACCOUNT_SID: HARNESS_TWILIO.accountSid,
    TWILIO_AUTH_TOKEN: HARNESS_TWILIO.authToken,
    TWILIO_API_BASE: 'http://127.0.0.1:9',
  });
  const dns = new TestDns();
  const customerDkim = dns.signer('customer.example');
  const service = await buildService(config, {
    db,
    skipMigrations: true,
    logger: createLogger('silent'),
    dnsResolver: dns.resolver,
    // Outbound events (test/e2e/event-webhooks.test.ts): 3 attempts 100 ms apart, a subscription
    // disabled after 2 deliveries in a row failed every attempt, retries looked for every 250 ms.
    eventRetry: { retryDelay: (failures) => (failures < 3 ? 100 : null), disableAfter: 2 },
    eventWorker: { pollMs: 250 },
  });
  const { url, smtpPort, server } = await service.listen(0, '127.0.0.1');
  keepIdleConnectionsLonger(server);
  harness = { service, db, url, onPostgres: Boolean(databaseUrl), config, smtpPort: smtpPort!, customerDkim, oidc };
  return harness;
}

/**
 * Node's server closes an idle connection after 5 s and tells the client so (`Keep-Alive:
 * timeout=5`); the tests' fetch (undici) then reuses it for up to 4 s. On a machine busy enough to
 * run a timer a second late, a test that waited 4–5 s sends on a connection the server has just
 * closed and fails with ECONNRESET before the server read it. With 60 s, only a test idle for about
 * a minute meets that race, instead of any test that waits a few seconds.
 */
export function keepIdleConnectionsLonger(server: http.Server): void {
  server.keepAliveTimeout = 60_000;
}

export function h(): Harness {
  if (!harness) throw new Error('harness not started (test/setup.ts starts it)');
  return harness;
}

export async function stopHarness(): Promise<void> {
  if (!harness) return;
  await harness.service.close();
  await closeDatabase(harness.db);
  await harness.oidc.stop();
  harness = undefined;
}

export interface TestWorkspace {
  workspaceId: string;
  adminId: string;
  adminToken: string;
  /** Adds a member with a token. */
  addMember(role?: Role): Promise<{ memberId: string; token: string }>;
}

/** A fresh workspace with an admin member and token, created directly through the repositories. */
export async function newWorkspace(): Promise<TestWorkspace> {
  const { repos } = h().service.store;
  const now = new Date();
  const wsId = newId('ws');
  const ws = await repos.workspaces.insert({
    id: wsId,
    name: 'Test workspace',
    slug: wsId.slice(3),
    settings: DEFAULT_SETTINGS,
    dailyCreditLimit: null,
    createdAt: now,
    updatedAt: now,
  });
  const addMember = async (role: Role = 'MEMBER') => {
    const memberId = newId('mem');
    const account = await ensureAccount(repos, { email: `${memberId}@example.test`, name: memberId }, now);
    await repos.members.insert({
      id: memberId,
      workspaceId: ws.id,
      accountId: account.id,
      email: `${memberId}@example.test`,
      name: memberId,
      role,
      createdAt: now,
    });
    const k = generateKey('mt');
    await repos.memberTokens.insert({
      id: newId('mtk'),
      memberId,
      name: 'test',
      scope: 'WORKSPACE',
      tokenHash: k.hash,
      prefix: k.prefix,
      last4: k.last4,
      createdAt: now,
      lastUsedAt: null,
      revokedAt: null,
    });
    return { memberId, token: k.plaintext };
  };
  const admin = await addMember('ADMIN');
  return { workspaceId: ws.id, adminId: admin.memberId, adminToken: admin.token, addMember };
}

export interface GqlResult<T = any> {
  status: number;
  data: T;
  errors?: { message: string; path?: string[]; extensions?: { code?: string; field?: string; [k: string]: unknown } }[];
}

/** POSTs a GraphQL operation to the started service. */
export async function gql<T = any>(
  token: string | undefined,
  query: string,
  variables?: Record<string, unknown>,
): Promise<GqlResult<T>> {
  const res = await fetch(`${h().url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: T; errors?: GqlResult['errors'] };
  return { status: res.status, data: body.data as T, errors: body.errors };
}

/** Like gql, but fails the test when the operation returned errors. */
export async function gqlOk<T = any>(token: string, query: string, variables?: Record<string, unknown>): Promise<T> {
  const r = await gql<T>(token, query, variables);
  if (r.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(r.errors)}`);
  return r.data;
}

/** The `extensions.code` of the first error, for refusal assertions. */
export function errorCode(r: GqlResult): string | undefined {
  return r.errors?.[0]?.extensions?.code;
}

/** Creates an agent through GraphQL and returns its id. */
export async function createAgent(token: string, input: Record<string, unknown> = {}): Promise<string> {
  const d = await gqlOk<{ createAgent: { id: string } }>(
    token,
    'mutation($input: CreateAgentInput!) { createAgent(input: $input) { id } }',
    {
      input: { name: 'Test agent', ...input },
    },
  );
  return d.createAgent.id;
}
