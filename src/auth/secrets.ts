/**
 * Client secrets (scrypt, salted, compared in constant time) and opaque tokens (256 bits from
 * the CSPRNG, stored only as SHA-256 digests).
 */
import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt cost: about 70 ms per verification on these machines; a stolen table cannot be brute-forced cheaply. */
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, keyLength: 32 };

function scryptAsync(secret: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, keyLength, { ...options, maxmem: 128 * options.N! * options.r! * 2 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(secret, salt, SCRYPT.keyLength, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, N, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await scryptAsync(secret, Buffer.from(salt, 'base64'), expected.length, { N: Number(N), r: Number(r), p: Number(p) });
  return timingSafeEqual(actual, expected);
}

/** A hash that never matches, verified against when a client is unknown so timing does not tell. */
export const UNKNOWN_CLIENT_HASH = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${randomBytes(16).toString('base64')}$${randomBytes(32).toString('base64')}`;

/** A new opaque credential: a recognisable prefix (for secret scanners) and 256 random bits. */
export function newSecret(prefix: 'mda' | 'mdr' | 'mds'): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

export function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
