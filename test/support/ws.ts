/**
 * Clients of GraphQL over WebSocket (graphql-ws, subprotocol graphql-transport-ws) against a
 * running service: a subscription through graphql-ws's own client, one connection each, with
 * every result stamped with the moment it arrived; and a bare socket, to see exactly how the
 * server closes a connection it refuses.
 */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { elapsed, waitUntil } from './live.ts';

/** The GraphQL WebSocket endpoint of a service at `baseUrl`. */
export const wsUrl = (baseUrl: string) => `${baseUrl.replace(/^http/, 'ws')}/graphql`;

export interface WsResult {
  result: { data?: any; errors?: { message: string; extensions?: Record<string, any> }[] };
  /** Date.now() when it arrived. */
  at: number;
  /** performance.now() when it arrived. */
  t: number;
}

export interface WsClose {
  code: number;
  reason: string;
}

/** One subscription on a connection of its own. */
export class WsSubscription {
  readonly results: WsResult[] = [];
  completed: { at: number; t: number } | undefined;
  /** What the sink's `error` got: the operation's errors, or the CloseEvent of a failed connection. */
  error: unknown;
  closed: WsClose | undefined;
  private readonly client: Client;

  constructor(url: string, token: string | undefined, query: string, variables?: Record<string, unknown>) {
    this.client = createClient({
      url,
      webSocketImpl: WebSocket,
      connectionParams: token === undefined ? {} : { Authorization: `Bearer ${token}` },
      retryAttempts: 0,
      lazy: true,
      on: {
        closed: (event) => {
          const { code, reason } = event as WsClose;
          this.closed = { code, reason: String(reason) };
        },
      },
    });
    this.client.subscribe(
      { query, variables },
      {
        next: (result) => this.results.push({ result: result as WsResult['result'], at: Date.now(), t: elapsed() }),
        error: (error) => {
          this.error = error;
          this.completed = { at: Date.now(), t: elapsed() };
        },
        complete: () => {
          this.completed ??= { at: Date.now(), t: elapsed() };
        },
      },
    );
  }

  /** The changes received. */
  changes(): any[] {
    return this.results.filter((r) => r.result.data?.changes).map((r) => r.result.data.changes);
  }

  /** The results that carry errors. */
  errorResults(): WsResult[] {
    return this.results.filter((r) => r.result.errors);
  }

  async until(predicate: (s: this) => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    await waitUntil(
      () => {
        if (predicate(this)) return true;
        // Nothing more will come: fail now rather than at the timeout.
        if (this.completed) throw new Error(`the subscription ended before ${what}; got ${this.describe()}`);
        return false;
      },
      () => `${what}; got ${this.describe()}`,
      timeoutMs,
    );
  }

  /** Waits for the subscription to complete; answers the last result if it carried errors. */
  async ended(timeoutMs = 15_000): Promise<WsResult | undefined> {
    await this.until((s) => s.completed !== undefined, 'the subscription to complete', timeoutMs);
    const last = this.results.at(-1);
    return last?.result.errors ? last : undefined;
  }

  /** The client goes away: closes its socket. */
  async close(): Promise<void> {
    await this.client.dispose();
  }

  describe(): string {
    const shown = this.results.map((r) => JSON.stringify(r.result).slice(0, 200));
    return `${this.results.length} results [${shown.slice(-5).join(' | ')}]${this.completed ? ' (completed)' : ''}${this.error ? ` (error: ${describeError(this.error)})` : ''}${this.closed ? ` (closed ${this.closed.code} ${this.closed.reason})` : ''}`;
  }
}

function describeError(error: unknown): string {
  if (Array.isArray(error)) return JSON.stringify(error);
  const { code, reason, message } = error as { code?: number; reason?: string; message?: string };
  return code === undefined ? String(message ?? error) : `close ${code} ${reason}`;
}

/**
 * A bare graphql-transport-ws socket that sends connection_init with `payload` and reports how
 * the connection ended, or the connection_ack if it was accepted (then it closes it itself).
 */
export function connectionInit(url: string, payload: Record<string, unknown>): Promise<WsClose | 'ack'> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, 'graphql-transport-ws');
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error('no answer to connection_init within 10 s'));
    }, 10_000);
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload })));
    socket.on('message', (data) => {
      if (JSON.parse(String(data)).type === 'connection_ack') {
        clearTimeout(timer);
        resolve('ack');
        socket.close(1000);
      }
    });
    socket.on('close', (code, reason) => {
      clearTimeout(timer);
      resolve({ code, reason: reason.toString() });
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
