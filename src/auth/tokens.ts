/**
 * Issuing, rotating, revoking and validating tokens (auth.md "Token endpoint", "Tokens").
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { PrismaDb, PrismaTx } from '../db/client.ts';
import { formatScopes, parseScopes } from './scopes.ts';
import { UNKNOWN_CLIENT_HASH, digest, newSecret, verifySecret } from './secrets.ts';

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
}

export type AccessCheck = { ok: true; auth: BearerAuth } | { ok: false; reason: string };

/** How long a validated access token is trusted without asking the database again. */
export const VALIDATION_CACHE_MS = 5000;
const VALIDATION_CACHE_SIZE = 10_000;

interface CachedToken {
  auth: BearerAuth;
  family: string;
  expiresAt: number;
  cachedAt: number;
}

export class TokenService {
  private readonly cache = new Map<string, CachedToken>();

  constructor(
    private readonly prisma: PrismaDb,
    private readonly clock: Clock,
    private readonly accessTtlSeconds: number,
    private readonly refreshTtlSeconds: number,
  ) {}

  async authenticateClient(clientId: string, secret: string): Promise<AuthenticatedClient> {
    const client = await this.prisma.apiClient.findUnique({ where: { client_id: clientId } });
    // Verify against a dummy hash for unknown clients, so response time does not reveal them.
    const valid = await verifySecret(secret, client?.secret_hash ?? UNKNOWN_CLIENT_HASH);
    if (!client || !valid) throw new OAuthError(401, 'invalid_client', 'unknown client or wrong secret');
    if (client.revoked) throw new OAuthError(401, 'invalid_client', 'this client has been revoked');
    return { id: client.id, clientId: client.client_id, scopes: parseScopes(client.scopes) };
  }

  /** The scope to grant: the requested one if it is within what is allowed, else invalid_scope. */
  private grantedScope(allowed: string[], requested: string | undefined): string {
    if (requested === undefined) return formatScopes(allowed);
    const wanted = parseScopes(requested);
    const refused = wanted.filter((s) => !allowed.includes(s));
    if (wanted.length === 0 || refused.length > 0) {
      throw new OAuthError(400, 'invalid_scope', `scope may only contain ${allowed.join(' ')}${refused.length ? ` (not ${refused.join(' ')})` : ''}`);
    }
    return formatScopes(wanted);
  }

  private async issue(tx: PrismaTx | PrismaDb, client: AuthenticatedClient, scope: string, family: string): Promise<TokenResponse> {
    const now = this.clock.now().getTime();
    const access = newSecret('mda');
    const refresh = newSecret('mdr');
    await tx.oAuthToken.createMany({
      data: [
        { digest: digest(access), kind: 'access', api_client_id: client.id, family, scope, expires_at: new Date(now + this.accessTtlSeconds * 1000) },
        { digest: digest(refresh), kind: 'refresh', api_client_id: client.id, family, scope, expires_at: new Date(now + this.refreshTtlSeconds * 1000) },
      ],
    });
    return { access_token: access, expires_in: this.accessTtlSeconds, token_type: 'Bearer', scope, refresh_token: refresh };
  }

  clientCredentials(client: AuthenticatedClient, requestedScope: string | undefined): Promise<TokenResponse> {
    return this.issue(this.prisma, client, this.grantedScope(client.scopes, requestedScope), randomUUID());
  }

  /**
   * Exchanges a refresh token for a new pair. The presented token is spent atomically: of any
   * number of concurrent exchanges exactly one wins. Presenting a spent token again is treated
   * as theft (RFC 9700 §4.14.2): every token of its family is revoked.
   */
  async refresh(client: AuthenticatedClient, refreshToken: string, requestedScope: string | undefined): Promise<TokenResponse> {
    const now = this.clock.now();
    const row = await this.prisma.oAuthToken.findUnique({ where: { digest: digest(refreshToken) } });
    if (!row || row.kind !== 'refresh') throw new OAuthError(400, 'invalid_grant', 'unknown refresh token');
    if (row.api_client_id !== client.id) throw new OAuthError(400, 'invalid_grant', 'the refresh token was issued to another client');
    if (row.revoked_at) throw new OAuthError(400, 'invalid_grant', 'the refresh token has been revoked');
    if (row.rotated_at) {
      await this.revokeFamily(row.family);
      throw new OAuthError(400, 'invalid_grant', 'the refresh token was already used; every token of this grant is now revoked');
    }
    if (row.expires_at.getTime() <= now.getTime()) throw new OAuthError(400, 'invalid_grant', 'the refresh token has expired');
    const scope = this.grantedScope(parseScopes(row.scope), requestedScope);
    const issued = await this.prisma.$transaction(async (tx) => {
      const spent = await tx.oAuthToken.updateMany({ where: { id: row.id, rotated_at: null, revoked_at: null }, data: { rotated_at: now } });
      return spent.count === 1 ? this.issue(tx, client, scope, row.family) : null;
    });
    if (!issued) {
      // Another request spent it first: the same token presented twice.
      await this.revokeFamily(row.family);
      throw new OAuthError(400, 'invalid_grant', 'the refresh token was already used; every token of this grant is now revoked');
    }
    return issued;
  }

  private async revokeFamily(family: string): Promise<void> {
    await this.prisma.oAuthToken.updateMany({ where: { family, revoked_at: null }, data: { revoked_at: this.clock.now() } });
    for (const [key, entry] of this.cache) if (entry.family === family) this.cache.delete(key);
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
      await this.prisma.oAuthToken.updateMany({ where: { id: row.id, revoked_at: null }, data: { revoked_at: this.clock.now() } });
      this.cache.delete(key);
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
    if (cached && now - cached.cachedAt < VALIDATION_CACHE_MS) {
      if (cached.expiresAt <= now) return { ok: false, reason: 'the access token has expired' };
      return { ok: true, auth: cached.auth };
    }
    const row = await this.prisma.oAuthToken.findUnique({ where: { digest: key } });
    if (!row || row.kind !== 'access') return { ok: false, reason: 'unknown access token' };
    if (row.revoked_at) return { ok: false, reason: 'the access token has been revoked' };
    if (row.expires_at.getTime() <= now) return { ok: false, reason: 'the access token has expired' };
    const auth = { clientId: row.api_client_id, scopes: parseScopes(row.scope) };
    if (this.cache.size >= VALIDATION_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, { auth, family: row.family, expiresAt: row.expires_at.getTime(), cachedAt: now });
    return { ok: true, auth };
  }
}
