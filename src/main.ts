/**
 * Starts the service: configuration, migrations, first-start demo data, then listening.
 * Start-up failures print one line naming the cause and exit non-zero; SIGTERM drains.
 */
import { serve } from '@hono/node-server';
import { createApp } from './app.ts';
import { createClient, type CreatedClient } from './auth/clients.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { createDatabase } from './db/client.ts';
import { migrate } from './db/migrate.ts';
import { createLogger } from './observability/logger.ts';
import { seedIfEmpty } from './seed/write.ts';

/** Time allowed for in-flight requests after SIGTERM before connections are cut. */
const DRAIN_TIMEOUT_MS = 8000;

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
      'Demo API client created (its secret is shown only now; create others with `npm run client -- create`):',
      `  client_id:     ${client.client_id}`,
      `  client_secret: ${client.client_secret}`,
      'Get an access token:',
      `  curl -s -u '${client.client_id}:${client.client_secret}' -d grant_type=client_credentials ${url}/oauth/token.php`,
      '',
    ].join('\n') + '\n',
  );
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n').find((l) => l.trim()) ?? 'unknown error';
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
    const applied = await migrate(config.database);
    if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');
  } catch (error) {
    fail(`DATABASE_URL: cannot prepare the ${config.database.provider} database: ${firstLine(error)}`);
  }
  const db = createDatabase(config.database);
  let demoClient: CreatedClient | undefined;
  if (config.seedDemoData) {
    try {
      if (await seedIfEmpty(db)) {
        logger.info('empty database: demo data seeded (scale 1)');
        demoClient = await createClient(db.prisma, 'demo', ['read', 'write']);
      }
    } catch (error) {
      fail(`DATABASE_URL: cannot seed the demo data: ${firstLine(error)}`);
    }
  }

  const app = createApp({ config, db, logger });
  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
    const url = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${info.port}${config.basePath}`;
    logger.info({ url, database: db.provider }, 'listening');
    if (demoClient) printDemoClient(demoClient, url);
  });
  server.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') fail(`PORT ${config.port} is already in use on ${config.host}`);
    if (error.code === 'EACCES') fail(`PORT ${config.port} cannot be opened (permission denied)`);
    fail(`HOST/PORT: cannot listen: ${firstLine(error)}`);
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining in-flight requests');
    app.startDraining();
    setTimeout(() => {
      logger.warn('drain timeout: closing remaining connections');
      if ('closeAllConnections' in server) server.closeAllConnections();
    }, DRAIN_TIMEOUT_MS).unref();
    server.close(async () => {
      await db.close();
      logger.info('stopped');
      process.exit(0);
    });
    if ('closeIdleConnections' in server) server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

start().catch((error: unknown) => fail(`start-up failed: ${firstLine(error)}`));
