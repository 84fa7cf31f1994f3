/**
 * `npm run client -- <command>`: manage API clients in the database DATABASE_URL names.
 *
 *   create --name NAME --scopes read,write --role ROLE [--json]   prints the id and the secret, once
 *   list [--json]
 *   set-role CLIENT_ID ROLE                                        its next requests run under ROLE
 *   revoke CLIENT_ID                                               the client and all its tokens stop working
 */
import { parseArgs } from 'node:util';
import { systemClock } from '../clock.ts';
import { runCommand } from '../command.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { createDatabase } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import { describeDatabase, withoutReplica } from '../db/url.ts';
import { actor } from '../permissions/actor.ts';
import { RoleInputError, setClientRole } from '../permissions/store.ts';
import { ClientInputError, createClient, listClients, revokeClient } from './clients.ts';

const USAGE = `usage: npm run client -- create --name NAME --scopes read,write --role ROLE [--json]
       npm run client -- list [--json]
       npm run client -- set-role CLIENT_ID ROLE
       npm run client -- revoke CLIENT_ID
ROLE is admin (everything) or a role of npm run roles -- list.`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      scopes: { type: 'string', default: 'read' },
      role: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  if (command === 'create' && !values.role)
    throw new ClientInputError(
      'a client needs a role (--role): admin for everything, or a role of npm run roles -- list',
    );
  if (!['create', 'list', 'set-role', 'revoke'].includes(command))
    throw new ClientInputError(`unknown command ${command}\n${USAGE}`);
  const config = loadConfig();
  // The CLI writes wherever DATABASE_URL points (the SQLite default when unset), which need not
  // be where a running service reads: say which, on stderr so --json output stays clean.
  console.error(
    `client: using the ${describeDatabase(config.database)}${process.env.DATABASE_URL ? '' : ' (DATABASE_URL is not set)'}`,
  );
  await migrate(config.database, config.databaseTimeouts);
  const db = await createDatabase(withoutReplica(config.database), config.databaseTimeouts);
  try {
    if (command === 'create') {
      const client = await createClient(
        db.prisma,
        values.name ?? '',
        values.scopes
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
        values.role,
      );
      if (values.json)
        console.log(JSON.stringify({ client_id: client.client_id, client_secret: client.client_secret }));
      else {
        console.log(`client ${client.name} created with scopes: ${client.scopes}, role: ${client.role}`);
        console.log(`client_id:     ${client.client_id}`);
        console.log(`client_secret: ${client.client_secret}`);
        console.log('The secret is shown only now; only its hash is stored.');
      }
    } else if (command === 'list') {
      const clients = await listClients(db.prisma);
      if (values.json) console.log(JSON.stringify(clients));
      else {
        for (const c of clients) {
          console.log(
            `${c.client_id}  ${c.revoked ? 'REVOKED' : 'active '}  ${c.scopes.padEnd(10)}  ${c.role.padEnd(12)}  ${c.created_date.toISOString()}  ${c.name}`,
          );
        }
        if (clients.length === 0) console.log('no API clients');
      }
    } else if (command === 'set-role') {
      const [clientId, role] = rest;
      if (!clientId || !role) throw new ClientInputError('set-role needs a CLIENT_ID and a ROLE');
      const { before } = await setClientRole(db.prisma, db.provider, clientId, role, actor());
      console.log(`client ${clientId}: role ${before} -> ${role}`);
    } else {
      const clientId = rest[0];
      if (!clientId) throw new ClientInputError('revoke needs a CLIENT_ID');
      if (!(await revokeClient(db.prisma, clientId, systemClock, db.provider)))
        throw new ClientInputError(`no client ${clientId}`);
      console.log(`client ${clientId} revoked, with all its tokens`);
    }
    return 0;
  } finally {
    await db.close();
  }
}

runCommand('client', main, [ClientInputError, RoleInputError, ConfigError]);
