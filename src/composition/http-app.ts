import type Koa from 'koa';
import type Provider from 'oidc-provider';
import type { Clock } from '../domain/clock.js';
import type { Services } from '../domain/services.js';
import type { Store } from '../domain/ports.js';
import type { Config } from '../infra/config.js';
import type { Db } from '../infra/db.js';
import type { Logger } from '../infra/logger.js';
import type { ServiceMetrics } from '../infra/metrics.js';
import type { SenderAuthOptions } from '../infra/email/sender-authentication.js';
import { parseRelays } from '../infra/email/trusted-relays.js';
import { mailgunTokens } from '../infra/email/mailgun-tokens.js';
import { graphiqlBundle } from '../infra/graphiql/bundle.js';
import { widgetBundle } from '../infra/widget/bundle.js';
import { consoleBundle } from '../infra/console/bundle.js';
import { admitRegistration } from '../infra/oauth/registration-limits.js';
import { createApp } from '../rest/app.js';
import { mailgunIntake } from '../surfaces/email/mailgun-intake.js';
import { createAuthorizationServer } from '../surfaces/oauth/authorization-server.js';
import type { BuildOptions } from './service.types.js';

export interface HttpAppParts {
  config: Config;
  opts: BuildOptions;
  db: Db;
  store: Store;
  services: Services;
  clock: Clock;
  logger: Logger;
  metrics: ServiceMetrics;
  secretsKey: Buffer;
  graphql: Koa.Middleware;
  graphqlSdl: string;
  /** Read on every `/readyz`: true once shutdown began. */
  draining: () => boolean;
}

/** Who an email is from: SPF/DKIM/DMARC through DNS, or a trusted relay's Authentication-Results. */
export function senderAuthentication(config: Config, opts: BuildOptions): SenderAuthOptions {
  return {
    resolver: opts.dnsResolver,
    mta: config.email.mailDomain,
    relays: config.email.trustedRelays
      ? { relays: parseRelays(config.email.trustedRelays), authservId: config.email.trustedAuthservId }
      : undefined,
  };
}

/** The Koa app with every HTTP surface, the OAuth server per issuer and the Mailgun intake wired in. */
export function wireHttpApp(parts: HttpAppParts): Koa {
  const { config, opts, db, store, services, clock, logger } = parts;
  const providers = new Map<string, Provider>();
  // One authorization server per issuer: BASE_URL's origin, or on port 0 the origin requests came to.
  const providerFor = (issuer: string): Provider => {
    let provider = providers.get(issuer);
    if (!provider) {
      // A few per process, and one per tenant host in use (TENANT_BASE_URL): bounded all the same.
      if (providers.size >= 64) providers.clear();
      provider = createAuthorizationServer(issuer, {
        db,
        oauth: services.mcpOAuth,
        grants: store.repos.mcpGrants,
        secretsKey: parts.secretsKey,
        clientHostsAllowed: config.oauthClientHostsAllowed,
        ...(opts.oauthClientMetadataCa ? { clientMetadataCa: opts.oauthClientMetadataCa } : {}),
        logger,
      });
      providers.set(issuer, provider);
    }
    return provider;
  };
  prebuildBundles(logger);
  return createApp({
    services,
    logger,
    graphql: parts.graphql,
    graphqlSdl: parts.graphqlSdl,
    platformOrigins: config.platformOrigins,
    baseUrl: config.baseUrl,
    ...(config.tenantBaseUrl ? { tenantBaseUrl: config.tenantBaseUrl } : {}),
    widget: widgetBundle,
    graphiql: graphiqlBundle,
    console: consoleBundle,
    chatKeepAliveMs: opts.chatKeepAliveMs,
    metrics: parts.metrics,
    metricsElsewhere: config.metricsPort !== undefined,
    draining: parts.draining,
    oauth: providerFor,
    oauthRegistration: (address) => admitRegistration(db, clock.now(), address, config.oauthRegistration),
    mailgun: mailgunIntake(
      services.emailReceipt,
      mailgunTokens(db),
      clock,
      {
        signingKey: config.email.mailgunSigningKey,
        maxBytes: config.email.maxMessageBytes,
        senderAuth: senderAuthentication(config, opts),
        trustSpfHeader: config.email.mailgunTrustSpf,
      },
      logger,
    ),
  });
}

/** Built now so that the first `GET /widget.js` (or console, or GraphiQL page) does not wait for it. */
function prebuildBundles(logger: Logger): void {
  widgetBundle().catch((err: unknown) => logger.error({ err }, 'The chat widget could not be built'));
  graphiqlBundle().catch((err: unknown) =>
    logger.error({ err }, 'GraphiQL (the page of /graphql in a browser) could not be built'),
  );
  consoleBundle().catch((err: unknown) =>
    logger.error(
      { err },
      'The console could not be built (its packages are devDependencies: npm install, or npm run build)',
    ),
  );
}
