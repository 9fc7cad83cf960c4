// Which test files each test script runs (docs/testing.md, "CI layout (issue 50)"). Every file under
// test/unit, test/integration and test/e2e is in exactly one of unit, db and browser;
// `scripts/test-groups-check.ts` (run by CI) fails when one is in none or in two, when a browser
// test is outside `browser`, or when a unit test opens a database.
//
// - unit: no database, no service, no browser. Runs once (`npm run test:unit`).
// - db: a database (the run's harness or a service of their own), no browser. Runs on the embedded
//   database and on PostgreSQL (`npm run test:db`).
// - browser: the files that drive Chromium, also on a database. Runs on both databases, one Chromium
//   per run (`npm run test:browser`, test/helpers/chromium.ts).
// - smoke: a few db files that exercise the runtime end to end on the packages most tied to the Node
//   version (the service started in a child process as `npm start` does, the OpenAI and MCP SDK clients, SSE
//   streaming, the QuickJS sandbox, the SMTP listener, webhook signatures, oidc-provider's sign-in);
//   the Node 24 pass of CI runs them (`npm run test:smoke`). They are in `db` as well.

/** The files that launch Chromium (playwright-core), directly or through the console harness. */
const BROWSER = [
  'test/e2e/console-accounts.test.ts',
  'test/e2e/console-activity.test.ts',
  'test/e2e/console-browser.test.ts',
  'test/e2e/console-channels.test.ts',
  'test/e2e/console-documents.test.ts',
  'test/e2e/console-http-api.test.ts',
  'test/e2e/console-invitations.test.ts',
  'test/e2e/console-mcp-grants.test.ts',
  'test/e2e/console-member.test.ts',
  'test/e2e/console-openai.test.ts',
  'test/e2e/console-pages.test.ts',
  'test/e2e/console-sso.test.ts',
  'test/e2e/console-webhooks-keys.test.ts',
  'test/e2e/console-workspace.test.ts',
  'test/e2e/docs-browser.test.ts',
  'test/e2e/graphiql-browser.test.ts',
  'test/e2e/mcp-oauth-hostile.test.ts',
  'test/e2e/mcp-oauth-instances.test.ts',
  'test/e2e/mcp-oauth.test.ts',
  'test/e2e/widget-browser.test.ts',
];

const SMOKE = [
  'test/e2e/readme-walkthrough.test.ts',
  'test/e2e/openai-callers.test.ts',
  'test/e2e/mcp.test.ts',
  'test/e2e/chat.test.ts',
  'test/e2e/webhooks.test.ts',
  'test/e2e/security-sandbox.test.ts',
  'test/e2e/email.test.ts',
  'test/e2e/mcp-oauth-flow.test.ts',
];

/** Mocha's `spec` and `ignore` per group; a database group starts with test/setup.ts (the harness). */
const GROUPS = {
  unit: { spec: ['test/setup-unit.ts', 'test/unit/**/*.test.ts'], ignore: [] },
  db: { spec: ['test/setup.ts', 'test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'], ignore: BROWSER },
  browser: { spec: ['test/setup.ts', ...BROWSER], ignore: [] },
  smoke: { spec: ['test/setup.ts', ...SMOKE], ignore: [] },
};

module.exports = { BROWSER, SMOKE, GROUPS };
