/**
 * Starts the service: configuration, migrations, first-start demo data, then listening.
 * Start-up failures print one line naming the cause and exit non-zero; SIGTERM drains.
 */
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { createApp } from './app.ts';
import { createClient, DEMO_CLIENT_NAME, type CreatedClient } from './auth/clients.ts';
import { purgeTokens } from './auth/token-purge.ts';
import { purgeIdempotencyKeys } from './http/idempotency.ts';
import { purgeChanges, purgeHistory } from './data/changes.ts';
import { purgeWebhookRecords } from './webhooks/deliveries.ts';
import { systemClock, type Clock } from './clock.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { createDatabase, type Database, type PrismaDb } from './db/client.ts';
import { migrate } from './db/migrate.ts';
import { describeDatabase } from './db/url.ts';
import { trackConnections } from './http/drain.ts';
import { createLogger, FLUSH_INTERVAL_MS } from './observability/logger.ts';
import { seedIfEmpty } from './seed/first-start.ts';
import { withTimeout } from './timeout.ts';
import { startTracing, stopTracing } from './observability/tracing.ts';
import { exposedGc, trimWhenIdle } from './observability/memory.ts';
import { count } from './words.ts';

/** Time allowed for in-flight requests after SIGTERM before connections are cut. */
const DRAIN_TIMEOUT_MS = 8000;
/** Closing the database pool after the drain; a stalled server must not hold the exit. */
const DATABASE_CLOSE_TIMEOUT_MS = 1000;
/** Expired tokens and idempotency keys are deleted this often (each replica; the deletes are idempotent). */
const PURGE_INTERVAL_MS = 60 * 60 * 1000;

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

/**
 * The newcomer's way in: the demo client's credentials, once, on the console. Deliberately not
 * through the logger, which must never carry secrets.
 */
function printDemoClient(client: CreatedClient, url: string): void {
  process.stdout.write(
    [
      '',
      'Demo API client created (its secret is shown only now; create others with `npm run client -- create ... --role admin`):',
      `  client_id:     ${client.client_id}`,
      `  client_secret: ${client.client_secret}`,
      'Get an access token:',
      `  curl -s -u '${client.client_id}:${client.client_secret}' -d grant_type=client_credentials ${url}/oauth/token.php`,
      '',
      '',
    ].join('\n'),
  );
}

function firstLine(error: unknown): string {
  return (
    String((error as Error)?.message ?? error)
      .split('\n')
      .find((l) => l.trim()) ?? 'unknown error'
  );
}

/** The change log and the history of rows, kept alike (how far back as-of reads go: src/db/past.ts). */
function purgeLogAndHistory(db: Database, days: number) {
  return async (prisma: PrismaDb, clock: Clock) =>
    (await purgeChanges(prisma, clock, days)) + (await purgeHistory(db, clock, days));
}

async function start(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(`configuration error: ${error.message}`);
    throw error;
  }
  const logger = createLogger(config.logLevel);

  try {
    const applied = await migrate(config.database, config.databaseTimeouts);
    if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');
  } catch (error) {
    fail(`DATABASE_URL: cannot prepare the ${config.database.provider} database: ${firstLine(error)}`);
  }
  const db = await createDatabase(config.database, config.databaseTimeouts);
  let demoClient: CreatedClient | undefined;
  if (config.seedDemoData) {
    try {
      if (await seedIfEmpty(db)) {
        logger.info('empty database: demo data seeded (scale 1)');
        demoClient = await createClient(db.prisma, DEMO_CLIENT_NAME, ['read', 'write']);
      }
    } catch (error) {
      fail(`DATABASE_URL: cannot seed the demo data: ${firstLine(error)}`);
    }
  }

  if (config.otlpEndpoint) await startTracing(config.otlpEndpoint, config.serviceName, logger);
  const app = createApp({ config, db, logger });
  if (config.webhooks.deliver) app.startDeliveries();
  app.startScheduledChanges();
  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
    const url = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${info.port}${config.basePath}`;
    // Credentials first: whoever waits for the `listening` line finds them already printed.
    if (demoClient) printDemoClient(demoClient, url);
    const { replica } = config.database;
    logger.info(
      {
        url,
        database: db.provider,
        ...(replica && { readReplica: describeDatabase({ provider: 'postgresql', url: replica.url }) }),
      },
      'listening',
    );
    logger.flush();
  });
  server.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') fail(`PORT ${config.port} is already in use on ${config.host}`);
    if (error.code === 'EACCES') fail(`PORT ${config.port} cannot be opened (permission denied)`);
    fail(`HOST/PORT: cannot listen: ${firstLine(error)}`);
  });

  // GraphQL over WebSocket shares the port; any other upgrade is refused.
  server.on('upgrade', (request, socket, head) => {
    if (!app.handleUpgrade(request, socket, head)) socket.destroy();
  });
  const connections = trackConnections(server as Server);
  setInterval(() => logger.flush(), FLUSH_INTERVAL_MS).unref();
  // Memory back to the system once start-up is over and after each burst of requests.
  const idleTrim = trimWhenIdle(exposedGc);
  server.on('request', () => idleTrim.activity());
  const purges = [
    { purge: purgeTokens, what: 'expired and revoked tokens' },
    { purge: purgeIdempotencyKeys, what: 'idempotency keys older than 24 hours' },
    {
      purge: purgeLogAndHistory(db, config.changesRetentionDays),
      what: `change log entries and row versions older than ${count(config.changesRetentionDays, 'day')}`,
    },
    {
      purge: (_prisma: PrismaDb, clock: Clock) => purgeWebhookRecords(db, clock),
      what: 'webhook attempts and deliveries older than 7 days',
    },
  ];
  const purgeExpired = () =>
    purges.map(({ purge, what }) =>
      purge(db.prisma, systemClock).then(
        (purged) => purged > 0 && logger.info({ purged }, `${what} purged`),
        (error: unknown) => logger.warn({ err: firstLine(error) }, `purge of ${what} failed`),
      ),
    );
  // Once at start as well: a replica restarted more often than the interval would never purge.
  void purgeExpired();
  const purge = setInterval(purgeExpired, PURGE_INTERVAL_MS).unref();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining in-flight requests');
    clearInterval(purge);
    idleTrim.stop();
    app.startDraining();
    // The balancer takes this replica out on its health checks; until then it is served as ever.
    if (config.drainDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.drainDelayMs));
    // Subscriptions end with a reason and their clients resume elsewhere; streams would hold the drain.
    await app.close();
    const drained = await connections.drain(DRAIN_TIMEOUT_MS);
    if (!drained) logger.warn('drain timeout: remaining connections were closed');
    await withTimeout(db.close(), DATABASE_CLOSE_TIMEOUT_MS, 'the database did not close in time').catch(
      (error: Error) => logger.warn(error.message),
    );
    await withTimeout(stopTracing(), DATABASE_CLOSE_TIMEOUT_MS, 'the last spans were not exported in time').catch(
      (error: Error) => logger.warn(error.message),
    );
    logger.info('stopped');
    logger.flush(() => process.exit(0));
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

start().catch((error: unknown) => fail(`start-up failed: ${firstLine(error)}`));
