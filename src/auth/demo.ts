/**
 * The embedded default's convenience: GraphiQL opens with a working access token of the demo
 * client (created on first start). Only for browsers on the same machine, and only while the
 * service seeds demo data (SEED_DEMO_DATA, which production turns off): the page is open, and
 * the token is a real one.
 */
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

export function demoTokens(prisma: PrismaDb, tokens: TokenService, clock: Clock): () => Promise<string | undefined> {
  let current: { token: string; expiresAt: number } | undefined;
  return async () => {
    const now = clock.now().getTime();
    if (current && current.expiresAt - REUSE_MARGIN_MS > now) return current.token;
    const demo = await prisma.apiClient.findFirst({ where: { name: DEMO_CLIENT_NAME, revoked: false }, orderBy: { id: 'asc' } });
    if (!demo) return undefined;
    const issued = await tokens.clientCredentials({ id: demo.id, clientId: demo.client_id, scopes: parseScopes(demo.scopes) }, undefined);
    current = { token: issued.access_token, expiresAt: now + issued.expires_in * 1000 };
    return current.token;
  };
}
