/**
 * A TCP proxy in front of a real database that can be made to stall: while stalled it accepts
 * connections and never answers, and freezes the ones it already carries. The failure mode of a
 * hung or overloaded database server, which a refused connection does not show.
 */
import net from 'node:net';

export interface StallProxy {
  /** A database URL like `upstreamUrl` but going through the proxy. */
  url: string;
  stall(): void;
  /** Forwards again; connections frozen while stalled are dropped (their state is lost anyway). */
  resume(): void;
  close(): Promise<void>;
}

export async function stallProxy(upstreamUrl: string, { stalled = false } = {}): Promise<StallProxy> {
  const upstream = new URL(upstreamUrl);
  const pairs = new Set<{ client: net.Socket; server?: net.Socket }>();
  let stalledNow = stalled;

  const proxy = net.createServer((client) => {
    const pair: { client: net.Socket; server?: net.Socket } = { client };
    pairs.add(pair);
    client.on('close', () => {
      pair.server?.destroy();
      pairs.delete(pair);
    });
    client.on('error', () => undefined);
    if (stalledNow) return; // accepted, never answered
    const server = net.connect(Number(upstream.port || 5432), upstream.hostname);
    pair.server = server;
    server.on('error', () => client.destroy());
    server.on('close', () => client.destroy());
    client.pipe(server);
    server.pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const port = (proxy.address() as net.AddressInfo).port;
  const url = new URL(upstreamUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);

  return {
    url: url.toString(),
    stall() {
      stalledNow = true;
      for (const { client, server } of pairs) {
        client.unpipe();
        server?.unpipe();
      }
    },
    resume() {
      stalledNow = false;
      for (const { client } of pairs) client.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const { client } of pairs) client.destroy();
        proxy.close(() => resolve());
      }),
  };
}
