/**
 * Roles in the database: applied from a role file as a whole, listed, shown, assigned to clients,
 * every change recorded in `role_changes` with who made it. On PostgreSQL every change is
 * announced on ROLES_CHANNEL, so that replicas can take it up at once.
 */
import type { PrismaDb, PrismaTx } from '../db/client.ts';
import type { Provider } from '../db/url.ts';
import { ADMIN, parseRoleFile, type Role, unusedRelationships } from './roles.ts';

export const ROLES_CHANNEL = 'mdg_roles';
/** The channel on which replicas forget the tokens they trust (src/auth/tokens.ts, which this layer may not import). */
const REVOCATIONS_CHANNEL = 'mdg_revocations';

/** A request about roles that cannot be carried out (an unknown role, a role still in use). */
export class RoleInputError extends Error {}

export interface AppliedRoles {
  created: string[];
  changed: string[];
  removed: string[];
  unchanged: string[];
  /** What the file names that its roles will never use, by path (unusedRelationships). */
  warnings: string[];
}

/** A role's rules as stored and shown: the file's JSON for that role, keys in the file's order. */
function rulesText(role: Role): string {
  return JSON.stringify(role.source);
}

/**
 * Replaces every role but `admin` with the roles of `file` (parsed JSON), in one transaction,
 * after checking all of it (RoleFileError); a role that clients still have cannot be removed.
 */
export async function applyRoles(
  prisma: PrismaDb,
  provider: Provider,
  file: unknown,
  actor: string,
): Promise<AppliedRoles> {
  const roles = parseRoleFile(file);
  const applied: AppliedRoles = {
    created: [],
    changed: [],
    removed: [],
    unchanged: [],
    warnings: unusedRelationships(roles),
  };
  await prisma.$transaction(async (tx) => {
    const existing = new Map((await tx.role.findMany()).map((r) => [r.name, r.rules]));
    const wanted = new Map(roles.map((r) => [r.name, rulesText(r)]));
    const removed = [...existing.keys()].filter((name) => !wanted.has(name));
    const inUse = await tx.apiClient.findMany({
      where: { role: { in: removed }, revoked: false },
      select: { client_id: true, name: true, role: true },
    });
    if (inUse.length > 0)
      throw new RoleInputError(
        `nothing was applied: clients still have roles the file removes (set another with npm run client -- set-role): ${inUse
          .map((c) => `${c.client_id} (${c.name}): ${c.role}`)
          .join(', ')}`,
      );
    const record = (role: string, change: string, before: string | null, after: string | null) =>
      tx.roleChange.create({ data: { role, change, before, after, changed_by: actor } });
    for (const name of removed) {
      await tx.role.delete({ where: { name } });
      await record(name, 'removed', existing.get(name)!, null);
      applied.removed.push(name);
    }
    for (const [name, rules] of wanted) {
      const before = existing.get(name);
      if (before === rules) {
        applied.unchanged.push(name);
        continue;
      }
      await tx.role.upsert({ where: { name }, create: { name, rules }, update: { rules } });
      await record(name, before === undefined ? 'created' : 'changed', before ?? null, rules);
      (before === undefined ? applied.created : applied.changed).push(name);
    }
    if (provider === 'postgresql' && applied.unchanged.length < wanted.size + removed.length)
      await tx.$executeRawUnsafe(`SELECT pg_notify('${ROLES_CHANNEL}', '')`);
  });
  return applied;
}

export interface RoleSummary {
  name: string;
  /** The types it may do something with, and what. */
  types: Record<string, string[]>;
  clients: number;
}

/** Every role, `admin` first, with the clients that have it. */
export async function listRoles(prisma: PrismaDb): Promise<RoleSummary[]> {
  const [roles, counts] = await Promise.all([
    prisma.role.findMany({ orderBy: { name: 'asc' } }),
    prisma.apiClient.groupBy({ by: ['role'], where: { revoked: false }, _count: { _all: true } }),
  ]);
  const clients = new Map(counts.map((c) => [c.role, c._count._all]));
  return [
    { name: ADMIN, types: { '*': ['read', 'create', 'update', 'delete'] }, clients: clients.get(ADMIN) ?? 0 },
    ...roles.map((r) => ({
      name: r.name,
      types: Object.fromEntries(
        Object.entries(JSON.parse(r.rules) as Record<string, object>).map(([type, ops]) => [type, Object.keys(ops)]),
      ),
      clients: clients.get(r.name) ?? 0,
    })),
  ];
}

/** A role's rules as the file gave them (`admin`: everything), or RoleInputError. */
export async function showRole(prisma: PrismaDb, name: string): Promise<unknown> {
  if (name === ADMIN) return { '*': { read: {}, create: {}, update: {}, delete: {} } };
  const role = await prisma.role.findUnique({ where: { name } });
  if (!role) throw new RoleInputError(await unknownRole(prisma, name));
  return JSON.parse(role.rules);
}

/** Why `name` is no role, with the roles there are. */
export async function unknownRole(prisma: PrismaDb | PrismaTx, name: string): Promise<string> {
  const names = (await prisma.role.findMany({ select: { name: true }, orderBy: { name: 'asc' } })).map((r) => r.name);
  return `no role ${JSON.stringify(name)}; the roles are: ${[ADMIN, ...names].join(', ')}`;
}

/** Why a client cannot be given `role` (there is no such role), or undefined when it can. */
export async function unassignableRole(prisma: PrismaDb | PrismaTx, role: string): Promise<string | undefined> {
  if (role === ADMIN) return undefined;
  if ((await prisma.role.count({ where: { name: role } })) === 0) return unknownRole(prisma, role);
  return undefined;
}

/** Gives a client another role; RoleInputError for an unknown client or role. */
export async function setClientRole(
  prisma: PrismaDb,
  provider: Provider,
  clientId: string,
  role: string,
  actor: string,
): Promise<{ before: string }> {
  return prisma.$transaction(async (tx) => {
    const client = await tx.apiClient.findUnique({ where: { client_id: clientId }, select: { role: true } });
    if (!client) throw new RoleInputError(`no client ${clientId}`);
    const why = await unassignableRole(tx, role);
    if (why) throw new RoleInputError(why);
    await tx.apiClient.update({ where: { client_id: clientId }, data: { role } });
    const assignment = (of: string) => JSON.stringify({ client_id: clientId, role: of });
    await tx.roleChange.create({
      data: { role, change: 'assigned', before: assignment(client.role), after: assignment(role), changed_by: actor },
    });
    // Replicas read the role again, and the client's tokens, which they trust with its old role.
    if (provider === 'postgresql')
      await tx.$executeRawUnsafe(`SELECT pg_notify('${ROLES_CHANNEL}', ''), pg_notify('${REVOCATIONS_CHANNEL}', '')`);
    return { before: client.role };
  });
}
