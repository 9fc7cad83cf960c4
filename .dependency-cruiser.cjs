/**
 * Import rules (docs/decisions.md "Where things live"). `npm run lint` runs them with the
 * formatter's check; CI runs `npm run lint`.
 */
const PROTOCOL_LIBRARIES =
  '^(koa|@koa/|knex|knex-pglite|pg|@electric-sql/pglite|@modelcontextprotocol/|@a2a-js/|openai|ai|@ai-sdk/|graphql|type-graphql|@apollo/|smtp-server|nodemailer|mailparser|mailauth|twilio|oidc-provider|pino|prom-client|quickjs-emscripten)($|/)';

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
      to: { path: '^src/(infra|rest|graphql|surfaces|console|widget|graphiql|server|main)' },
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
      // src/surfaces/* is not listed: a surface's inbound adapters (the SMTP listener and Mailgun
      // intake verifying senders with infra/email/sender-authentication, parse-inbound's storable
      // text, the OAuth server over infra/oauth's records and metadata fetching) are transports of
      // their own, like src/server.ts's workers. Koa routes there still take storage through ports.
      name: 'adapters-take-infra-by-type-only',
      severity: 'error',
      comment:
        'rest and graphql get storage and infrastructure through the domain ports the composition root wires; they may name infra types.',
      from: { path: '^src/(rest|graphql)/' },
      to: { path: '^src/infra/', dependencyTypesNot: ['type-only'] },
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
