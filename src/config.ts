/**
 * The service's configuration, read from the environment once. Nothing else reads process.env.
 * A bad value is a ConfigError whose message is one line naming the variable.
 */
import { z } from 'zod';
import { LOCALES, type Locale } from './resources/types.ts';
import { parseCidr } from './webhooks/targets.ts';
import { parseDatabaseUrl, type DatabaseTarget, type DatabaseTimeouts } from './db/url.ts';

export interface Config {
  /** TCP port to listen on (0 picks a free one). */
  port: number;
  /** Interface to bind. */
  host: string;
  database: DatabaseTarget;
  /** Path prefix of every route, '' or '/something' (no trailing slash). */
  basePath: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Seed demo data (and a demo API client) when the service starts on an empty database. */
  seedDemoData: boolean;
  /** Lifetime of access tokens, seconds. */
  accessTokenTtl: number;
  /** Lifetime of each refresh token, seconds (every rotation issues a fresh one). */
  refreshTokenTtl: number;
  /** Days the change log keeps its entries (0: for ever). */
  changesRetentionDays: number;
  /** Bounds on live changes (GraphQL subscriptions), per replica. */
  subscriptions: {
    /** Open subscriptions on this replica. */
    max: number;
    /** Open subscriptions of one API client on this replica. */
    perClient: number;
    /** Changes that may wait for a slow subscriber before it is ended. */
    maxBacklog: number;
  };
  /** Bounds on every wait for the database (see DatabaseTimeouts). */
  databaseTimeouts: DatabaseTimeouts;
  /** Largest request body accepted on any route, bytes (the token endpoints accept less). */
  maxBodyBytes: number;
  /** Requests (GraphQL, REST, tokens; not the operators' routes) worked on at once; the others wait their turn (src/http/concurrency.ts). */
  maxConcurrentRequests: number;
  /**
   * Reverse proxies in front of the service whose X-Forwarded-For entries are trusted. 0: the
   * client address is the socket's peer; 1: the last X-Forwarded-For entry (what the one proxy saw).
   */
  trustProxy: number;
  /**
   * Whether GraphQL answers introspection (GraphiQL needs it); off also hides field suggestions,
   * and the published SDL then needs a token like the API.
   */
  graphqlIntrospection: boolean;
  /** Whether GET /metrics is served (open, without a token, as monitoring scrapes it). */
  metrics: boolean;
  /** Order in which localized text falls back to another language. */
  localeFallback: Locale[];
  /** OTLP/HTTP endpoint that spans are exported to; tracing is off when unset. */
  otlpEndpoint: string | undefined;
  /** The `service.name` of the spans. */
  serviceName: string;
  /**
   * On SIGTERM, how long /readyz answers 503 (requests still served) before the listener closes:
   * the time a load balancer's health checks need to take this replica out.
   */
  drainDelayMs: number;
  /** Webhook delivery (src/webhooks/). */
  webhooks: WebhookConfig;
}

export interface WebhookConfig {
  /** Whether this replica delivers (takes endpoints' leases). */
  deliver: boolean;
  /** Targets may be http:// as well as https://. */
  allowHttp: boolean;
  /** Networks (CIDRs) that targets may be in although they are not public. */
  allowedNetworks: string[];
  /** How long a failing delivery is tried again before it is dead-lettered (ms). */
  retryForMs: number;
  /** The wait before the first retry; each next one doubles it, up to an hour (ms). */
  firstRetryMs: number;
  /** An endpoint with no success for this long is disabled (ms). */
  disableAfterMs: number;
  /** The longest an attempt may take, answer included (ms). */
  timeoutMs: number;
  /** Calls in flight at once per endpoint. */
  concurrency: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const DEFAULT_DATABASE_URL = 'file:./data/master-data.db';

const boolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const count = z
  .string()
  .regex(/^[1-9]\d*$/, 'must be a whole number >= 1')
  .transform(Number);

const seconds = z
  .string()
  .regex(/^[1-9]\d*$/, 'must be a whole number of seconds >= 1')
  .transform(Number);

const milliseconds = z
  .string()
  .regex(/^[1-9]\d*$/, 'must be a whole number of milliseconds >= 1')
  .transform(Number);

/** An optional PostgreSQL URL; `what` says in the error what it must name. */
const optionalPostgresUrl = (what: string) =>
  z
    .string()
    .optional()
    .refine((url) => url === undefined || /^postgres(ql)?:\/\//.test(url), `must be a postgresql:// URL (${what})`);

const schema = z.object({
  PORT: z
    .string()
    .regex(/^\d+$/, 'must be an integer from 0 to 65535')
    .transform(Number)
    .refine((n) => n <= 65535, 'must be an integer from 0 to 65535')
    .default(4000),
  HOST: z.string().min(1, 'must not be empty').default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .default(DEFAULT_DATABASE_URL)
    .transform((url, ctx) => {
      try {
        return parseDatabaseUrl(url);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  BASE_PATH: z
    .string()
    .regex(/^(\/[A-Za-z0-9._~-]+)*\/?$/, 'must be a path such as /api (letters, digits, . _ ~ -)')
    .transform((p) => p.replace(/\/$/, ''))
    .default(''),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      message: 'must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  SEED_DEMO_DATA: boolean.default(true),
  ACCESS_TOKEN_TTL: seconds.default(3600),
  REFRESH_TOKEN_TTL: seconds.default(30 * 24 * 3600),
  CHANGES_RETENTION_DAYS: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of days (0 keeps every entry)')
    .transform(Number)
    .default(90),
  SUBSCRIPTIONS_MAX: count.default(2000),
  SUBSCRIPTIONS_PER_CLIENT: count.default(200),
  SUBSCRIPTION_MAX_BACKLOG: count.default(1000),
  DATABASE_POOL_MODE: z
    .enum(['session', 'transaction'], {
      message:
        'must be session (a direct connection, or a pooler in session mode) or transaction (PgBouncer pool_mode = transaction)',
    })
    .default('session'),
  DATABASE_DIRECT_URL: optionalPostgresUrl('a direct connection to the database'),
  DATABASE_REPLICA_URL: optionalPostgresUrl('a streaming replica of the database'),
  DATABASE_REPLICA_MAX_LAG_MS: milliseconds.default(5000),
  DATABASE_CONNECT_TIMEOUT_MS: milliseconds.default(5000),
  DATABASE_STATEMENT_TIMEOUT_MS: milliseconds.default(5000),
  MAX_BODY_BYTES: z
    .string()
    .regex(/^[1-9]\d*$/, 'must be a whole number of bytes >= 1')
    .transform(Number)
    .default(1024 * 1024),
  MAX_CONCURRENT_REQUESTS: z
    .string()
    .regex(/^[1-9]\d*$/, 'must be a whole number of requests >= 1')
    .transform(Number)
    .default(10),
  TRUST_PROXY: z
    .string()
    .regex(/^\d+$/, 'must be the number of trusted reverse proxies (0 for none)')
    .transform(Number)
    .default(0),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .regex(/^https?:\/\/[^\s]+$/, 'must be an http(s) URL, e.g. http://collector:4318')
    .optional(),
  OTEL_SERVICE_NAME: z.string().min(1, 'must not be empty').default('master-data-gateway'),
  DRAIN_DELAY_MS: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of milliseconds (0: close at once)')
    .transform(Number)
    .default(0),
  GRAPHQL_INTROSPECTION: boolean.default(true),
  METRICS: boolean.default(true),
  LOCALE_FALLBACK: z
    .string()
    .transform((text) => text.split(',').map((l) => l.trim().toLowerCase()))
    .refine(
      (list) => list.length === LOCALES.length && LOCALES.every((l) => list.includes(l)),
      'must list nl, fr, en and de once each, e.g. en,nl,fr,de',
    )
    .default(['en', 'nl', 'fr', 'de']),
  WEBHOOKS_DELIVER: boolean.default(true),
  WEBHOOKS_ALLOW_HTTP: boolean.default(false),
  WEBHOOKS_ALLOWED_NETWORKS: z
    .string()
    .transform((text) =>
      text
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean),
    )
    .refine(
      (list) => list.every((cidr) => parseCidr(cidr)),
      'must be CIDRs separated by commas, e.g. 10.20.0.0/16,fd12::/64',
    )
    .default([]),
  WEBHOOKS_RETRY_SECONDS: seconds.default(24 * 3600),
  WEBHOOKS_FIRST_RETRY_MS: milliseconds.default(5000),
  WEBHOOKS_DISABLE_AFTER_SECONDS: seconds.default(3 * 24 * 3600),
  WEBHOOKS_TIMEOUT_MS: milliseconds.default(10_000),
  WEBHOOKS_CONCURRENCY: count.default(16),
});

/** The environment variables the service reads. */
export const CONFIG_VARIABLES = Object.keys(schema.shape);

/** Reads the configuration from an environment (process.env by default). Empty means unset. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(CONFIG_VARIABLES.flatMap((key) => (env[key] ? [[key, env[key]]] : [])));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0]);
    const value = env[variable];
    // A database URL (the main, direct or replica one) may carry a password: never echo it.
    const shown =
      /^DATABASE_(\w+_)?URL$/.test(variable) || value === undefined ? '' : ` (got ${JSON.stringify(value)})`;
    throw new ConfigError(`${variable} ${issue.message}${shown}`);
  }
  const v = parsed.data;
  return {
    port: v.PORT,
    host: v.HOST,
    database: {
      ...v.DATABASE_URL,
      ...(v.DATABASE_URL.provider === 'postgresql' && v.DATABASE_POOL_MODE === 'transaction'
        ? { transactionPooler: true }
        : {}),
      ...(v.DATABASE_URL.provider === 'postgresql' && v.DATABASE_DIRECT_URL
        ? { directUrl: v.DATABASE_DIRECT_URL }
        : {}),
      ...(v.DATABASE_URL.provider === 'postgresql' && v.DATABASE_REPLICA_URL
        ? { replica: { url: v.DATABASE_REPLICA_URL, maxLagMs: v.DATABASE_REPLICA_MAX_LAG_MS } }
        : {}),
    },
    basePath: v.BASE_PATH,
    logLevel: v.LOG_LEVEL,
    seedDemoData: v.SEED_DEMO_DATA,
    accessTokenTtl: v.ACCESS_TOKEN_TTL,
    refreshTokenTtl: v.REFRESH_TOKEN_TTL,
    changesRetentionDays: v.CHANGES_RETENTION_DAYS,
    subscriptions: {
      max: v.SUBSCRIPTIONS_MAX,
      perClient: v.SUBSCRIPTIONS_PER_CLIENT,
      maxBacklog: v.SUBSCRIPTION_MAX_BACKLOG,
    },
    databaseTimeouts: { connectMs: v.DATABASE_CONNECT_TIMEOUT_MS, statementMs: v.DATABASE_STATEMENT_TIMEOUT_MS },
    maxBodyBytes: v.MAX_BODY_BYTES,
    maxConcurrentRequests: v.MAX_CONCURRENT_REQUESTS,
    trustProxy: v.TRUST_PROXY,
    graphqlIntrospection: v.GRAPHQL_INTROSPECTION,
    metrics: v.METRICS,
    localeFallback: v.LOCALE_FALLBACK as Locale[],
    drainDelayMs: v.DRAIN_DELAY_MS,
    otlpEndpoint: v.OTEL_EXPORTER_OTLP_ENDPOINT,
    serviceName: v.OTEL_SERVICE_NAME,
    webhooks: {
      deliver: v.WEBHOOKS_DELIVER,
      allowHttp: v.WEBHOOKS_ALLOW_HTTP,
      allowedNetworks: v.WEBHOOKS_ALLOWED_NETWORKS,
      retryForMs: v.WEBHOOKS_RETRY_SECONDS * 1000,
      firstRetryMs: v.WEBHOOKS_FIRST_RETRY_MS,
      disableAfterMs: v.WEBHOOKS_DISABLE_AFTER_SECONDS * 1000,
      timeoutMs: v.WEBHOOKS_TIMEOUT_MS,
      concurrency: v.WEBHOOKS_CONCURRENCY,
    },
  };
}
