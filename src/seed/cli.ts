/**
 * `npm run seed -- --scale N [--seed S] [--replace]`: writes about N x (500 customers, 500
 * products, 250 structures, 2,500 structure items, 50 suppliers) plus lookups into the
 * database DATABASE_URL names, migrating it first.
 */
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { ConfigError, loadConfig } from '../config.ts';
import { createDatabase } from '../db/client.ts';
import { withoutReplica } from '../db/url.ts';
import { migrate } from '../db/migrate.ts';
import { SeedRefusedError, seedDatabase } from './write.ts';
import { count } from '../words.ts';

function positiveInteger(name: string, value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new ConfigError(`--${name} must be a whole number >= 1 (got ${JSON.stringify(value)})`);
  return Number(value);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      scale: { type: 'string', default: '1' },
      seed: { type: 'string', default: '1' },
      replace: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log('usage: npm run seed -- [--scale N] [--seed S] [--replace]');
    return;
  }
  const scale = positiveInteger('scale', values.scale);
  const seed = positiveInteger('seed', values.seed);
  const config = loadConfig();
  await migrate(config.database);
  const db = await createDatabase(withoutReplica(config.database));
  const bar = new cliProgress.SingleBar(
    {
      format: 'seeding [{bar}] {percentage}% | {value}/{total} rows | {duration}s',
      noTTYOutput: true,
      notTTYSchedule: 2000,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = Date.now();
  try {
    const result = await seedDatabase(db, {
      scale,
      seed,
      replace: values.replace,
      onProgress: (written, total) => (written === 0 ? bar.start(total, 0) : bar.update(written)),
    });
    bar.stop();
    console.log(
      `seeded ${count(result.rows, 'row')} (scale ${scale}, seed ${seed}) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  } finally {
    bar.stop();
    await db.close();
  }
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof SeedRefusedError;
  console.error(`seed: ${known ? (error as Error).message : `failed: ${(error as Error).message.split('\n')[0]}`}`);
  process.exit(1);
});
