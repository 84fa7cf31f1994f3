/**
 * Issuing, rotating, revoking and validating tokens (auth.md "Token endpoint", "Tokens").
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { PrismaDb, PrismaTx } from '../db/client.ts';
import { listen, type Listener } from '../db/notifications.ts';
import type { Provider } from '../db/url.ts';
import type { Access } from '../permissions/access.ts';
import { RoleBook } from '../permissions/book.ts';
import { ADMIN } from '../permissions/roles.ts';
import { formatScopes, parseScopes } from './scopes.ts';
import { digest, hashSecret, newSecret, verifySecret } from './secrets.ts';

/** An RFC 6749 §5.2 error, with its HTTP status. */
export class OAuthError extends Error {
  constructor(
    readonly status: 400 | 401,
    readonly error: 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type' | 'invalid_scope',
    description: string,
  ) {
    super(description);
  }
}

function revokedClient(): OAuthError {
  return new OAuthError(401, 'invalid_client', 'this client has been revoked');
}

export interface TokenResponse {
  access_token: string;
  expires_in: number;
  token_type: 'Bearer';
  scope: string;
  refresh_token: string;
}

export interface AuthenticatedClient {
  id: number;
  clientId: string;
  scopes: string[];
}

/** Who a valid access token speaks for. */
export interface BearerAuth {
  clientId: number;
  scopes: string[];
  /** The client's role (src/permissions), and what it may do: no Access for admin, which may do everything. */
  role: string;
  access?: Access;
  /** Which GraphQL documents the client may run (src/graphql/trusted-documents.ts). */
  documents: DocumentsMode;
  /** The token itself (its digest) and when it expires (ms since the epoch): long-lived streams watch it. */
  token: { digest: string; expiresAt: number };
}

/** Which GraphQL documents a client may run: any (off), any with the others counted (log), its registered ones (enforce). */
export type DocumentsMode = 'off' | 'log' | 'enforce';
export const DOCUMENTS_MODES: readonly DocumentsMode[] = ['off', 'log', 'enforce'];

/** Why a watched token stopped being valid. */
export interface TokenEnd {
  code: 'TOKEN_EXPIRED' | 'TOKEN_REVOKED';
  message: string;
}

/** A token watched while a stream runs on it: `ended` settles when it expires or is revoked. */
export interface TokenWatch {
  ended: Promise<TokenEnd>;
  stop(): void;
}

/**
 * How often the tokens of open streams are checked for revocation, anywhere (another replica, the
 * CLI): one statement per check for all of them, and only while a stream is open.
 */
export const REVOCATION_CHECK_MS = 500;

export type AccessCheck = { ok: true; auth: BearerAuth } | { ok: false; reason: string };

/**
 * How long a validated access token (or an API client) is trusted without asking the database
 * again. On PostgreSQL every revocation is announced (NOTIFY on REVOCATIONS_CHANNEL) and every
 * replica forgets what it trusted at once, so this bounds only what SQLite's other processes
 * (the client CLI) revoke.
 */
export const VALIDATION_CACHE_MS = 5000;
/**
 * The same on PostgreSQL while this replica does not hear the announcements (its listening
 * connection is down or not up yet): a revocation elsewhere is then refused here within a second.
 */
export const UNANNOUNCED_CACHE_MS = 500;
/** The channel revocations are announced on (PostgreSQL). */
export const REVOCATIONS_CHANNEL = 'mdg_revocations';

/** Announces a revocation to every replica, at the commit of the transaction it runs in (PostgreSQL). */
export async function announceRevocation(prisma: Pick<PrismaDb, '$executeRawUnsafe'>): Promise<void> {
  await prisma.$executeRawUnsafe(`SELECT pg_notify('${REVOCATIONS_CHANNEL}', '')`);
}
const VALIDATION_CACHE_SIZE = 10_000;

/** What the access-token check reads (checkAccessToken). */
interface AccessTokenRow {
  kind: string;
  api_client_id: number;
  scope: string;
  family: string;
  expires_at: Date | string;
  revoked_at: Date | string | null;
  role: string;
  documents: string;
}

interface CachedToken {
  auth: BearerAuth;
  family: string;
  expiresAt: number;
  cachedAt: number;
}

interface CachedClient {
  row: { id: number; client_id: string; secret_hash: string; scopes: string; revoked: boolean };
  cachedAt: number;
}

export class TokenService {
  private readonly cache = new Map<string, CachedToken>();
  /** The watched tokens: digest -> what to tell each stream on it when it is revoked. */
  private readonly watched = new Map<string, Set<(end: TokenEnd) => void>>();
  private revocationCheck: NodeJS.Timeout | undefined;
  /** API clients seen in the last VALIDATION_CACHE_MS, by client_id: a token request then costs one statement. */
  private readonly clients = new Map<string, CachedClient>();

  /** PostgreSQL: whether this replica hears revocations announced elsewhere (see followRevocations). */
  private hearing = false;
  /** What forgets with the tokens (onForget). */
  private readonly forgetting: (() => void)[] = [];
  /**
   * Raised each time what is trusted is forgotten: a lookup that began before (and may have read
   * the database before a revocation committed) does not put what it read into memory after.
   */
  private generation = 0;

  constructor(
    private readonly prisma: PrismaDb,
    private readonly clock: Clock,
    private readonly accessTtlSeconds: number,
    private readonly refreshTtlSeconds: number,
    private readonly provider: Provider = 'sqlite',
    private readonly roles: RoleBook = new RoleBook(prisma, provider),
  ) {}

  /** How long what was validated is trusted (see VALIDATION_CACHE_MS). */
  private get trustMs(): number {
    return this.provider === 'postgresql' && !this.hearing ? UNANNOUNCED_CACHE_MS : VALIDATION_CACHE_MS;
  }

  /**
   * PostgreSQL: listens for revocations announced by any replica or the CLI, on a connection of
   * its own to `url` (direct, not through a transaction pooler), and forgets every token and
   * client it trusted when one comes, or when the connection comes back (it may have missed one).
   */
  followRevocations(url: string, onError: (error: Error) => void): Listener {
    return listen(url, REVOCATIONS_CHANNEL, {
      onNotification: () => this.forgetTrusted(),
      onConnected: () => {
        this.forgetTrusted();
        this.hearing = true;
      },
      onError: (error) => {
        this.hearing = false;
        onError(error);
      },
    });
  }

  private forgetTrusted(): void {
    this.generation += 1;
    this.cache.clear();
    this.clients.clear();
    for (const listener of this.forgetting) listener();
    void this.checkRevocations();
  }

  /** What else forgets what it trusted when the tokens do (a client's trusted documents: src/graphql/trusted-documents.ts). */
  onForget(listener: () => void): void {
    this.forgetting.push(listener);
  }

  /**
   * An API client by client_id, from memory when seen in the last few seconds: revoking a client
   * (`npm run client -- revoke`, or on another replica) takes effect within VALIDATION_CACHE_MS.
   */
  private async findClient(clientId: string): Promise<CachedClient['row'] | null> {
    const now = this.clock.now().getTime();
    const cached = this.clients.get(clientId);
    if (cached && now - cached.cachedAt < this.trustMs) return cached.row;
    const generation = this.generation;
    const row = await this.prisma.apiClient.findUnique({
      where: { client_id: clientId },
      select: { id: true, client_id: true, secret_hash: true, scopes: true, revoked: true },
    });
    this.clients.delete(clientId);
    if (row && generation === this.generation) {
      if (this.clients.size >= VALIDATION_CACHE_SIZE) this.clients.delete(this.clients.keys().next().value!);
      this.clients.set(clientId, { row, cachedAt: now });
    }
    return row;
  }

  async authenticateClient(clientId: string, secret: string): Promise<AuthenticatedClient> {
    const client = await this.findClient(clientId);
    // No dummy comparison for unknown clients: client ids are not secret, so their existence need not be hidden.
    const check = client ? await verifySecret(secret, client.secret_hash) : 'invalid';
    if (!client || check === 'invalid') throw new OAuthError(401, 'invalid_client', 'unknown client or wrong secret');
    if (client.revoked) throw revokedClient();
    if (check === 'valid-legacy') {
      await this.prisma.apiClient.update({ where: { id: client.id }, data: { secret_hash: hashSecret(secret) } });
      this.clients.delete(clientId);
    }
    return { id: client.id, clientId: client.client_id, scopes: parseScopes(client.scopes) };
  }

  /** The scope to grant: the requested one if it is within what is allowed, else invalid_scope. */
  private grantedScope(allowed: string[], requested: string | undefined): string {
    if (requested === undefined) return formatScopes(allowed);
    const wanted = parseScopes(requested);
    const refused = wanted.filter((s) => !allowed.includes(s));
    if (wanted.length === 0 || refused.length > 0) {
      throw new OAuthError(
        400,
        'invalid_scope',
        `scope may only contain ${allowed.join(' ')}${refused.length ? ` (not ${refused.join(' ')})` : ''}`,
      );
    }
    return formatScopes(wanted);
  }

  private async issue(
    tx: PrismaTx | PrismaDb,
    client: AuthenticatedClient,
    scope: string,
    family: string,
  ): Promise<TokenResponse> {
    const now = this.clock.now().getTime();
    const access = newSecret('mda');
    const refresh = newSecret('mdr');
    const created = new Date(now);
    const accessExpiry = new Date(now + this.accessTtlSeconds * 1000);
    const refreshExpiry = new Date(now + this.refreshTtlSeconds * 1000);
    const inserted = await insertGrant(tx, this.provider, {
      clientId: client.id,
      family,
      scope,
      created,
      access: { digest: digest(access), expiresAt: accessExpiry },
      refresh: { digest: digest(refresh), expiresAt: refreshExpiry },
    });
    if (inserted === 0) throw revokedClient();
    return {
      access_token: access,
      expires_in: this.accessTtlSeconds,
      token_type: 'Bearer',
      scope,
      refresh_token: refresh,
    };
  }

  clientCredentials(client: AuthenticatedClient, requestedScope: string | undefined): Promise<TokenResponse> {
    return this.issue(this.prisma, client, this.grantedScope(client.scopes, requestedScope), randomUUID());
  }

  /**
   * Exchanges a refresh token for a new pair. The presented token is spent atomically: of any
   * number of concurrent exchanges exactly one wins. Presenting a spent token again is treated
   * as theft (RFC 9700 §4.14.2): every token of its family is revoked.
   */
  async refresh(
    client: AuthenticatedClient,
    refreshToken: string,
    requestedScope: string | undefined,
  ): Promise<TokenResponse> {
    const now = this.clock.now();
    const row = await this.prisma.oAuthToken.findUnique({ where: { digest: digest(refreshToken) } });
    if (row?.kind !== 'refresh') throw new OAuthError(400, 'invalid_grant', 'unknown refresh token');
    if (row.api_client_id !== client.id)
      throw new OAuthError(400, 'invalid_grant', 'the refresh token was issued to another client');
    if (row.revoked_at) throw new OAuthError(400, 'invalid_grant', 'the refresh token has been revoked');
    if (row.rotated_at) {
      await this.revokeFamily(row.family);
      throw new OAuthError(
        400,
        'invalid_grant',
        'the refresh token was already used; every token of this grant is now revoked',
      );
    }
    if (row.expires_at.getTime() <= now.getTime())
      throw new OAuthError(400, 'invalid_grant', 'the refresh token has expired');
    const scope = this.grantedScope(parseScopes(row.scope), requestedScope);
    const issued = await this.prisma.$transaction(async (tx) => {
      const spent = await tx.oAuthToken.updateMany({
        where: { id: row.id, rotated_at: null, revoked_at: null },
        data: { rotated_at: now },
      });
      return spent.count === 1 ? this.issue(tx, client, scope, row.family) : null;
    });
    if (!issued) {
      // Another request spent it first: the same token presented twice.
      await this.revokeFamily(row.family);
      throw new OAuthError(
        400,
        'invalid_grant',
        'the refresh token was already used; every token of this grant is now revoked',
      );
    }
    return issued;
  }

  private async revokeFamily(family: string): Promise<void> {
    await this.prisma.oAuthToken.updateMany({
      where: { family, revoked_at: null },
      data: { revoked_at: this.clock.now() },
    });
    if (this.provider === 'postgresql') await announceRevocation(this.prisma);
    for (const [key, entry] of this.cache) if (entry.family === family) this.cache.delete(key);
    // Streams on this replica learn at once, not at the next check.
    void this.checkRevocations();
  }

  /**
   * RFC 7009: revokes a token of the calling client. A refresh token takes its whole family
   * (the access tokens issued with it) along; unknown tokens and other clients' are ignored.
   */
  async revoke(client: AuthenticatedClient, token: string): Promise<void> {
    const key = digest(token);
    const row = await this.prisma.oAuthToken.findUnique({ where: { digest: key } });
    if (!row || row.api_client_id !== client.id) return;
    if (row.kind === 'refresh') await this.revokeFamily(row.family);
    else {
      await this.prisma.oAuthToken.updateMany({
        where: { id: row.id, revoked_at: null },
        data: { revoked_at: this.clock.now() },
      });
      if (this.provider === 'postgresql') await announceRevocation(this.prisma);
      this.cache.delete(key);
      void this.checkRevocations();
    }
  }

  /**
   * Watches the token of a long-lived stream (a subscription): `ended` settles at its expiry, or
   * within REVOCATION_CHECK_MS of its revocation (or its client's) wherever that happened.
   */
  watch(auth: BearerAuth): TokenWatch {
    const { digest, expiresAt } = auth.token;
    let settle!: (end: TokenEnd) => void;
    const ended = new Promise<TokenEnd>((resolve) => (settle = resolve));
    let expiry: NodeJS.Timeout;
    // A timer holds at most 2^31 - 1 ms (about 24 days): a longer wait is taken in steps.
    const untilExpiry = () => {
      const left = expiresAt - this.clock.now().getTime();
      if (left <= 0)
        settle({ code: 'TOKEN_EXPIRED', message: 'the access token has expired: subscribe again with a new one' });
      else expiry = setTimeout(untilExpiry, Math.min(left, 2 ** 31 - 1));
    };
    untilExpiry();
    let listeners = this.watched.get(digest);
    if (!listeners) this.watched.set(digest, (listeners = new Set()));
    listeners.add(settle);
    this.revocationCheck ??= setInterval(() => void this.checkRevocations(), REVOCATION_CHECK_MS);
    return {
      ended,
      stop: () => {
        clearTimeout(expiry);
        listeners.delete(settle);
        if (listeners.size === 0) this.watched.delete(digest);
        if (this.watched.size === 0) {
          clearInterval(this.revocationCheck);
          this.revocationCheck = undefined;
        }
      },
    };
  }

  /** The watched tokens that are no longer valid (revoked, or their client): their streams end. */
  private async checkRevocations(): Promise<void> {
    const digests = [...this.watched.keys()];
    if (digests.length === 0) return;
    let valid: Set<string>;
    try {
      const rows = await this.prisma.oAuthToken.findMany({
        where: { digest: { in: digests }, revoked_at: null, api_client: { revoked: false } },
        select: { digest: true },
      });
      valid = new Set(rows.map((r) => r.digest));
    } catch {
      return; // the database is unavailable: streams go on, the next check decides
    }
    for (const digest of digests) {
      if (valid.has(digest)) continue;
      this.cache.delete(digest);
      for (const settle of this.watched.get(digest) ?? [])
        settle({ code: 'TOKEN_REVOKED', message: 'the access token has been revoked' });
    }
  }

  /**
   * Checks an access token. A token seen valid in the last few seconds is trusted from memory,
   * so the common request costs no SQL statement; a revocation elsewhere takes effect within
   * VALIDATION_CACHE_MS.
   */
  async checkAccessToken(token: string): Promise<AccessCheck> {
    const key = digest(token);
    const now = this.clock.now().getTime();
    const cached = this.cache.get(key);
    if (cached && now - cached.cachedAt < this.trustMs) {
      if (cached.expiresAt <= now) return { ok: false, reason: 'the access token has expired' };
      return this.withAccess(cached.auth);
    }
    const generation = this.generation;
    // The token, its client, the client's role and which documents it may run in one statement: a token of a revoked client
    // is refused, whenever it was issued (one issued by a replica that still trusted the client,
    // a moment before).
    const [row] = await this.prisma.$queryRaw<AccessTokenRow[]>`
      SELECT t."kind", t."api_client_id", t."scope", t."family", t."expires_at", t."revoked_at", c."role", c."documents"
      FROM "oauth_tokens" t JOIN "api_clients" c ON c."id" = t."api_client_id" AND c."revoked" = ${false}
      WHERE t."digest" = ${key}`;
    if (row?.kind !== 'access') return { ok: false, reason: await this.whyRefused(key) };
    if (row.revoked_at !== null) return { ok: false, reason: 'the access token has been revoked' };
    const expiresAt = new Date(row.expires_at).getTime();
    if (expiresAt <= now) return { ok: false, reason: 'the access token has expired' };
    const auth: BearerAuth = {
      clientId: row.api_client_id,
      scopes: parseScopes(row.scope),
      role: row.role,
      documents: row.documents as DocumentsMode,
      token: { digest: key, expiresAt },
    };
    // Not kept when what is trusted was forgotten while this was read: it may predate a revocation.
    if (generation === this.generation) {
      if (this.cache.size >= VALIDATION_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(key, { auth, family: row.family, expiresAt, cachedAt: now });
    }
    return this.withAccess(auth);
  }

  /** The check's answer, with the Access of the client's role as the roles are now. */
  private async withAccess(auth: BearerAuth): Promise<AccessCheck> {
    if (auth.role === ADMIN) return { ok: true, auth };
    return { ok: true, auth: { ...auth, access: await this.roles.access(auth.role) } };
  }

  /** Why a token the check did not find is refused (a second statement, on refusals only). */
  private async whyRefused(key: string): Promise<string> {
    const row = await this.prisma.oAuthToken.findUnique({ where: { digest: key }, select: { kind: true } });
    return row?.kind === 'access' ? 'the client of this access token has been revoked' : 'unknown access token';
  }
}

interface Grant {
  clientId: number;
  family: string;
  scope: string;
  created: Date;
  access: { digest: string; expiresAt: Date };
  refresh: { digest: string; expiresAt: Date };
}

/**
 * Inserts a grant's access and refresh tokens, only while their client is not revoked: the
 * client may have been trusted from memory (TokenService.findClient) and revoked since, by the
 * CLI or another replica. Returns the rows inserted (0: revoked). Every grant passes here: plain
 * parameterised SQL skips the query compiler, which cost about a third of a token request
 * through the model API (createMany). One statement for both providers' SQL, but PostgreSQL types
 * the parameters of a SELECT list only when told (SQLite takes them as they come).
 */
function insertGrant(tx: PrismaTx | PrismaDb, provider: Provider, g: Grant): Promise<number> {
  if (provider === 'postgresql')
    return tx.$executeRaw`
      INSERT INTO "oauth_tokens" ("digest", "kind", "api_client_id", "family", "scope", "expires_at", "created_date")
      SELECT t.digest, t.kind, c."id", ${g.family}, ${g.scope}, t.expires_at, ${g.created}::timestamp(3)
      FROM (SELECT ${g.access.digest}::text AS digest, 'access' AS kind, ${g.access.expiresAt}::timestamp(3) AS expires_at
            UNION ALL SELECT ${g.refresh.digest}, 'refresh', ${g.refresh.expiresAt}::timestamp(3)) AS t
      JOIN "api_clients" c ON c."id" = ${g.clientId} AND NOT c."revoked"`;
  return tx.$executeRaw`
    INSERT INTO "oauth_tokens" ("digest", "kind", "api_client_id", "family", "scope", "expires_at", "created_date")
    SELECT t.digest, t.kind, c."id", ${g.family}, ${g.scope}, t.expires_at, ${g.created}
    FROM (SELECT ${g.access.digest} AS digest, 'access' AS kind, ${g.access.expiresAt} AS expires_at
          UNION ALL SELECT ${g.refresh.digest}, 'refresh', ${g.refresh.expiresAt}) AS t
    JOIN "api_clients" c ON c."id" = ${g.clientId} AND NOT c."revoked"`;
}
