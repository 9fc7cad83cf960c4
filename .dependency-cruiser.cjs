/**
 * Import rules (docs/decisions.md "Where things live"). `npm run lint` runs them with the
 * formatter's check; CI runs `npm run lint`.
 */
const PROTOCOL_LIBRARIES =
  '^(koa|@koa/|knex|knex-pglite|pg|@electric-sql/pglite|@modelcontextprotocol/|@a2a-js/|openai|ai|@ai-sdk/|graphql|type-graphql|@apollo/|smtp-server|nodemailer|mailparser|mailauth|twilio|oidc-provider|pino|prom-client|quickjs-emscripten|@opentelemetry/)($|/)';

/**
 * The surfaces' inbound adapters that are transports of their own, like the workers src/server.ts
 * starts: they use infra by value (the SMTP and Mailgun intakes verify senders with
 * infra/email/sender-authentication; parse-inbound stores text as the activity sink does; the
 * OAuth server runs over infra/oauth's records and metadata fetching). Every other surface file,
 * the Koa routes first, takes infra through ports.
 */
const INBOUND_ADAPTERS =
  '^src/surfaces/(email/(mail-intake|mailgun-intake|parse-inbound)|oauth/authorization-server)[.]ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-file-cycles',
      severity: 'error',
      comment: 'No import cycle between files, type-only imports included.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-domain-folder-cycles',
      severity: 'error',
      comment: 'The folders of src/domain import each other in one direction only.',
      scope: 'folder',
      from: { path: '^src/domain/' },
      to: { path: '^src/domain/', circular: true },
    },
    {
      name: 'domain-stays-inside',
      severity: 'error',
      comment: 'The domain imports no adapter: not infra, rest, graphql, surfaces or the process entry.',
      from: { path: '^src/domain/' },
      to: { path: '^src/(infra|rest|graphql|surfaces|console|widget|graphiql|composition|server|main)' },
    },
    {
      name: 'domain-no-protocol-libraries',
      severity: 'error',
      comment: 'The domain speaks no transport, storage or protocol library; ports carry what it needs.',
      from: { path: '^src/domain/' },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'],
        path: PROTOCOL_LIBRARIES,
      },
    },
    {
      name: 'adapters-take-infra-by-type-only',
      severity: 'error',
      comment:
        'rest, graphql and the surfaces get storage and infrastructure through the domain ports the composition root wires; they may name infra types.',
      from: { path: '^src/(rest|graphql|surfaces)/', pathNot: INBOUND_ADAPTERS },
      to: { path: '^src/infra/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-async-hooks',
      severity: 'error',
      comment:
        'No AsyncLocalStorage or async hooks in the service: on Node 20 one in use makes every promise of the process cost more; pass the call (docs/decisions.md, "The call\'s span is passed, not looked up").',
      from: { path: '^src/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?async_hooks$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    moduleSystems: ['es6', 'cjs'],
  },
};
