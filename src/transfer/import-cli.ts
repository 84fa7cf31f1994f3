/**
 * `npm run import`: a source into the database DATABASE_URL names (./import.ts).
 *
 *   --from-service URL --client-id ID --client-secret SECRET   a service of the old interface
 *   --from DIR                                                 what `npm run export` wrote
 *   --from-csv FILE --type TYPE                                one CSV file of one type
 *
 * with `--types T,...` (some types only), `--check` (read and check, write nothing),
 * `--accept-invalid` (take values the clean-data rules refuse, listed in the summary) and `--json`
 * (the summary as JSON on stdout). A bar per type on a terminal. Exit code 0 when everything was
 * taken, 1 when a problem stopped it (or, checking, when there are problems), 2 on a bad argument.
 */
import { parseArgs } from 'node:util';
import { runCommand } from '../command.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { createDatabase } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import { describeDatabase, withoutReplica } from '../db/url.ts';
import { type ImportSummary, importData, type Problem } from './import.ts';
import { progressBars } from './progress.ts';
import { serviceSource } from './service-source.ts';
import { csvFileSource, directorySource, type ImportSource } from './sources.ts';
import { typesOf, UsageError } from './types.ts';
import { count } from '../words.ts';

const USAGE = `usage: npm run import -- (--from-service URL --client-id ID --client-secret SECRET | --from DIR | --from-csv FILE --type TYPE)
         [--types TYPE,...] [--check] [--accept-invalid] [--json]
  The secret may instead be in the environment variable SOURCE_CLIENT_SECRET (kept out of the process list).`;

/** Problems a terminal is shown; --json lists them all. */
const SHOWN = 50;

async function sourceOf(values: Record<string, string | boolean | undefined>): Promise<ImportSource> {
  const from = ['from-service', 'from', 'from-csv'].filter((option) => values[option] !== undefined);
  if (from.length !== 1) throw new UsageError(`give one of --from-service, --from, --from-csv\n${USAGE}`);
  const only = values.types === undefined ? undefined : typesOf(values.types as string, USAGE);
  if (values.from !== undefined) return directorySource(values.from as string, only);
  if (values['from-csv'] !== undefined) {
    if (!values.type) throw new UsageError(`--from-csv needs --type TYPE\n${USAGE}`);
    return csvFileSource(values['from-csv'] as string, values.type as string);
  }
  const clientId = values['client-id'] as string | undefined;
  const clientSecret = (values['client-secret'] as string | undefined) ?? process.env.SOURCE_CLIENT_SECRET;
  if (!clientId || !clientSecret)
    throw new UsageError(`--from-service needs --client-id and --client-secret (or SOURCE_CLIENT_SECRET)\n${USAGE}`);
  let url: URL;
  try {
    url = new URL(values['from-service'] as string);
  } catch {
    throw new UsageError(`--from-service must be a URL (got ${JSON.stringify(values['from-service'])})`);
  }
  return serviceSource(url.toString(), { clientId, clientSecret }, only ?? []);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      'from-service': { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      from: { type: 'string' },
      'from-csv': { type: 'string' },
      type: { type: 'string' },
      types: { type: 'string' },
      check: { type: 'boolean', default: false },
      'accept-invalid': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const source = await sourceOf(values);
  const config = loadConfig();
  console.error(
    `import: ${values.check ? 'checking' : 'reading'} ${source.name}${values.check ? '' : ` into the ${describeDatabase(config.database)}`}`,
  );
  await migrate(config.database, config.databaseTimeouts);
  const db = await createDatabase(withoutReplica(config.database), config.databaseTimeouts);
  const bars = progressBars(!values.json && process.stderr.isTTY === true);
  try {
    const summary = await importData(db, source, {
      check: values.check,
      acceptInvalid: values['accept-invalid'],
      progress: bars.update,
    });
    bars.stop();
    if (values.json) console.log(JSON.stringify(summary));
    else report(summary);
    return summary.problems.length > 0 ? 1 : 0;
  } finally {
    bars.stop();
    await db.close();
  }
}

/** The summary for a person: a line per type, then the problems. */
function report(summary: ImportSummary): void {
  const rows = Object.values(summary.types).reduce((sum, t) => sum + t.read, 0);
  for (const [type, t] of Object.entries(summary.types))
    console.error(`  ${type}: ${t.read} read, ${t.created} created, ${t.updated} updated, ${t.unchanged} unchanged`);
  const rate = summary.seconds > 0 ? Math.round(rows / summary.seconds) : rows;
  console.error(
    `import: ${count(rows, 'row')} ${summary.mode === 'check' ? 'checked' : 'read'} in ${summary.seconds.toFixed(1)} s (${rate} rows/s)`,
  );
  const list = (title: string, problems: Problem[]) => {
    if (problems.length === 0) return;
    console.error(title);
    for (const p of problems.slice(0, SHOWN))
      console.error(`  ${p.type}${p.id === undefined ? '' : ` ${p.id}`} (${p.at}) ${p.message}`);
    if (problems.length > SHOWN) console.error(`  ... and ${problems.length - SHOWN} more (--json lists them all)`);
  };
  list(`accepted with --accept-invalid (${summary.accepted.length}):`, summary.accepted);
  list(
    summary.mode === 'check'
      ? `problems (${summary.problems.length}):`
      : `stopped on ${count(summary.problems.length, 'problem')}; nothing of their batch was written (--check lists every problem):`,
    summary.problems,
  );
}

runCommand('import', main, [ConfigError, UsageError]);
