/**
 * What the tests of live changes share, whatever the transport: the subscription document, a
 * subscription as a test sees it (`LiveSubscription`) and a transport that opens one
 * (`Transport`: Server-Sent Events in ./sse.ts, WebSocket in ./ws.ts), the app listening on a
 * real port in this process, writes and tokens over HTTP (in memory or to a running service),
 * the change log read straight from the database, and the check that what subscribers received
 * covers the log without a gap.
 */
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { expect } from 'vitest';
import type { App } from '../../src/app.ts';
import { createClient } from '../../src/auth/clients.ts';
import type { PrismaDb } from '../../src/db/client.ts';
import { basic, type Client } from './oauth.ts';

/** Sends a request to the service: `path` is below the service's root. */
export type Send = (path: string, init: RequestInit) => Promise<Response>;

/** A service over real HTTP, as a `Send`. */
export const over =
  (baseUrl: string): Send =>
  (path, init) =>
    fetch(`${baseUrl}${path}`, init);

export const CHANGES = `subscription Changes($after: String, $types: [ResourceType!]) {
  changes(after: $after, types: $types) { cursor type id op version changed actor at }
}`;

/** Milliseconds on a monotonic clock. */
export const elapsed = () => performance.now();

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `predicate` every 10 ms until it holds; fails with `what()` after `timeoutMs`. */
export async function waitUntil(predicate: () => boolean, what: () => string, timeoutMs: number): Promise<void> {
  const deadline = elapsed() + timeoutMs;
  while (!predicate()) {
    if (elapsed() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`);
    await sleep(10);
  }
}

/** A GraphQL operation over a plain POST; fails unless it answers data without errors. */
export async function graphql(send: Send, token: string, query: string, variables?: Record<string, unknown>) {
  const res = await send('/graphql', {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: any; errors?: unknown[] };
  if (res.status !== 200 || body.errors) throw new Error(`${query} failed: ${res.status} ${JSON.stringify(body)}`);
  return body.data;
}

/** A form POSTed to one of the service's OAuth endpoints by `client` (HTTP Basic). */
const asClient = (send: Send, client: Client, path: string, form: Record<string, string>) =>
  send(path, {
    method: 'POST',
    headers: {
      Authorization: basic(client.client_id, client.client_secret),
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(form).toString(),
  });

/** Tokens of `client` from the service's token endpoint. */
export async function tokensOf(send: Send, client: Client) {
  const res = await asClient(send, client, '/oauth/token.php', { grant_type: 'client_credentials' });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { access_token: string; refresh_token: string; expires_in: number };
}

/** A new API client with `scopes` (named after them) and its tokens, from `send`'s token endpoint. */
export async function clientWithTokens(prisma: PrismaDb, send: Send, scopes = ['read', 'write']) {
  const client = await createClient(prisma, `live-${scopes.join('-')}`, scopes);
  return { client, ...(await tokensOf(send, client)) };
}

/** RFC 7009 revocation of `token` by its client; resolves when the answer (200) is in. */
export async function revokeToken(send: Send, client: Client, token: string): Promise<void> {
  const res = await asClient(send, client, '/oauth/revoke.php', { token });
  expect(res.status, await res.clone().text()).toBe(200);
}

let references = 0;
/** A brand reference no other test uses. */
export const uniqueReference = (prefix: string) =>
  `${prefix}-${process.pid}-${Date.now().toString(36)}-${++references}`;

/** Creates a brand (one `created` entry of BRANDS); answers its id. */
export async function createBrand(send: Send, token: string, prefix = 'LIVE'): Promise<number> {
  const data = await graphql(send, token, 'mutation($r: String!) { createBrand(input: { reference: $r }) { id } }', {
    r: uniqueReference(prefix),
  });
  return Number(data.createBrand.id);
}

/** Creates a unit (one `created` entry of UNITS); answers its id. */
export async function createUnit(send: Send, token: string): Promise<number> {
  const data = await graphql(send, token, 'mutation($r: String!) { createUnit(input: { reference: $r }) { id } }', {
    r: uniqueReference('U'),
  });
  return Number(data.createUnit.id);
}

/** The newest entry of the log (0 when empty): a cursor from which to follow what comes next. */
export async function logHead(prisma: PrismaDb): Promise<number> {
  return (await prisma.change.aggregate({ _max: { seq: true } }))._max.seq ?? 0;
}

/** The (numbered) entries after `seq`, oldest first (of `types`, REST names, when given). */
export async function logAfter(prisma: PrismaDb, seq: number, types?: string[]) {
  const rows = await prisma.change.findMany({
    where: { seq: { gt: seq }, ...(types ? { resource_type: { in: types } } : {}) },
    orderBy: { seq: 'asc' },
    select: { seq: true, resource_type: true, resource_id: true, op: true, version: true, actor: true },
  });
  return rows.map((row) => ({ ...row, seq: row.seq! }));
}

/**
 * What one client received over several connections, one after the other (each resumed from the
 * last cursor of the one before), against the log: each connection in strictly ascending order,
 * and all of them together every entry of `expected`, in order: duplicates allowed across a
 * resume, gaps never.
 */
export function expectGapless(connections: number[][], expected: number[]): void {
  for (const [i, seqs] of connections.entries()) {
    expect(
      seqs.every((s, j) => j === 0 || s > seqs[j - 1]!),
      `connection ${i} is not in ascending order: ${seqs}`,
    ).toBe(true);
  }
  const merged: number[] = [];
  for (const seqs of connections) {
    for (const seq of seqs) {
      if (merged.length === 0 || seq > merged.at(-1)!) merged.push(seq);
      else expect(merged, `duplicate ${seq} was never delivered before`).toContain(seq);
    }
  }
  expect(merged, 'the entries received, duplicates taken out, are the log').toEqual(expected);
}

/** The cursors of received `changes` payloads, as numbers. */
export const seqsOf = (changes: { cursor: string }[]) => changes.map((c) => Number(c.cursor));

/** A GraphQL operation: a document and its variables. */
export interface Operation {
  query: string;
  variables?: Record<string, unknown>;
}

/** One result of an operation as it arrived: a GraphQL result, stamped. */
export interface LiveResult {
  result: { data?: any; errors?: { message: string; path?: unknown[]; extensions?: Record<string, any> }[] };
  /** Date.now() when it arrived (to compare with instants the database holds). */
  at: number;
  /** performance.now() when it arrived (to measure durations). */
  t: number;
}

/**
 * How an operation ended: `complete` after its results (SSE's `event: complete`, graphql-ws's
 * `complete`); `error`, refused with graphql-ws's `error` message (its errors are then the last
 * result); `close`, the connection ended without either (an HTTP error, a socket closed).
 */
export type Ending = 'complete' | 'error' | 'close';

/**
 * An operation (a subscription, or a query) running over a streaming transport, as a client sees
 * it: its results as they arrive, each stamped, and how it ended. The transports fill it in.
 */
export abstract class LiveSubscription {
  readonly results: LiveResult[] = [];
  /** When and how the operation ended; undefined while it runs. */
  completed: { by: Ending; at: number; t: number } | undefined;

  /** The transport took the connection (SSE: an answer 200; WebSocket: connection_ack). */
  abstract get accepted(): boolean;
  /** The connection is over (SSE: the body ended; WebSocket: the socket closed). */
  abstract get finished(): boolean;
  /** The client goes away (SSE: closes its request; WebSocket: its socket). */
  abstract close(): Promise<void>;
  /** What the transport has to say about the connection, for failure messages. */
  protected abstract connection(): string;

  protected received(result: LiveResult['result']): void {
    this.results.push({ result, at: Date.now(), t: elapsed() });
  }

  protected end(by: Ending): void {
    this.completed ??= { by, at: Date.now(), t: elapsed() };
  }

  /** The changes received. */
  changes(): any[] {
    return this.results.filter((r) => r.result.data?.changes).map((r) => r.result.data.changes);
  }

  /** The results that carry errors. */
  errorResults(): LiveResult[] {
    return this.results.filter((r) => r.result.errors);
  }

  /** Waits until `predicate` holds (checked as results arrive), or fails saying what it waited for. */
  async until(predicate: (s: this) => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    await waitUntil(
      () => {
        if (predicate(this)) return true;
        // Nothing more will come: fail now rather than at the timeout.
        if (this.finished) throw new Error(`the connection ended before ${what}; got ${this.describe()}`);
        return false;
      },
      () => `${what}; got ${this.describe()}`,
      timeoutMs,
    );
  }

  /** Waits for the operation to end; answers its last result if that carried errors (the reason). */
  async ended(timeoutMs = 15_000): Promise<LiveResult | undefined> {
    await this.until((s) => s.completed !== undefined, 'the end', timeoutMs);
    const last = this.results.at(-1);
    return last?.result.errors ? last : undefined;
  }

  /** The code of the error it ended with. */
  async endCode(timeoutMs?: number): Promise<string | undefined> {
    return (await this.ended(timeoutMs))?.result.errors?.[0]?.extensions?.code;
  }

  /** A short account of what arrived, for failure messages. */
  describe(): string {
    const shown = this.results.map((r) => JSON.stringify(r.result).slice(0, 200));
    const ended = this.completed ? ` (ended: ${this.completed.by})` : '';
    return `${this.connection()}, ${this.results.length} results [${shown.slice(-5).join(' | ')}]${ended}`;
  }
}

/** How a transport turns a token away before any operation runs. */
export interface Refusal {
  /** The HTTP status (SSE) or the WebSocket close code. */
  code: number;
  /** `<error>: <description>`: RFC 6750's error and error_description, or the close reason. */
  reason: string;
}

/** A way to reach `subscription { changes }`: Server-Sent Events (./sse.ts) or WebSocket (./ws.ts). */
export interface Transport {
  readonly name: string;
  /** Refusal.code for a token that is unknown, expired or revoked. */
  readonly invalidToken: number;
  /**
   * Starts `operation` on the service at `baseUrl` with `token` (null: none). SSE resolves once
   * the answer is in (the subscription runs); WebSocket at once (graphql-ws says nothing when a
   * subscription starts).
   */
  open(baseUrl: string, token: string | null, operation: Operation): Promise<LiveSubscription>;
  /** How the service at `baseUrl` turns `token` away, or `admitted`. */
  refusal(baseUrl: string, token: string): Promise<Refusal | 'admitted'>;
}

/**
 * The app of a test listening on a port of its own in this process, wired as src/main.ts wires
 * it (WebSocket upgrades on the same port), so that its configuration is the test's. `stall()`
 * makes its sockets take no more writes, as when its clients stop reading and TCP's buffers are
 * full (some 4 MB on loopback: too many changes to write in a test); `resume()` lets them go.
 */
export interface Listening {
  baseUrl: string;
  stall(): void;
  resume(): void;
  /** Closes the app (its subscriptions end) and the server. */
  close(): Promise<void>;
}

export async function listen(app: App): Promise<Listening> {
  // The globals stay Node's: the other apps of the test run on them.
  const server = createAdaptorServer({ fetch: app.fetch, overrideGlobalObjects: false }) as Server;
  server.on('upgrade', (request, socket, head) => {
    if (!app.handleUpgrade(request, socket, head)) socket.destroy();
  });
  const sockets = new Set<Socket>();
  let held: (() => void)[] | undefined;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    const write = socket.write;
    socket.write = ((...args: Parameters<Socket['write']>) => {
      if (!held) return write.apply(socket, args);
      // Not written yet: the callback waits, and `false` asks the writer to wait for `drain`.
      held.push(() => write.apply(socket, args));
      return false;
    }) as Socket['write'];
  });
  const resume = () => {
    const writes = held ?? [];
    held = undefined;
    for (const write of writes) write();
    for (const socket of sockets) socket.emit('drain');
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stall: () => {
      held ??= [];
    },
    resume,
    close: async () => {
      resume();
      await app.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Runs `open` with NODE_ENV=production: Yoga pings an SSE stream every 300 ms under
 * NODE_ENV=test (which the test runner sets), every 12 s otherwise, deciding when the stream
 * starts. Streams made as in production, so that a ping cannot stand in for what a test watches
 * (a client that went away is noticed by a write).
 */
export async function asInProduction<T>(open: () => Promise<T>): Promise<T> {
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    return await open();
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
}
