/**
 * A webhook receiver for tests: a real HTTP server on 127.0.0.1 that records every call it gets
 * (headers, body, when it came, what it answered, when) and answers as the test tells it: at
 * once or slowly, 2xx or a failure; it can also go down (stop listening) and come back on the
 * same port.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Call {
  id: string;
  headers: Record<string, string>;
  body: string;
  /** The delivery's data: the change-log entry as /changes shows it. */
  data: {
    id: string;
    attributes: { resource_type: string; resource_id: number; op: string } & Record<string, unknown>;
  };
  type: string;
  receivedAt: number;
  status: number;
  answeredAt: number;
}

/** What to answer a call: a status, after a delay (ms). */
export type Behaviour = (call: { id: string; body: string; request: IncomingMessage }) => {
  status: number;
  delayMs?: number;
  headers?: Record<string, string>;
  body?: string;
};

export class Receiver {
  readonly calls: Call[] = [];
  behaviour: Behaviour = () => ({ status: 204 });
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async start(port = 0): Promise<void> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const id = String(request.headers['webhook-id']);
        const receivedAt = performance.now();
        const answer = this.behaviour({ id, body, request });
        setTimeout(() => {
          response.writeHead(answer.status, answer.headers);
          response.end(answer.body ?? '', () => {
            const parsed = JSON.parse(body) as { type: string; data: Call['data'] };
            this.calls.push({
              id,
              headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)])),
              body,
              data: parsed.data,
              type: parsed.type,
              receivedAt,
              status: answer.status,
              answeredAt: performance.now(),
            });
          });
        }, answer.delayMs ?? 0);
      });
    });
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening and cuts every connection: calls fail until `start(this.port)`. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }

  /** The calls answered 2xx. */
  delivered(): Call[] {
    return this.calls.filter((c) => c.status >= 200 && c.status < 300);
  }

  /** The change-log cursors (entry seqs) of the calls answered 2xx, ascending. */
  deliveredSeqs(): number[] {
    return this.delivered()
      .map((c) => Number(c.data.id))
      .sort((a, b) => a - b);
  }

  /** Verifies a call's signature with the standardwebhooks library, as a receiver would; throws when it does not verify. */
  static verify(secret: string, call: Call): unknown {
    return new Webhook(secret).verify(call.body, call.headers);
  }
}
