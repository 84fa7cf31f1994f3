/**
 * Statements as PostgreSQL receives them: a TCP relay between a server of ours and PostgreSQL that
 * counts, in what the server sends, the messages that run a statement: Query (simple protocol: the
 * BEGIN and COMMIT node-postgres sends as text) and Execute (extended protocol: every statement
 * with parameters, named or not). Our server's own counter (`db_statements_total`) counts the
 * statements of its data layer; this one counts everything on the wire (transaction control, the
 * as-of reads' set_config, a token's re-check), for the statement probes of the as-of case
 * (./as-of.ts). Used for probes only, never for timing: the relay is JavaScript in the bench's
 * process, on the same two cores.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { freePort } from './servers.ts';

export interface WireCounter {
  /** The URL to give the server instead of the database's: the same, through the relay. */
  url: string;
  /** Statements (Query + Execute messages) sent through the relay so far, and of each kind. */
  counts(): { statements: number; query: number; execute: number; parse: number };
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/** A relay to the database of `url` (host and port), counting what clients send. */
export async function wireCounter(url: string): Promise<WireCounter> {
  const target = new URL(url);
  const totals = { query: 0, execute: 0, parse: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
    sockets.add(client);
    sockets.add(upstream);
    upstream.pipe(client);
    // The client's bytes: the start-up message (no type byte; an SSL or GSS request is answered
    // with one byte and followed by the real start-up), then typed messages: type, int32 length.
    let buffer: Buffer = Buffer.alloc(0);
    let started = false;
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      for (;;) {
        if (!started) {
          if (buffer.length < 8) break;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) break;
          const code = buffer.readInt32BE(4);
          if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) started = true;
          buffer = buffer.subarray(length);
          continue;
        }
        if (buffer.length < 5) break;
        const length = buffer.readInt32BE(1);
        if (buffer.length < 1 + length) break;
        const type = String.fromCharCode(buffer[0]!);
        if (type === 'Q') totals.query++;
        else if (type === 'E') totals.execute++;
        else if (type === 'P') totals.parse++;
        buffer = buffer.subarray(1 + length);
      }
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(port);
  return {
    url: relayed.toString(),
    counts: () => ({ statements: totals.query + totals.execute, ...totals }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
