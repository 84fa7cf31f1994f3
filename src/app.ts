/**
 * Builds the service as a fetch handler: no side effects, no listening (that is main.ts), so
 * tests call `app.fetch(new Request(...))` in memory.
 */
import { RoleBook } from './permissions/book.ts';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Hono, type Context } from 'hono';
import { BearerRefusal, requireBearer } from './auth/bearer.ts';
import { FailureThrottle, DEFAULT_THROTTLE, type ThrottleOptions } from './auth/throttle.ts';
import { demoTokens, isLocalBrowser } from './auth/demo.ts';
import { tokenEndpoints } from './auth/token-endpoint.ts';
import { TokenService } from './auth/tokens.ts';
import { systemClock, type Clock } from './clock.ts';
import { withTimeout } from './timeout.ts';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import { isDatabaseUnavailable } from './db/errors.ts';
import { sessionUrl } from './db/url.ts';
import { DomainError } from './data/errors.ts';
import { ChangeFeed } from './data/change-feed.ts';
import { ERROR_HEADERS, fromDomainError, HttpError, serviceUnavailable, shapeA, shapeB } from './http/errors.ts';
import { rejectUnstorableUrls } from './http/input.ts';
import { idempotentPosts } from './http/idempotency.ts';
import { limitConcurrency, type RequestQueue } from './http/concurrency.ts';
import { graphqlRoutes } from './graphql/http.ts';
import { TrustedDocuments } from './graphql/trusted-documents.ts';
import { SubscriptionLimits } from './graphql/subscription-limits.ts';
import { restApi } from './rest/api.ts';
import { changeRequestRoutes } from './rest/change-requests.ts';
import { ChangeRequests } from './change-requests/requests.ts';
import { ScheduledChanges } from './change-requests/scheduler.ts';
import { apiDocs } from './rest/docs.ts';
import { observeRequests, traceRequests } from './http/observe.ts';
import type { Logger } from './observability/logger.ts';
import { createMetrics, type Metrics, webhookMetrics } from './observability/metrics.ts';
import { webhookRoutes } from './rest/webhooks.ts';
import { WebhookDeliveries } from './webhooks/deliveries.ts';
import { Endpoints } from './webhooks/endpoints.ts';
import { type Resolver, Targets } from './webhooks/targets.ts';

export interface AppOptions {
  config: Config;
  db: Database;
  logger: Logger;
  /** Time source for token expiry and throttling windows (tests move it). */
  clock?: Clock;
  /** Failure throttling of the token endpoints. */
  throttle?: ThrottleOptions;
  /** How webhook targets' names are resolved (tests rebind names). */
  resolve?: Resolver;
}

export interface App {
  /** Hono's fetch handler; the Node server passes its bindings (the socket) as `env`. */
  fetch: (request: Request, env?: unknown) => Response | Promise<Response>;
  /** The Node server's `upgrade` requests: GraphQL over WebSocket at /graphql; false for any other. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Ends live streams: each subscription gets SERVER_SHUTTING_DOWN, WebSocket connections close. */
  close(): Promise<void>;
  /** Starts delivering webhooks from this replica (main.ts; tests that want deliveries). */
  startDeliveries(): void;
  /** Starts applying scheduled change requests as they come due, on this replica (main.ts; tests that want it). */
  startScheduledChanges(): void;
  metrics: Metrics;
  /** Every route the app answers (method and path pattern), middleware left out. */
  routes(): { method: string; path: string }[];
  /**
   * Marks the service as draining: /readyz answers 503 so load balancers stop sending work, and
   * every response carries `Connection: close` so keep-alive clients leave.
   */
  startDraining(): void;
}

const READINESS_TIMEOUT_MS = 2000;
/** The routes of operators and orchestrators (operationalRoutes). */
const OPERATOR_PATHS = { health: '/healthz', ready: '/readyz', metrics: '/metrics' };
/** How long a drain waits for subscriptions to send why they end. */
const SUBSCRIPTIONS_CLOSE_MS = 1000;
/**
 * How long a readiness answer is reused. /readyz is open: without this, anyone could keep the
 * database busy with SELECT 1, one per request; with it, probes cost at most one statement a second.
 */
export const READINESS_REUSE_MS = 1000;

/**
 * Whether the database answers, checked at most once per READINESS_REUSE_MS: concurrent probes
 * share the check in flight. A change of state is logged once, not on every probe.
 */
function readinessProbe(db: Database, logger: Logger): () => Promise<boolean> {
  let last: { startedAt: number; ready: Promise<boolean> } | undefined;
  let state: 'ready' | 'unavailable' = 'ready';
  const check = () =>
    withTimeout(
      db.prisma.$queryRawUnsafe('SELECT 1'),
      READINESS_TIMEOUT_MS,
      'no answer within the readiness timeout',
    ).then(
      () => {
        if (state === 'unavailable') logger.info('database available again: ready');
        state = 'ready';
        return true;
      },
      (error: unknown) => {
        if (state === 'ready') logger.warn({ err: (error as Error)?.message }, 'database unavailable: not ready');
        state = 'unavailable';
        return false;
      },
    );
  return () => {
    const now = performance.now();
    if (!last || now - last.startedAt >= READINESS_REUSE_MS) last = { startedAt: now, ready: check() };
    return last.ready;
  };
}

export function createApp(options: AppOptions): App {
  const { config, db, logger, clock = systemClock, throttle = DEFAULT_THROTTLE, resolve } = options;
  const metrics = createMetrics(db);
  const roles = new RoleBook(db.prisma, db.provider);
  const tokens = new TokenService(db.prisma, clock, config.accessTokenTtl, config.refreshTokenTtl, db.provider, roles);
  const revocations = followRevocations(db, config, tokens, logger);
  const roleChanges = followRoleChanges(db, config, roles, logger);
  let draining = false;
  const app = new Hono().basePath(config.basePath || '/');

  app.use('*', traceRequests());
  app.use('*', observeRequests(logger, metrics));
  app.use('*', async (c, next) => {
    await next();
    if (draining) c.header('Connection', 'close');
  });
  app.use('*', rejectUnstorableUrls());
  app.use(
    '*',
    requireBearer(tokens, {
      basePath: config.basePath,
      metrics: config.metrics,
      introspection: config.graphqlIntrospection,
    }),
  );
  // Operators' routes answer at once whatever the load: a health check must not queue.
  const operatorPaths = Object.values(OPERATOR_PATHS).map((path) => config.basePath + path);
  const requestQueue = { waiting: 0 };
  app.use('*', limitConcurrency(config.maxConcurrentRequests, operatorPaths, requestQueue));
  app.use(
    '*',
    idempotentPosts({
      prisma: db.prisma,
      clock,
      maxBodyBytes: config.maxBodyBytes,
      graphqlPath: `${config.basePath}/graphql`,
    }),
  );
  // Every route that reads a body reads it within its limit (src/http/body.ts): the token
  // endpoints a few KB, GraphQL and REST MAX_BODY_BYTES.
  app.route(
    '/',
    tokenEndpoints({ tokens, throttle: new FailureThrottle(clock, throttle), logger, trustProxy: config.trustProxy }),
  );
  const pageToken = pageTokenOf(db, tokens, clock, config);
  const changeFeed = changeFeedOf(db, config, logger);
  const { max: perReplica, perClient } = config.subscriptions;
  const subscriptions = new SubscriptionLimits({ perReplica, perClient });
  const webhooks = webhooksOf(app, { db, config, roles, changeFeed, logger, metrics, clock, resolve, requestQueue });
  const changeRequests = new ChangeRequests(db, roles, () => clock.now());
  const documents = trustedDocumentsOf(db, tokens, clock, logger);
  const live = { changeFeed, subscriptions, watchToken: tokens.watch.bind(tokens), webhooks: webhooks.endpoints };
  const shared = { db, tokens, logger, metrics, clock, documents };
  const graphql = graphqlRoutes({
    ...shared,
    graphiqlToken: pageToken,
    basePath: config.basePath,
    live: { ...live, changeRequests },
    localeChain: config.localeFallback,
    introspection: config.graphqlIntrospection,
    maxBodyBytes: config.maxBodyBytes,
  });
  app.route('/', graphql.routes);
  const scheduled = restRoutes(app, { db, config, requests: changeRequests, clock, logger });
  app.route('/', apiDocs({ basePath: config.basePath, pageToken }));

  operationalRoutes(app, { db, logger, metrics, metricsRoute: config.metrics, draining: () => draining });
  answerErrors(app, logger, graphql.answerError);

  return {
    fetch: (request, env) => app.fetch(request, env),
    handleUpgrade: (request, socket, head) => graphql.websocket.handleUpgrade(request, socket, head),
    startDeliveries: () => webhooks.deliveries.start(),
    startScheduledChanges: () => scheduled.start(),
    close: async () => {
      await Promise.all([scheduled.close(), webhooks.deliveries.close(), documents.writeUses()]);
      await revocations?.close();
      await roleChanges?.close();
      changeFeed.close();
      // Each subscription sends SERVER_SHUTTING_DOWN before its socket closes.
      await subscriptions.whenNoneOpen(SUBSCRIPTIONS_CLOSE_MS);
      await graphql.websocket.close();
    },
    metrics,
    routes: () => app.routes.filter((r) => !r.path.endsWith('*')).map(({ method, path }) => ({ method, path })),
    startDraining: () => {
      draining = true;
    },
  };
}

/**
 * The token the pages that call the API (GraphiQL, the API reference) open with: the demo
 * client's, for a browser on this machine (./auth/demo.ts).
 */
function pageTokenOf(db: Database, tokens: TokenService, clock: Clock, config: Config) {
  const demoToken = demoTokens(db.prisma, tokens, clock);
  return (c: Context) =>
    config.seedDemoData && isLocalBrowser(c, config.trustProxy) ? demoToken() : Promise.resolve(undefined);
}

/** The clients' trusted documents, forgotten with the tokens when a change is announced (the CLI's). */
function trustedDocumentsOf(db: Database, tokens: TokenService, clock: Clock, logger: Logger): TrustedDocuments {
  const documents = new TrustedDocuments(db, clock, logger);
  tokens.onForget(() => documents.forget());
  return documents;
}

/** The committed changes that subscriptions follow. */
function changeFeedOf(db: Database, config: Config, logger: Logger): ChangeFeed {
  return new ChangeFeed(db, {
    maxBacklog: config.subscriptions.maxBacklog,
    // Notifications wake the feed on PostgreSQL; the poll is the safety net, and on SQLite what
    // brings the writes of other processes (the CLI).
    pollMs: db.provider === 'postgresql' ? 5000 : 1000,
    listenUrl: db.provider === 'postgresql' ? sessionUrl(config.database) : undefined,
    onError: (error, what) => logger.warn({ err: error.message }, what),
  });
}

/**
 * Webhook endpoints (both APIs manage them; REST's routes are mounted here) and their delivery
 * from this replica, not started. Calls yield to the API's requests waiting for a slot.
 */
function webhooksOf(
  app: Hono,
  options: {
    db: Database;
    config: Config;
    roles: RoleBook;
    changeFeed: ChangeFeed;
    logger: Logger;
    metrics: Metrics;
    clock: Clock;
    resolve?: Resolver;
    requestQueue: RequestQueue;
  },
) {
  const { db, config, logger } = options;
  const targets = new Targets({ ...config.webhooks, resolve: options.resolve });
  const attempts = webhookMetrics(options.metrics.registry, () => deliveries.backlogs());
  const deliveries: WebhookDeliveries = new WebhookDeliveries({
    db,
    roles: options.roles,
    feed: options.changeFeed,
    requestQueue: options.requestQueue,
    policy: { ...config.webhooks, targets },
    onAttempt: (outcome) => attempts.inc({ outcome }),
    onError: (error, what) => logger.warn({ err: error.message }, what),
  });
  const endpoints = new Endpoints(db, targets, options.clock, () => deliveries.changed());
  const { basePath, trustProxy, maxBodyBytes } = config;
  app.route('/', webhookRoutes({ endpoints, basePath, trustProxy, maxBodyBytes }));
  return { endpoints, deliveries };
}

/** PostgreSQL: revocations anywhere reach this replica's trusted tokens at once (NOTIFY). */
function followRevocations(db: Database, config: Config, tokens: TokenService, logger: Logger) {
  if (db.provider !== 'postgresql') return undefined;
  return tokens.followRevocations(sessionUrl(config.database), (error) =>
    logger.warn({ err: error.message }, 'the revocations listener was lost; reconnecting'),
  );
}

/** PostgreSQL: role changes anywhere reach this replica at once (NOTIFY). */
/**
 * The REST layer: the old interface's routes, and the change requests its writes may wait as;
 * what applies the scheduled ones on this replica, not yet started.
 */
function restRoutes(
  app: Hono,
  {
    db,
    config,
    requests,
    clock,
    logger,
  }: { db: Database; config: Config; requests: ChangeRequests; clock: Clock; logger: Logger },
): ScheduledChanges {
  const { basePath, maxBodyBytes, trustProxy } = config;
  app.route('/', changeRequestRoutes({ db, requests, basePath, trustProxy, maxBodyBytes }));
  app.route('/', restApi({ db, basePath, maxBodyBytes, trustProxy, logger, requests }));
  return new ScheduledChanges(db, requests, clock, (error, what) => logger.error({ err: error }, what));
}

function followRoleChanges(db: Database, config: Config, roles: RoleBook, logger: Logger) {
  if (db.provider !== 'postgresql') return undefined;
  return roles.follow(sessionUrl(config.database), (error) =>
    logger.warn({ err: error.message }, 'the role changes listener was lost; reconnecting'),
  );
}

/** The routes operators and orchestrators call: liveness, readiness (503 while draining) and metrics. */
function operationalRoutes(
  app: Hono,
  options: { db: Database; logger: Logger; metrics: Metrics; metricsRoute: boolean; draining: () => boolean },
): void {
  const { db, logger, metrics, metricsRoute, draining } = options;
  app.get(OPERATOR_PATHS.health, (c) => c.json({ status: 'ok' }));

  const databaseReady = readinessProbe(db, logger);
  app.get(OPERATOR_PATHS.ready, async (c) => {
    if (draining()) return c.json({ status: 'draining' }, 503);
    const ready = await databaseReady();
    return c.json({ status: ready ? 'ready' : 'unavailable', database: db.provider }, ready ? 200 : 503);
  });

  if (metricsRoute) {
    app.get(OPERATOR_PATHS.metrics, async (c) =>
      c.body(await metrics.registry.metrics(), 200, { 'Content-Type': metrics.registry.contentType }),
    );
  }
}

/**
 * Where every error becomes a response: shape A for 404, shape B for the rest, RFC 6750's body for
 * a bearer refusal, never internals; on /graphql every one as GraphQL errors with a code
 * (`answerGraphql`).
 */
function answerErrors(
  app: Hono,
  logger: Logger,
  answerGraphql: (c: Context, error: HttpError | BearerRefusal) => Response | undefined,
): void {
  const errorBody = (c: Context, body: unknown, status: number, headers: Record<string, string> = {}) =>
    c.body(JSON.stringify(body), status as 400, { ...ERROR_HEADERS, ...headers });

  app.notFound((c) => errorBody(c, shapeA(404, `no resource at ${c.req.method} ${c.req.path}`), 404));

  app.onError((error, c) => {
    if (error instanceof DomainError) error = fromDomainError(error);
    if (isDatabaseUnavailable(error)) {
      logger.warn({ err: (error as Error).message?.split('\n').at(-1) }, 'database unavailable');
      error = serviceUnavailable();
    }
    if (!(error instanceof HttpError) && !(error instanceof BearerRefusal)) {
      // Anything else is a bug: log it whole, answer without internals.
      logger.error({ err: error }, 'unhandled error');
      error = new HttpError(500, 'internal_error', 'the server could not complete the request');
    }
    const answered = error as HttpError | BearerRefusal;
    const graphqlAnswer = answerGraphql(c, answered);
    if (graphqlAnswer) return graphqlAnswer;
    if (answered instanceof BearerRefusal) return answered.answer(c);
    const { status, code, message, headers } = answered;
    const body = code === 'not_found' ? shapeA(status, message) : shapeB(status, code, message);
    return errorBody(c, body, status, headers);
  });
}
