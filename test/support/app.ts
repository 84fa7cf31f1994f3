/** An app over a real database, with its log lines captured. */
import { Readable, Writable } from 'node:stream';
import { createApp, type App, type AppOptions } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import type { MigratedDatabase } from './databases.ts';

export interface TestApp {
  app: App;
  /** Log lines written so far, parsed. */
  logs(): Record<string, unknown>[];
  /** The raw log output, for asserting what must never appear. */
  rawLogs(): string;
  request(path: string, init?: RequestInit): Promise<Response>;
  /** A request as if from a socket at `address` (the in-memory request has none of its own). */
  requestFrom(address: string, path: string, init?: RequestInit): Promise<Response>;
}

export function testApp(
  database: MigratedDatabase,
  overrides: Partial<Config> = {},
  options: Pick<AppOptions, 'clock' | 'throttle'> = {},
): TestApp {
  let raw = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      raw += chunk;
      done();
    },
  });
  const config = { ...loadConfig({ DATABASE_URL: database.target.url }), ...overrides };
  const app = createApp({ config, db: database.db, logger: createLogger('info', sink), ...options });
  return {
    app,
    logs: () =>
      raw
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    rawLogs: () => raw,
    request: (path, init) => Promise.resolve(app.fetch(new Request(`http://localhost${path}`, init))),
    requestFrom: (address, path, init) => {
      // What the Node server hands the app: the incoming message (a stream of the body) and its socket.
      const body = init?.body === undefined || init.body === null ? [] : [Buffer.from(String(init.body))];
      const incoming = Object.assign(Readable.from(body), { socket: { remoteAddress: address } });
      return Promise.resolve(app.fetch(new Request(`http://localhost${path}`, init), { incoming }));
    },
  };
}
