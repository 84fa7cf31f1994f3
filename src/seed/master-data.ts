/** Whether a database holds master data: the demo seed writes only into one that does not. */
import type { PrismaDb, PrismaTx } from '../db/client.ts';
import { resources } from '../resources/registry.ts';

/** Whether any resource type has a row (one count per type, until one has). */
export async function holdsMasterData(client: PrismaDb | PrismaTx): Promise<boolean> {
  for (const { model } of resources) {
    const rows = await (client as unknown as Record<string, { count(): Promise<number> }>)[model]!.count();
    if (rows > 0) return true;
  }
  return false;
}
