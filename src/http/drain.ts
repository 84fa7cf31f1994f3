/**
 * Graceful shutdown of an HTTP server that loses no request: stop accepting connections, let
 * every request in flight finish (the app marks its responses `Connection: close`, so keep-alive
 * clients leave after their current request), close connections that sit idle, and cut what is
 * left at a deadline.
 *
 * Why not `server.close()` alone: since Node 19 it also destroys idle keep-alive connections at
 * once, and a client that has just sent its next request on one of them (in flight on the wire,
 * not yet read) sees the connection reset. Here a connection is closed only after it has been
 * idle for a moment, which a client that keeps sending requests never is.
 */
import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/** How long a connection must have been idle, once draining, before it is closed. */
const IDLE_GRACE_MS = 500;
const POLL_MS = 50;

export interface Drain {
  /** Resolves true when every connection closed by itself, false when some were cut at the deadline. */
  drain(timeoutMs: number): Promise<boolean>;
}

export function trackConnections(server: Server): Drain {
  /** Requests in flight per open connection, and since when it has had none. */
  const connections = new Map<Socket, { active: number; idleSince: number }>();
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { active: 0, idleSince: Date.now() });
    socket.once('close', () => connections.delete(socket));
  });
  server.on('request', (request, response) => {
    const state = connections.get(request.socket);
    if (!state) return;
    state.active += 1;
    response.once('close', () => {
      state.active -= 1;
      if (state.active === 0) state.idleSince = Date.now();
    });
  });

  return {
    async drain(timeoutMs) {
      NetServer.prototype.close.call(server); // stop listening; leave open connections alone
      const deadline = Date.now() + timeoutMs;
      while (connections.size > 0 && Date.now() < deadline) {
        const now = Date.now();
        for (const [socket, state] of connections) {
          if (state.active === 0 && now - state.idleSince >= IDLE_GRACE_MS) socket.destroy();
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      if (connections.size === 0) return true;
      for (const socket of connections.keys()) socket.destroy();
      return false;
    },
  };
}
