/**
 * `npm run roles -- <command>`: manage roles in the database DATABASE_URL names.
 *
 *   apply FILE [--json]   replaces every role but admin with the file's, all or nothing
 *   list [--json]
 *   show NAME             the role's rules, as JSON
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runCommand } from '../command.ts';
import { count } from '../words.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { createDatabase } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import { describeDatabase, withoutReplica } from '../db/url.ts';
import { actor } from './actor.ts';
import { RoleFileError } from './roles.ts';
import { applyRoles, listRoles, RoleInputError, showRole } from './store.ts';

const USAGE = `usage: npm run roles -- apply FILE [--json]
       npm run roles -- list [--json]
       npm run roles -- show NAME`;

function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new RoleInputError(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new RoleInputError(`${path} is not JSON: ${(error as Error).message}`);
  }
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
  });
  const [command, argument] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  if (!['apply', 'list', 'show'].includes(command)) throw new RoleInputError(`unknown command ${command}\n${USAGE}`);
  if (command !== 'list' && !argument)
    throw new RoleInputError(`${command} needs ${command === 'apply' ? 'a FILE' : 'a NAME'}`);
  const file = command === 'apply' ? readJsonFile(argument!) : undefined;
  const config = loadConfig();
  console.error(
    `roles: using the ${describeDatabase(config.database)}${process.env.DATABASE_URL ? '' : ' (DATABASE_URL is not set)'}`,
  );
  await migrate(config.database, config.databaseTimeouts);
  const db = await createDatabase(withoutReplica(config.database), config.databaseTimeouts);
  try {
    if (command === 'apply') {
      const applied = await applyRoles(db.prisma, db.provider, file, actor());
      for (const warning of applied.warnings) console.error(`roles: warning: ${warning}`);
      if (values.json) console.log(JSON.stringify(applied));
      else
        for (const [what, names] of Object.entries(applied))
          if (names.length > 0 && what !== 'warnings') console.log(`${what}: ${names.join(', ')}`);
    } else if (command === 'list') {
      const roles = await listRoles(db.prisma);
      if (values.json) console.log(JSON.stringify(roles));
      else
        for (const role of roles)
          console.log(
            `${role.name.padEnd(20)} ${count(role.clients, 'client').padStart(11)}  ${Object.entries(role.types)
              .map(([type, ops]) => `${type}: ${ops.join(' ')}`)
              .join('; ')}`,
          );
    } else {
      console.log(JSON.stringify(await showRole(db.prisma, argument!), null, 2));
    }
    return 0;
  } finally {
    await db.close();
  }
}

runCommand('roles', main, [RoleInputError, RoleFileError, ConfigError]);
