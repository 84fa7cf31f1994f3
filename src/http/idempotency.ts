/**
 * Idempotent retries (IETF draft "The Idempotency-Key HTTP Header Field"): a POST sent with an
 * `Idempotency-Key` header runs once per API client and key; its answer is kept 24 hours, and
 * the same request sent again with the same key gets that answer again, marked
 * `Idempotent-Replayed: true`, without a second write. The same key with another request is 422
 * `idempotency_key_reused`; while the first is still running, 409 `idempotency_key_in_use`.
 *
 * Kept in the database (the `idempotency_keys` table), so it holds across replicas and restarts:
 * the key is claimed by inserting its row (the primary key decides between two requests sent at
 * once), and the write the request makes marks the row `committed` in its own transaction
 * (../data/write-caller.ts: the surfaces hand each write `beforeCommit` from the request's
 * context, below). So a request whose process died is never run twice: if its write
 * committed, a retry is told that its answer was lost; if not, a retry after LEASE_MS runs it.
 *
 * Applies to POSTs of authenticated clients: REST ADD, REL-ADD and the structure and item ADDs,
 * and GraphQL mutations (a GraphQL query is safe to repeat: its key is ignored).
 */
import { ADMIN } from '../permissions/roles.ts';
import { createHash } from 'node:crypto';
import { getOperationAST, parse } from 'graphql';
import type { Context, MiddlewareHandler } from 'hono';
import type { Clock } from '../clock.ts';
import type { PrismaDb } from '../db/client.ts';
import { uniqueViolationFields } from '../db/errors.ts';
import { Sql } from '../db/sql.ts';
import type { WriteCaller } from '../data/write-caller.ts';
import { readBody } from './body.ts';
import { HttpError } from './errors.ts';

declare module 'hono' {
  interface ContextVariableMap {
    /** Set for a request that holds an Idempotency-Key: runs in each of its writes' transactions. */
    beforeCommit: WriteCaller['beforeCommit'];
  }
}

/** How long an answer is kept, and a key bound to its request. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * How long a claimed key may stay without a kept answer before its request counts as dead.
 * Far beyond what a request can take once its body is read (every statement and transaction is
 * bounded by seconds), so that a live request is never taken over.
 */
export const LEASE_MS = 5 * 60 * 1000;

/** Headers of an answer that a replay repeats (the rest are per response: date, connection). */
const KEPT_HEADERS = ['content-type', 'location', 'etag', 'www-authenticate', 'allow', 'retry-after'];

/** The draft's sf-string (`"..."`), or the bare token many clients send; visible ASCII. */
const KEY = /^(?:"([\x20\x21\x23-\x5b\x5d-\x7e]{1,255})"|([\x21\x23-\x7e]{1,255}))$/;

export interface IdempotencyOptions {
  prisma: PrismaDb;
  clock: Clock;
  maxBodyBytes: number;
  /** The GraphQL endpoint's path (with the base path): only its mutations are idempotent. */
  graphqlPath: string;
}

type KeyRow = NonNullable<Awaited<ReturnType<PrismaDb['idempotencyKey']['findUnique']>>>;

type Claim =
  | { kind: 'claimed'; createdAt: Date }
  | { kind: 'replay'; row: KeyRow }
  | { kind: 'reused' | 'in_use' | 'lost' };

export function idempotentPosts({ prisma, clock, maxBodyBytes, graphqlPath }: IdempotencyOptions): MiddlewareHandler {
  const keys = new KeyStore(prisma, clock);
  return async (c, next) => {
    // Reads (most requests) decide on the method alone.
    if (c.req.method !== 'POST') return next();
    const header = c.req.header('idempotency-key');
    const auth = c.get('auth');
    if (header === undefined || !auth) return next();
    const key = parseKey(header);
    const body = await readBody(c, maxBodyBytes);
    if (c.req.path === graphqlPath && !isMutation(body)) return next();
    const fingerprint = fingerprintOf(c, body, auth.role);
    const claim = await keys.claim(auth.clientId, key, fingerprint);
    switch (claim.kind) {
      case 'replay':
        return replay(claim.row);
      case 'reused':
        throw new HttpError(
          422,
          'idempotency_key_reused',
          `Idempotency-Key ${JSON.stringify(key)} was used for another request (method, path, query or body, or under another role) within 24 hours: use a new key`,
        );
      case 'in_use':
        throw new HttpError(
          409,
          'idempotency_key_in_use',
          `a request with Idempotency-Key ${JSON.stringify(key)} is still running: retry later for its answer`,
          { 'Retry-After': '1' },
        );
      case 'lost':
        throw new HttpError(
          409,
          'idempotency_key_in_use',
          `the request with Idempotency-Key ${JSON.stringify(key)} was applied, but the server stopped before its answer was kept: read the resource to see the outcome`,
        );
    }
    let committed = false;
    const owner = { api_client_id: auth.clientId, key };
    // Every write the request makes records, in its transaction, that the key's write committed.
    c.set('beforeCommit', async (tx) => {
      if (committed) return;
      await tx.execute(
        new Sql(tx.provider)
          .text(`UPDATE "idempotency_keys" SET "state" = 'committed' WHERE "api_client_id" = `)
          .value(owner.api_client_id)
          .text(' AND "key" = ')
          .value(owner.key),
      );
      committed = true;
    });
    await next();
    await keys.settle(owner, claim.createdAt, committed, c);
  };
}

function parseKey(header: string): string {
  const match = KEY.exec(header.trim());
  if (!match) {
    throw new HttpError(
      400,
      'invalid_parameter',
      'the Idempotency-Key header must be 1 to 255 visible ASCII characters, as a quoted string ("...") or bare',
    );
  }
  return match[1] ?? match[2]!;
}

/** Whether a GraphQL request body holds a mutation (anything unreadable is left to the GraphQL layer to refuse). */
function isMutation(body: Buffer): boolean {
  try {
    const { query, operationName } = JSON.parse(body.toString('utf8')) as { query?: unknown; operationName?: unknown };
    if (typeof query !== 'string') return false;
    return (
      getOperationAST(parse(query), typeof operationName === 'string' ? operationName : undefined)?.operation ===
      'mutation'
    );
  } catch {
    return false;
  }
}

/**
 * What makes two requests the same: method, path and query, media type, body, and the client's
 * role (src/permissions): an answer kept under one role is never replayed under another, which may
 * see less. (Clients with `admin`, the role every client had before roles, keep their fingerprints.)
 */
function fingerprintOf(c: Context, body: Buffer, role: string): string {
  const url = new URL(c.req.url);
  return createHash('sha256')
    .update(role === ADMIN ? '' : `role ${role}\n`)
    .update(`${c.req.method}\n${url.pathname}${url.search}\n${c.req.header('content-type') ?? ''}\n`)
    .update(body)
    .digest('base64url');
}

function replay(row: KeyRow): Response {
  const headers = new Headers(JSON.parse(row.headers ?? '{}') as Record<string, string>);
  headers.set('Idempotent-Replayed', 'true');
  return new Response(row.body ? new Uint8Array(row.body) : null, { status: row.status!, headers });
}

class KeyStore {
  constructor(
    private readonly prisma: PrismaDb,
    private readonly clock: Clock,
  ) {}

  /** Claims the key for this request, or says why not. A few rounds: a row may go between the insert and the read. */
  async claim(clientId: number, key: string, fingerprint: string): Promise<Claim> {
    const owner = { api_client_id: clientId, key };
    for (;;) {
      const now = this.clock.now();
      try {
        await this.prisma.idempotencyKey.create({ data: { ...owner, fingerprint, state: 'running', created_at: now } });
        return { kind: 'claimed', createdAt: now };
      } catch (error) {
        if (!uniqueViolationFields(error)) throw error;
      }
      const row = await this.prisma.idempotencyKey.findUnique({ where: { api_client_id_key: owner } });
      if (!row) continue;
      const age = now.getTime() - row.created_at.getTime();
      if (age >= IDEMPOTENCY_TTL_MS) {
        // Expired and not yet purged: as if it were gone.
        await this.prisma.idempotencyKey.deleteMany({ where: { ...owner, created_at: row.created_at } });
        continue;
      }
      if (row.fingerprint !== fingerprint) return { kind: 'reused' };
      if (row.state === 'done') return { kind: 'replay', row };
      if (age < LEASE_MS) return { kind: 'in_use' };
      if (row.state === 'committed') return { kind: 'lost' };
      // Claimed by a request that died before writing anything: take it over (once: the
      // condition on created_at lets only one of several retries win).
      const { count } = await this.prisma.idempotencyKey.updateMany({
        where: { ...owner, state: 'running', created_at: row.created_at },
        data: { created_at: now },
      });
      if (count === 1) return { kind: 'claimed', createdAt: now };
    }
  }

  /**
   * After the request: its answer is kept, unless it is a server error (5xx). Then a request
   * that wrote nothing frees its key for a retry; one that did keeps it marked committed,
   * since running it again would write twice.
   */
  async settle(
    owner: { api_client_id: number; key: string },
    createdAt: Date,
    committed: boolean,
    c: Context,
  ): Promise<void> {
    const where = { ...owner, created_at: createdAt };
    if (c.res.status >= 500) {
      if (!committed) await this.prisma.idempotencyKey.deleteMany({ where });
      return;
    }
    const body = new Uint8Array(await c.res.arrayBuffer());
    const headers = Object.fromEntries(
      KEPT_HEADERS.flatMap((name) => (c.res.headers.has(name) ? [[name, c.res.headers.get(name)!]] : [])),
    );
    c.res = new Response(body, { status: c.res.status, headers: c.res.headers });
    await this.prisma.idempotencyKey.updateMany({
      where,
      data: { state: 'done', status: c.res.status, headers: JSON.stringify(headers), body },
    });
  }
}

/** Rows deleted per statement, so a purge never holds a long write lock. */
const PURGE_BATCH = 1000;

/** Deletes keys older than IDEMPOTENCY_TTL_MS, answers and all. Returns how many went. */
export async function purgeIdempotencyKeys(prisma: PrismaDb, clock: Clock): Promise<number> {
  const before = new Date(clock.now().getTime() - IDEMPOTENCY_TTL_MS);
  let purged = 0;
  for (;;) {
    const batch = await prisma.idempotencyKey.findMany({
      where: { created_at: { lt: before } },
      select: { api_client_id: true, key: true },
      take: PURGE_BATCH,
    });
    if (batch.length === 0) return purged;
    purged += (await prisma.idempotencyKey.deleteMany({ where: { OR: batch } })).count;
  }
}
