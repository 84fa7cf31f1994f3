/**
 * The embedded default's convenience: GraphiQL opens with a working access token of the demo
 * client (created on first start). Only for browsers on the same machine, and only while the
 * service seeds demo data (SEED_DEMO_DATA, which production turns off): the page is open, and
 * the token is a real one.
 */
import type { Context } from 'hono';
import { clientAddress } from '../http/address.ts';
import type { Clock } from '../clock.ts';
import type { PrismaDb } from '../db/client.ts';
import { DEMO_CLIENT_NAME } from './clients.ts';
import { parseScopes } from './scopes.ts';
import type { TokenService } from './tokens.ts';

/** A token is handed out again until this long before it expires. */
const REUSE_MARGIN_MS = 5 * 60 * 1000;

export function isLoopback(address: string): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

/** Headers reverse proxies add: where one is present, the socket's peer is a proxy, not the browser. */
const FORWARDING_HEADERS = [
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
  'via',
];

/** Names a browser on this machine reaches the service by. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether a page request comes from a browser on this machine (docs/reference/security.md). Each condition
 * closes one way in:
 * - the socket's peer is loopback, and no proxy is trusted to name the client (TRUST_PROXY 0),
 *   so the address is not a header anyone can write;
 * - no forwarding header: through a reverse proxy on this host every client's connection comes
 *   from loopback;
 * - the Host is a loopback name: a web page of another site whose name its owner points at
 *   127.0.0.1 (DNS rebinding) reaches the service from the user's own browser, but under its own name.
 */
export function isLocalBrowser(c: Context, trustProxy: number): boolean {
  if (trustProxy > 0 || !isLoopback(clientAddress(c, 0))) return false;
  if (FORWARDING_HEADERS.some((name) => c.req.header(name) !== undefined)) return false;
  return LOOPBACK_HOSTS.has(new URL(c.req.url).hostname);
}

export function demoTokens(prisma: PrismaDb, tokens: TokenService, clock: Clock): () => Promise<string | undefined> {
  let current: { token: string; expiresAt: number } | undefined;
  return async () => {
    const now = clock.now().getTime();
    if (current && current.expiresAt - REUSE_MARGIN_MS > now) return current.token;
    const demo = await prisma.apiClient.findFirst({
      where: { name: DEMO_CLIENT_NAME, revoked: false },
      orderBy: { id: 'asc' },
    });
    if (!demo) return undefined;
    const issued = await tokens.clientCredentials(
      { id: demo.id, clientId: demo.client_id, scopes: parseScopes(demo.scopes) },
      undefined,
    );
    current = { token: issued.access_token, expiresAt: now + issued.expires_in * 1000 };
    return current.token;
  };
}
