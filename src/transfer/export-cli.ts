/**
 * `npm run export -- --out DIR [--types products,units] [--format ndjson|csv] [--json]`: the
 * database DATABASE_URL names, one file per type and `manifest.json`, from one snapshot
 * (./export.ts). A bar per type on a terminal; `--json` prints the manifest.
 */
import { parseArgs } from 'node:util';
import { runCommand } from '../command.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { createDatabase } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import { describeDatabase, withoutReplica } from '../db/url.ts';
import { exportData } from './export.ts';
import type { ExportFormat } from './manifest.ts';
import { progressBars } from './progress.ts';
import { typesOf, UsageError } from './types.ts';
import { count } from '../words.ts';

const USAGE = 'usage: npm run export -- --out DIR [--types TYPE,...] [--format ndjson|csv] [--json]';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      types: { type: 'string' },
      format: { type: 'string', default: 'ndjson' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (!values.out) throw new UsageError(`--out DIR is required\n${USAGE}`);
  if (values.format !== 'ndjson' && values.format !== 'csv')
    throw new UsageError(`--format must be ndjson or csv (got ${JSON.stringify(values.format)})\n${USAGE}`);
  const types = typesOf(values.types, USAGE);
  const config = loadConfig();
  console.error(`export: reading the ${describeDatabase(config.database)}`);
  await migrate(config.database, config.databaseTimeouts);
  const db = await createDatabase(withoutReplica(config.database), config.databaseTimeouts);
  const bars = progressBars(!values.json && process.stderr.isTTY === true);
  const started = Date.now();
  try {
    const manifest = await exportData(db, {
      dir: values.out,
      types,
      format: values.format as ExportFormat,
      progress: bars.update,
    });
    bars.stop();
    const rows = Object.values(manifest.types).reduce((sum, t) => sum + t.rows, 0);
    if (values.json) console.log(JSON.stringify(manifest));
    else
      console.error(
        `export: ${count(rows, 'row')} of ${count(types.length, 'type')} in ${((Date.now() - started) / 1000).toFixed(1)} s into ${values.out}, changes_cursor ${manifest.changes_cursor}`,
      );
    return 0;
  } finally {
    bars.stop();
    await db.close();
  }
}

runCommand('export', main, [ConfigError, UsageError]);
