/**
 * `npm run check-data -- [--types products,suppliers] [--json]`: lists every stored row that breaks
 * a clean-data rule, in the database DATABASE_URL names. Exit code 0 when there is none, 1 when
 * there are (a script can stop on it), 2 on a bad argument.
 */
import { parseArgs } from 'node:util';
import { runCommand } from '../command.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { createDatabase } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import { describeDatabase, withoutReplica } from '../db/url.ts';
import { storedProblems, type StoredProblem } from './check-data.ts';
import { typesOf, UsageError } from './types.ts';
import { count } from '../words.ts';

const USAGE = 'usage: npm run check-data -- [--types TYPE,...] [--json]';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      types: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const types = typesOf(values.types, USAGE);
  const config = loadConfig();
  console.error(`check-data: reading the ${describeDatabase(config.database)}`);
  await migrate(config.database, config.databaseTimeouts);
  const db = await createDatabase(withoutReplica(config.database), config.databaseTimeouts);
  const problems: StoredProblem[] = [];
  try {
    for await (const problem of storedProblems(db.primary, types)) {
      problems.push(problem);
      if (!values.json) console.log(`${problem.type} ${problem.id} ${problem.field}: ${problem.problem}`);
    }
  } finally {
    await db.close();
  }
  if (values.json) console.log(JSON.stringify({ problems }));
  else console.error(`check-data: ${count(problems.length, 'problem')} in ${count(types.length, 'type')}`);
  return problems.length > 0 ? 1 : 0;
}

runCommand('check-data', main, [ConfigError, UsageError]);
