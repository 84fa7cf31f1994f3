/**
 * Credentials: client secrets and opaque tokens, both 256 bits from the CSPRNG, both stored
 * only as SHA-256 digests.
 *
 * Why a fast digest and not a password hash for client secrets: a slow hash (scrypt, bcrypt)
 * protects guessable passwords. These secrets are made by the server with 256 bits of entropy,
 * so a stolen digest cannot be reversed or brute-forced either way, while a slow hash would cost
 * about 70 ms of CPU on every token request, a lever for anyone who can send requests.
 */
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** The stored form of a client secret: `sha256$<hex digest>`. */
export function hashSecret(secret: string): string {
  return `sha256$${digest(secret)}`;
}

type SecretCheck = 'valid' | 'invalid' | 'valid-legacy';

/**
 * Compares a presented secret with its stored form in constant time. Clients created before
 * secrets were stored as SHA-256 digests hold a scrypt hash: they still authenticate, once more
 * at scrypt's cost, and the caller then replaces the stored form (`valid-legacy`).
 */
export async function verifySecret(secret: string, stored: string): Promise<SecretCheck> {
  const [scheme, ...parts] = stored.split('$');
  if (scheme === 'sha256') {
    const expected = Buffer.from(parts[0] ?? '', 'hex');
    const actual = createHash('sha256').update(secret).digest();
    return expected.length === actual.length && timingSafeEqual(actual, expected) ? 'valid' : 'invalid';
  }
  if (scheme === 'scrypt') return (await verifyLegacyScrypt(secret, parts)) ? 'valid-legacy' : 'invalid';
  return 'invalid';
}

/** `scrypt$N$r$p$salt$key`, as the first release stored secrets. */
async function verifyLegacyScrypt(secret: string, [N, r, p, salt, key]: string[]): Promise<boolean> {
  if (!N || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const options = { N: Number(N), r: Number(r), p: Number(p), maxmem: 256 * Number(N) * Number(r) };
  const actual = await new Promise<Buffer>((resolve, reject) =>
    scrypt(secret, Buffer.from(salt, 'base64'), expected.length, options, (error, derived) =>
      error ? reject(error) : resolve(derived),
    ),
  );
  return timingSafeEqual(actual, expected);
}

/** A new opaque credential: a recognisable prefix (for secret scanners) and 256 random bits. */
export function newSecret(prefix: 'mda' | 'mdr' | 'mds'): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

export function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
