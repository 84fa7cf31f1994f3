/**
 * The demo data of a first start: seeded (scale 1) when the database holds no master data. The
 * check comes first and costs one query per resource type at most; the generator and its Faker
 * locales (./generate.ts, some 15 MB of a process's memory) are loaded only when there is
 * something to seed.
 */
import type { Database } from '../db/client.ts';
import { holdsMasterData } from './master-data.ts';

/** Seeds the demo data (scale 1) when no master data exists. Returns whether it did. */
export async function seedIfEmpty(db: Database): Promise<boolean> {
  if (await holdsMasterData(db.prisma)) return false;
  const { seedDatabase, SeedRefusedError } = await import('./write.ts');
  try {
    await seedDatabase(db, { scale: 1 });
    return true;
  } catch (error) {
    // Another replica seeded it meanwhile (seeding checks again under its lock).
    if (error instanceof SeedRefusedError) return false;
    throw error;
  }
}
