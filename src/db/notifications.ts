/**
 * PostgreSQL LISTEN on a connection of its own, kept open: when it is lost (a restart, a failover,
 * pg_terminate_backend, a network cut) it is opened again, with a growing pause between attempts,
 * and `onConnected` runs after every (re)connection, so that the listener can read what it may
 * have missed meanwhile. For live changes notifications are only a wake-up: what they announce is
 * read from the database, so a lost one costs a delay, never data. A read replica's routing
 * (./read-replica.ts) relies on hearing them, so a connection that stops answering its keepalive
 * within KEEPALIVE_TIMEOUT_MS counts as lost (a silent network cut would otherwise go unnoticed
 * for the kernel's retransmission time, many minutes).
 *
 * A direct connection: LISTEN does not work through a pooler in transaction mode.
 */
import type pg from 'pg';
import { withTimeout } from '../timeout.ts';

/**
 * The channel the change log's numbering notifies when it numbers committed entries (the
 * `changes_number` function of the migrations, and a batch of updates that numbers its own,
 * src/data/update-batches.ts; NOTIFY is delivered at commit, and only then):
 * every process listening wakes its live-change followers (src/data/change-feed.ts), and learns
 * where the writes stand for read-your-writes on a read replica (./read-replica.ts).
 */
export const CHANGES_CHANNEL = 'mdg_changes';

export interface ListenerHandlers {
  /** `payload`: what the notification carried ('' when nothing). */
  onNotification(payload: string): void;
  /** After the first connection and after every reconnection. */
  onConnected(): void;
  /** A lost connection or a failed attempt (the listener goes on trying). */
  onError?(error: Error): void;
}

export interface Listener {
  close(): Promise<void>;
}

const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5000;
/** How often the idle connection proves it is alive (a dead peer would otherwise go unnoticed for hours). */
const KEEPALIVE_MS = 10_000;
const KEEPALIVE_TIMEOUT_MS = 5000;
const CLOSE_TIMEOUT_MS = 1000;

export function listen(url: string, channel: string, handlers: ListenerHandlers, connectMs = 5000): Listener {
  let closed = false;
  let client: pg.Client | undefined;
  let retryMs = FIRST_RETRY_MS;
  let retry: NodeJS.Timeout | undefined;
  let keepalive: NodeJS.Timeout | undefined;

  /** `which` failed: drop it and try again later (once, though 'error' and 'end' may both come). */
  const lost = (which: pg.Client, error: Error) => {
    if (closed || client !== which) return;
    handlers.onError?.(error);
    clearInterval(keepalive);
    client = undefined;
    which.removeAllListeners();
    which.on('error', () => undefined);
    void which.end().catch(() => undefined);
    retry = setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  };

  async function connect(): Promise<void> {
    // Loaded here: a process on SQLite never loads the PostgreSQL driver.
    const { default: pg } = await import('pg');
    if (closed) return;
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectMs, keepAlive: true });
    client = next;
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next, new Error('the listening connection ended')));
    next.on('notification', (message) => {
      if (message.channel === channel) handlers.onNotification(message.payload ?? '');
    });
    try {
      await next.connect();
      await next.query(`LISTEN "${channel}"`);
    } catch (error) {
      lost(next, error as Error);
      return;
    }
    if (closed || client !== next) return;
    retryMs = FIRST_RETRY_MS;
    keepalive = setInterval(
      () =>
        void withTimeout(
          next.query('SELECT 1'),
          KEEPALIVE_TIMEOUT_MS,
          'the listening connection stopped answering',
        ).catch((error: Error) => lost(next, error)),
      KEEPALIVE_MS,
    );
    keepalive.unref();
    handlers.onConnected();
  }

  void connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      clearInterval(keepalive);
      const last = client;
      client = undefined;
      if (last) {
        last.removeAllListeners();
        last.on('error', () => undefined);
        // A server that stopped answering never acknowledges the end: the socket is cut after a
        // second, so that a drain does not wait on it.
        await withTimeout(last.end(), CLOSE_TIMEOUT_MS, 'the listening connection did not close').catch(() =>
          (last as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy(),
        );
      }
    },
  };
}
