/** The purge of tokens that can never be accepted again (src/main.ts runs it with the other purges). */
import type { Clock } from '../clock.ts';
import type { PrismaDb } from '../db/client.ts';

/** Tokens deleted per statement, so a purge never holds a long write lock. */
const PURGE_BATCH = 1000;

/**
 * Deletes tokens that can never be accepted again: expired ones, and revoked ones. Rotated
 * refresh tokens are kept until they expire, since presenting one again must still be
 * recognised as reuse (and revoke its family). Returns how many rows went.
 */
export async function purgeTokens(prisma: PrismaDb, clock: Clock): Promise<number> {
  const now = clock.now();
  let purged = 0;
  for (;;) {
    const batch = await prisma.oAuthToken.findMany({
      where: { OR: [{ expires_at: { lte: now } }, { revoked_at: { not: null } }] },
      select: { id: true },
      take: PURGE_BATCH,
    });
    if (batch.length === 0) return purged;
    purged += (await prisma.oAuthToken.deleteMany({ where: { id: { in: batch.map((row) => row.id) } } })).count;
  }
}
