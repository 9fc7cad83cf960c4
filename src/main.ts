import { ConfigError, loadConfig } from './infra/config.js';
import { listenProblem } from './infra/listen-check.js';
import { firstStartBanner } from './infra/first-start-banner.js';
import { listeningLine } from './infra/listening-line.js';
import { modelProviderLine } from './infra/model-provider-line.js';

// Entry point of `npm start`: configuration from the environment, then the composition root. The
// composition root (and with it every library of the service) is loaded only once the
// configuration is valid and the port free, so a start refused for either says so in a fraction of
// a second instead of after loading the whole service.

async function main(): Promise<void> {
  const config = loadConfig();
  // Before the database is touched: a first start that could not listen would otherwise create
  // the admin token and exit before printing it.
  const problem = await listenProblem(config.port, config.host);
  if (problem) throw new StartError(problem);
  const { buildService } = await import('./server.js');
  const service = await buildService(config);
  const { bootstrap, logger } = service;
  // The token is printed before anything else can fail.
  if (bootstrap.generatedToken)
    console.log(firstStartBanner(bootstrap.workspace.name, bootstrap.generatedToken, config.baseUrl));
  const { url } = await service.listen();
  logger.info({ url, database: config.databaseUrl ? 'postgresql' : `embedded (${config.dataDir})` }, 'listening');

  if (service.secretsKeyFile) {
    console.log(
      `\nGenerated the secrets key at ${service.secretsKeyFile} (mode 0600). Back it up: stored secrets cannot be read without it.`,
    );
  }
  if (bootstrap.created && config.adminToken) {
    console.log('\nWorkspace and admin member created; the admin token is the value of ADMIN_TOKEN.\n');
  } else if (bootstrap.generatedTokenUnused) {
    console.log(
      '\nThe admin token generated on the first start has not been used yet. If you do not have it (it is printed only once),\n' +
        'restart with ADMIN_TOKEN set to a value of your choice (at least 16 characters): that value becomes the admin token.\n',
    );
  }
  console.log(modelProviderLine(config));
  console.log(listeningLine(config.baseUrl, url));

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

/** A start refused for a reason the message says in full (no stack needed). */
class StartError extends Error {}

main().catch((err) => {
  if (err instanceof ConfigError || err instanceof StartError) console.error(err.message);
  else console.error('Failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
