/** API clients: created with a secret shown once, listed, revoked (which revokes their tokens). */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { PrismaDb } from '../db/client.ts';
import type { Provider } from '../db/url.ts';
import { ADMIN } from '../permissions/roles.ts';
import { unassignableRole } from '../permissions/store.ts';
import { formatScopes, isScope } from './scopes.ts';
import { hashSecret, newSecret } from './secrets.ts';
import { announceRevocation } from './tokens.ts';

export interface CreatedClient {
  client_id: string;
  client_secret: string;
  name: string;
  scopes: string;
  role: string;
}

export class ClientInputError extends Error {}

/** The client the embedded default creates on first start (src/main.ts). */
export const DEMO_CLIENT_NAME = 'demo';

export async function createClient(
  prisma: PrismaDb,
  name: string,
  scopes: string[],
  role: string = ADMIN,
): Promise<CreatedClient> {
  if (!name.trim()) throw new ClientInputError('a client needs a name (--name)');
  const why = await unassignableRole(prisma, role);
  if (why) throw new ClientInputError(why);
  if (scopes.length === 0) throw new ClientInputError('a client needs at least one scope (--scopes read,write)');
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length > 0)
    throw new ClientInputError(`unknown scope ${unknown.join(', ')}: the scopes are read and write`);
  const secret = newSecret('mds');
  const client = await prisma.apiClient.create({
    data: {
      client_id: randomUUID(),
      name: name.trim(),
      scopes: formatScopes(scopes),
      secret_hash: hashSecret(secret),
      role,
    },
  });
  return { client_id: client.client_id, client_secret: secret, name: client.name, scopes: client.scopes, role };
}

export async function listClients(prisma: PrismaDb) {
  return prisma.apiClient.findMany({
    select: { client_id: true, name: true, scopes: true, role: true, revoked: true, created_date: true },
    orderBy: { id: 'asc' },
  });
}

/** Revokes a client and every token it holds. Returns false when there is no such client. */
export async function revokeClient(
  prisma: PrismaDb,
  clientId: string,
  clock: Clock,
  provider: Provider = 'sqlite',
): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const client = await tx.apiClient.findUnique({ where: { client_id: clientId } });
    if (!client) return false;
    await tx.apiClient.update({ where: { id: client.id }, data: { revoked: true } });
    await tx.oAuthToken.updateMany({
      where: { api_client_id: client.id, revoked_at: null },
      data: { revoked_at: clock.now() },
    });
    // Every replica forgets what it trusted of this client when the revocation commits.
    if (provider === 'postgresql') await announceRevocation(tx);
    return true;
  });
}
