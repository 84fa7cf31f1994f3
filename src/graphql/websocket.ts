/**
 * GraphQL over WebSocket at /graphql: the graphql-ws protocol (subprotocol
 * `graphql-transport-ws`), for subscriptions and queries. The access token comes in the
 * `connection_init` payload, `{"Authorization": "Bearer <token>"}`, and needs the `read` scope;
 * every operation goes through the pipeline (./pipeline.ts), as over HTTP;
 * without a valid one the socket is closed with 4403 and the reason. Every subscribe checks the
 * token again (a revoked or expired one is refused), and a running subscription ends when its
 * token does (./subscriptions.ts). The server pings every 12 s, so that proxies keep idle
 * sockets open and dead peers are noticed. A message may be as long as a request body
 * (MAX_BODY_BYTES); a longer one closes the socket with 1009.
 *
 * Dependencies: ws (the WebSocket server Node lacks) and graphql-ws (the protocol: connection
 * set-up, subscribe and complete messages, ids, pings), rather than implementing either.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { type WebSocket, WebSocketServer } from 'ws';
import { bearerToken } from '../auth/bearer.ts';
import type { BearerAuth, TokenService } from '../auth/tokens.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import { SERVICE_UNAVAILABLE } from './errors.ts';
import { type GraphQLPipeline, type OperationRequest, type ReadyOperation, Refusal } from './pipeline.ts';

export interface GraphQLWebSocket {
  /** Takes an HTTP upgrade request; answers whether it was one for this endpoint. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  close(): Promise<void>;
}

const KEEPALIVE_MS = 12_000;

interface Connection {
  token?: string;
  auth?: BearerAuth;
}

/** The token of a connection_init payload: `Authorization` in any case, as a bearer credential. */
function tokenOf(payload: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const header = Object.entries(payload ?? {}).find(([name]) => name.toLowerCase() === 'authorization')?.[1];
  return typeof header === 'string' ? bearerToken(header) : undefined;
}

/**
 * A message over the limit is the client's doing, and ws has answered it already (it closes the
 * socket with 1009): its 'error' event is not passed on, or graphql-ws would log it on stderr as
 * an internal error of ours, once for every such client.
 */
function quietOversizedMessages(ws: WebSocket): void {
  const emit = ws.emit.bind(ws);
  ws.emit = ((event: string, ...args: unknown[]) =>
    event === 'error' && (args[0] as { code?: unknown } | undefined)?.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH'
      ? true
      : emit(event, ...args)) as WebSocket['emit'];
}

/** The `documentId` of a subscribe payload, when it carries one. */
function idOf(payload: object): string | undefined {
  const id = (payload as { documentId?: unknown }).documentId;
  return typeof id === 'string' ? id : undefined;
}

/** What graphql-ws hands over to run: the pipeline's ready operation, and the request it came with. */
interface Prepared {
  request: OperationRequest;
  ready: ReadyOperation;
}

export function graphqlWebSocket(
  pipeline: GraphQLPipeline,
  tokens: TokenService,
  graphqlPath: string,
  maxMessageBytes: number,
): GraphQLWebSocket {
  // A message is what a request body is over HTTP: bounded alike (ws would take 100 MiB, and
  // ends a longer one with 1009, "message too big").
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxMessageBytes });
  const connections = new WeakMap<object, Connection>();
  const prepared = new WeakMap<object, Prepared>();
  const run = (args: object) => {
    const { request, ready } = prepared.get(args)!;
    return pipeline.run(request, ready);
  };

  /** The connection's token, checked now: its auth, or why it is refused. */
  async function authenticate(connection: Connection): Promise<BearerAuth | string> {
    if (!connection.token)
      return 'invalid_request: send the access token in connection_init: {"Authorization": "Bearer <token>"}';
    const check = await tokens.checkAccessToken(connection.token);
    if (!check.ok) return `invalid_token: ${check.reason}`;
    if (!check.auth.scopes.includes('read')) return 'insufficient_scope: the token needs the read scope';
    return check.auth;
  }

  const server = useServer<Record<string, unknown> | undefined, { connection: Connection }>(
    {
      onConnect: async (ctx) => {
        const connection: Connection = { token: tokenOf(ctx.connectionParams) };
        const auth = await authenticate(connection);
        if (typeof auth === 'string') {
          // 4403 with the reason, not graphql-ws's bare "Forbidden".
          ctx.extra.socket.close(4403, auth.slice(0, 120));
          return false;
        }
        connection.auth = auth;
        connections.set(ctx.extra, connection);
        return true;
      },
      onSubscribe: async (ctx, _id, payload) => {
        const connection = connections.get(ctx.extra)!;
        const auth = await authenticate(connection);
        if (typeof auth === 'string') return [new GraphQLError(auth, { extensions: { code: 'UNAUTHENTICATED' } })];
        const request: OperationRequest = {
          auth,
          transport: 'websocket',
          // graphql-ws asks for a query string: a request by id sends an empty one.
          query: payload.query === '' ? undefined : payload.query,
          // A registered document's id, as over HTTP (graphql-ws's payload may carry more members).
          documentId: idOf(payload),
          operationName: payload.operationName ?? undefined,
          variables: payload.variables ?? undefined,
          extensions: payload.extensions ?? undefined,
          startedAt: performance.now(),
        };
        let ready: ReadyOperation | Refusal;
        try {
          ready = await pipeline.prepare(request);
        } catch (error) {
          // The database away (a client's trusted documents not read): this operation's error,
          // not the socket's end, which would end every subscription on it.
          if (!isDatabaseUnavailable(error)) throw error;
          return [
            new GraphQLError('the database is unavailable; retry later', { extensions: { code: SERVICE_UNAVAILABLE } }),
          ];
        }
        if (ready instanceof Refusal) return [...ready.errors];
        // graphql-ws hands these to execute or subscribe below, whose arguments they stand for.
        prepared.set(ready.args, { request, ready });
        return ready.args;
      },
      execute: (args) => run(args) as never,
      subscribe: (args) => run(args) as never,
    },
    wss,
    KEEPALIVE_MS,
  );

  return {
    handleUpgrade(request, socket, head) {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      if (path !== graphqlPath) return false;
      wss.handleUpgrade(request, socket, head, (ws) => {
        quietOversizedMessages(ws);
        wss.emit('connection', ws, request);
      });
      return true;
    },
    async close() {
      await server.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
