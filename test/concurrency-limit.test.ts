/**
 * MAX_CONCURRENT_REQUESTS on a real process and real sockets: requests beyond the bound wait
 * their turn, operators' routes never wait, and a client that leaves while its request waits
 * neither holds a turn nor blocks the ones behind it.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyDatabase, type TestDatabase } from './support/databases.ts';
import { demoClientToken, type RunningService, startService } from './support/process.ts';

const QUERY = JSON.stringify({ query: '{ units(first: 1) { nodes { id } } }' });

describe('MAX_CONCURRENT_REQUESTS=1', () => {
  let database: TestDatabase;
  let service: RunningService;
  let token: string;

  beforeAll(async () => {
    database = await emptyDatabase('sqlite');
    service = await startService({ DATABASE_URL: database.target.url, MAX_CONCURRENT_REQUESTS: '1' });
    token = await demoClientToken(service);
  });
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  /** A POST /graphql on a socket of its own; `sent` bytes of the body go out now, the rest on `finish`. */
  function graphqlOnSocket(sent = QUERY.length) {
    const { port } = new URL(service.baseUrl);
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (d) => (received += d));
    socket.on('error', () => undefined);
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${QUERY.length}\r\nConnection: close\r\n\r\n` +
        QUERY.slice(0, sent),
    );
    const answered = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
    return { socket, answered, finish: () => socket.write(QUERY.slice(sent)), status: () => received.slice(9, 12) };
  }

  it('makes the second request wait for the first, answers /readyz meanwhile, and skips a client that left', async () => {
    // The first request holds the only turn while its body has not all arrived.
    const first = graphqlOnSocket(10);
    await new Promise((r) => setTimeout(r, 200));
    const second = graphqlOnSocket();
    const leaving = graphqlOnSocket();
    await new Promise((r) => setTimeout(r, 300));
    expect(second.status()).toBe('');
    expect((await fetch(`${service.baseUrl}/readyz`)).status).toBe(200);
    leaving.socket.resetAndDestroy();

    first.finish();
    expect((await first.answered).slice(9, 12)).toBe('200');
    expect((await second.answered).slice(9, 12)).toBe('200');
    // No turn was lost to the client that left: the next request is answered at once.
    const next = await fetch(`${service.baseUrl}/graphql`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: QUERY,
      signal: AbortSignal.timeout(5000),
    });
    expect(next.status).toBe(200);
    expect(((await next.json()) as { data: { units: { nodes: unknown[] } } }).data.units.nodes).toHaveLength(1);
    // The log is written out once a second (FLUSH_INTERVAL_MS).
    await expect.poll(() => service.output(), { timeout: 3000 }).toContain('"status":499');
  });
});
