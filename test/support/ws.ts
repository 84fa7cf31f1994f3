/**
 * Clients of GraphQL over WebSocket (graphql-ws, subprotocol graphql-transport-ws) against a
 * running service: an operation through graphql-ws's own client, one connection each, with
 * every result stamped with the moment it arrived; and a bare socket, to see exactly how the
 * server closes a connection it refuses. `websocket` is the transport of the tests that run over
 * every transport (./live.ts).
 */
import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { LiveSubscription, type Operation, type Refusal, type Transport } from './live.ts';

/** The GraphQL WebSocket endpoint of a service at `baseUrl`. */
export const wsUrl = (baseUrl: string) => `${baseUrl.replace(/^http/, 'ws')}/graphql`;

/** One operation on a connection of its own. */
export class WsSubscription extends LiveSubscription {
  /** What the sink's `error` got: the operation's errors, or the CloseEvent of a failed connection. */
  error: unknown;
  closed: Refusal | undefined;
  private acked = false;
  private readonly client: Client;

  constructor(url: string, token: string | null, { query, variables }: Operation) {
    super();
    this.client = createClient({
      url,
      webSocketImpl: WebSocket,
      connectionParams: token === null ? {} : { Authorization: `Bearer ${token}` },
      retryAttempts: 0,
      lazy: true,
      on: {
        connected: () => {
          this.acked = true;
        },
        closed: (event) => {
          const { code, reason } = event as Refusal;
          this.closed = { code, reason: String(reason) };
        },
      },
    });
    this.client.subscribe(
      { query, variables },
      {
        next: (result) => this.received(result as any),
        error: (error) => {
          this.error = error;
          // The operation refused (graphql-ws's `error` message): its errors are the last result.
          if (Array.isArray(error)) this.received({ errors: error });
          this.end(Array.isArray(error) ? 'error' : 'close');
        },
        complete: () => this.end('complete'),
      },
    );
  }

  /** connection_ack came. */
  override get accepted(): boolean {
    return this.acked;
  }

  /** The socket closed. */
  override get finished(): boolean {
    return this.closed !== undefined;
  }

  /** The client goes away: closes its socket. */
  override async close(): Promise<void> {
    await this.client.dispose();
  }

  protected override connection(): string {
    const error = this.error ? ` (error: ${describeError(this.error)})` : '';
    const closed = this.closed ? ` (closed ${this.closed.code} ${this.closed.reason})` : '';
    return `${this.acked ? 'acknowledged' : 'not acknowledged'}${error}${closed}`;
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
export function connectionInit(url: string, payload: Record<string, unknown>): Promise<Refusal | 'ack'> {
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

/** GraphQL over WebSocket: graphql-ws at /graphql, the token in connection_init. */
export const websocket: Transport = {
  name: 'WebSocket',
  invalidToken: 4403,
  open: async (baseUrl, token, operation) => new WsSubscription(wsUrl(baseUrl), token, operation),
  async refusal(baseUrl, token) {
    const answer = await connectionInit(wsUrl(baseUrl), { Authorization: `Bearer ${token}` });
    return answer === 'ack' ? 'admitted' : answer;
  },
};
