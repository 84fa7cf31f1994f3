/**
 * `npm run change-requests -- <command>`: change requests (./requests.ts) in the database
 * DATABASE_URL names, for operators. An operator approves and rejects as admin may, as `cli
 * user@host` in the request's decisions, and is never the author (four eyes hold).
 *
 *   list [--state STATE] [--json]
 *   show ID                          the request, as JSON
 *   approve ID [--comment TEXT]      applied at once, or scheduled for its effective date
 *   reject ID [--comment TEXT]
 */
import { parseArgs } from 'node:util';
import { runCommand } from '../command.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { createDatabase } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import { describeDatabase, withoutReplica } from '../db/url.ts';
import { DomainError } from '../data/errors.ts';
import { HttpError } from '../http/errors.ts';
import { actor } from '../permissions/actor.ts';
import { RoleBook } from '../permissions/book.ts';
import { ChangeRequests } from './requests.ts';
import { CHANGE_REQUEST_STATES, type ChangeRequest, type ChangeRequestState } from './states.ts';

const USAGE = `usage: npm run change-requests -- list [--state STATE] [--json]
       npm run change-requests -- show ID
       npm run change-requests -- approve ID [--comment TEXT]
       npm run change-requests -- reject ID [--comment TEXT]`;

class CommandError extends Error {}

/** One line per request: id, state, effective date, author, types, comment. */
function line(request: ChangeRequest): string {
  const when = request.effectiveDate ? request.effectiveDate.toISOString() : 'when approved';
  return `${String(request.id).padStart(6)}  ${request.state.padEnd(9)}  ${when.padEnd(24)}  ${request.author.padEnd(24)}  ${request.types.join(',')}  ${request.comment ?? ''}`;
}

function idOf(text: string | undefined, command: string): number {
  if (!text || !/^\d{1,10}$/.test(text)) throw new CommandError(`${command} needs the request's ID (a whole number)`);
  return Number(text);
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      state: { type: 'string' },
      comment: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, argument] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  if (!['list', 'show', 'approve', 'reject'].includes(command))
    throw new CommandError(`unknown command ${command}\n${USAGE}`);
  const state = values.state as ChangeRequestState | undefined;
  if (state !== undefined && !CHANGE_REQUEST_STATES.includes(state))
    throw new CommandError(`--state must be one of ${CHANGE_REQUEST_STATES.join(', ')}`);
  const id = command === 'list' ? 0 : idOf(argument, command);
  const config = loadConfig();
  console.error(
    `change-requests: using the ${describeDatabase(config.database)}${process.env.DATABASE_URL ? '' : ' (DATABASE_URL is not set)'}`,
  );
  await migrate(config.database, config.databaseTimeouts);
  const db = await createDatabase(withoutReplica(config.database), config.databaseTimeouts);
  const requests = new ChangeRequests(db, new RoleBook(db.prisma, db.provider));
  const operator = { operator: actor() };
  try {
    if (command === 'list') {
      const { requests: found } = await requests.list(operator, { state, page: 1, perPage: Number.MAX_SAFE_INTEGER });
      if (values.json) console.log(JSON.stringify(found));
      else for (const request of found) console.log(line(request));
    } else if (command === 'show') {
      console.log(JSON.stringify(await requests.get(operator, id), null, 2));
    } else {
      const decided =
        command === 'approve'
          ? await requests.approve(operator, id, values.comment)
          : await requests.reject(operator, id, values.comment);
      console.log(line(decided));
      if (decided.failure) console.log(`failed: ${decided.failure}`);
    }
    return 0;
  } catch (error) {
    // What the API answers with a status, said as the command's error.
    if (error instanceof DomainError || error instanceof HttpError) throw new CommandError(error.message);
    throw error;
  } finally {
    await db.close();
  }
}

runCommand('change-requests', main, [CommandError, ConfigError]);
