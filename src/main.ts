import { ConfigError, loadConfig } from './infra/config.js';
import { buildService } from './server.js';

// Entry point of `npm start`: configuration from the environment, then the composition root.

async function main(): Promise<void> {
  const config = loadConfig();
  const service = await buildService(config);
  const { url } = await service.listen();
  const { bootstrap, logger } = service;
  logger.info({ url, database: config.databaseUrl ? 'postgresql' : `embedded (${config.dataDir})` }, 'listening');

  if (service.secretsKeyFile) {
    console.log(`\nGenerated the secrets key at ${service.secretsKeyFile} (mode 0600). Back it up: stored secrets cannot be read without it.`);
  }
  if (bootstrap.generatedToken) {
    console.log(
      [
        '',
        '================ first start ================',
        `Workspace "${bootstrap.workspace.name}" and an admin member were created.`,
        `Admin token (shown once, store it now): ${bootstrap.generatedToken}`,
        '',
        'Next steps:',
        `  export ADMIN_TOKEN=${bootstrap.generatedToken}`,
        `  curl -s ${url}/graphql -H 'content-type: application/json' -H "authorization: Bearer $ADMIN_TOKEN" \\`,
        `    -d '{"query":"mutation { createAgent(input: {name: \\"My agent\\"}) { id } }"}'`,
        '  Then create a key (createAgentApiKey) and an endpoint (addHttpEndpoint): see README.md.',
        '=============================================',
        '',
      ].join('\n'),
    );
  } else if (bootstrap.created && config.adminToken) {
    console.log('\nWorkspace and admin member created; the admin token is the value of ADMIN_TOKEN.\n');
  }
  console.log(`Agent Exposure Service listening on ${url} (GraphQL at ${url}/graphql)`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await service.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error('Failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
