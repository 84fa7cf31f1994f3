/**
 * The service's configuration, read from the environment once. Nothing else reads process.env.
 * A bad value is a ConfigError whose message is one line naming the variable.
 */
import { z } from 'zod';
import { parseDatabaseUrl, type DatabaseTarget } from './db/url.ts';

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
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const DEFAULT_DATABASE_URL = 'file:./data/master-data.db';

const boolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const seconds = z
  .string()
  .regex(/^[1-9]\d*$/, 'must be a whole number of seconds >= 1')
  .transform(Number);

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
});

/** Reads the configuration from an environment (process.env by default). Empty means unset. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(
    Object.keys(schema.shape).flatMap((key) => (env[key] ? [[key, env[key]]] : [])),
  );
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0]);
    const value = env[variable];
    // A database URL may carry a password: never echo it.
    const shown = variable === 'DATABASE_URL' || value === undefined ? '' : ` (got ${JSON.stringify(value)})`;
    throw new ConfigError(`${variable} ${issue.message}${shown}`);
  }
  const v = parsed.data;
  return {
    port: v.PORT,
    host: v.HOST,
    database: v.DATABASE_URL,
    basePath: v.BASE_PATH,
    logLevel: v.LOG_LEVEL,
    seedDemoData: v.SEED_DEMO_DATA,
    accessTokenTtl: v.ACCESS_TOKEN_TTL,
    refreshTokenTtl: v.REFRESH_TOKEN_TTL,
  };
}
