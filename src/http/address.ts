/** The address a request came from, for throttling. */
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * The client's address: the socket's peer, or, behind `trustProxy` reverse proxies, the
 * X-Forwarded-For entry the outermost trusted proxy saw (entries further left are whatever the
 * client chose to send, so they are never trusted).
 */
export function clientAddress(c: Context, trustProxy: number): string {
  if (trustProxy > 0) {
    const forwarded = (c.req.header('x-forwarded-for') ?? '')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean);
    const entry = forwarded[forwarded.length - trustProxy];
    if (entry) return entry;
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown'; // a request handed to app.fetch without a socket
  }
}
