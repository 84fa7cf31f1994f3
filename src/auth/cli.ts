/**
 * `npm run client -- <command>`: manage API clients in the database DATABASE_URL names.
 *
 *   create --name NAME --scopes read,write --role ROLE [--json]   prints the id and the secret, once
 *   list [--json]
 *   set-role CLIENT_ID ROLE                                        its next requests run under ROLE
 *   revoke CLIENT_ID                                               the client and all its tokens stop working
 *   documents add CLIENT_ID FILE                                   registers its trusted documents (persisted-documents.json)
 *   documents list CLIENT_ID [--json]                              with their uses
 *   documents remove CLIENT_ID DOCUMENT_ID
 *   documents mode CLIENT_ID off|log|enforce                       which documents it may run
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { systemClock } from '../clock.ts';
import { runCommand } from '../command.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { createDatabase, type Database } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import { describeDatabase, withoutReplica } from '../db/url.ts';
import { actor } from '../permissions/actor.ts';
import { RoleInputError, setClientRole } from '../permissions/store.ts';
import { DocumentsRefused, listDocuments, registerDocuments, removeDocument } from '../graphql/trusted-documents.ts';
import { RoleBook } from '../permissions/book.ts';
import { ClientInputError, createClient, listClients, revokeClient } from './clients.ts';
import { announceRevocation, DOCUMENTS_MODES, type DocumentsMode } from './tokens.ts';

const USAGE = `usage: npm run client -- create --name NAME --scopes read,write --role ROLE [--json]
       npm run client -- list [--json]
       npm run client -- set-role CLIENT_ID ROLE
       npm run client -- revoke CLIENT_ID
       npm run client -- documents add CLIENT_ID FILE | list CLIENT_ID [--json] | remove CLIENT_ID DOCUMENT_ID
       npm run client -- documents mode CLIENT_ID off|log|enforce
ROLE is admin (everything) or a role of npm run roles -- list. FILE is GraphQL Code Generator's
persisted-documents.json ({"sha256:<hex>": "<document>", ...}).`;

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
  if (!['create', 'list', 'set-role', 'revoke', 'documents'].includes(command))
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
    } else if (command === 'documents') {
      await documentsCommand(db, config.graphqlIntrospection, rest, values.json);
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

/** `documents add CLIENT_ID FILE`: registers the documents of a persisted-documents.json, all or none. */
async function addDocuments(
  db: Database,
  client: { id: number; client_id: string; role: string },
  file: string,
  introspection: boolean,
): Promise<void> {
  let documents: unknown;
  try {
    documents = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ClientInputError(`${file} is not a JSON file: ${(error as Error).message}`);
  }
  if (!documents || typeof documents !== 'object' || Array.isArray(documents))
    throw new ClientInputError(`${file} must be a JSON object of documents by id: {"sha256:<hex>": "<document>"}`);
  const access = await new RoleBook(db.prisma, db.provider).access(client.role);
  const count = Object.keys(documents).length;
  const added = await registerDocuments(db, client.id, documents as Record<string, unknown>, access, introspection);
  console.log(`client ${client.client_id}: ${added} of ${count} documents added (the others were registered already)`);
}

/** `documents add | list | remove | mode`: a client's trusted documents (src/graphql/trusted-documents.ts). */
async function documentsCommand(db: Database, introspection: boolean, args: string[], json: boolean): Promise<void> {
  const [action, clientId, argument] = args;
  if (!action || !['add', 'list', 'remove', 'mode'].includes(action))
    throw new ClientInputError(`documents takes add, list, remove or mode\n${USAGE}`);
  if (!clientId) throw new ClientInputError(`documents ${action} needs a CLIENT_ID`);
  const client = await db.prisma.apiClient.findUnique({ where: { client_id: clientId } });
  if (!client) throw new ClientInputError(`no client ${clientId}`);
  if (action === 'list') {
    const documents = await listDocuments(db, client.id);
    if (json) console.log(JSON.stringify({ mode: client.documents, documents }));
    else {
      console.log(`client ${clientId}: documents mode ${client.documents}, ${documents.length} registered`);
      for (const d of documents)
        console.log(
          `${d.id}  ${String(d.uses).padStart(8)} uses  ${d.lastUsed?.toISOString() ?? 'never used'}  ${d.summary}`,
        );
    }
    return;
  }
  if (!argument)
    throw new ClientInputError(
      `documents ${action} needs a ${action === 'add' ? 'FILE' : action === 'mode' ? 'MODE' : 'DOCUMENT_ID'}`,
    );
  if (action === 'add') await addDocuments(db, client, argument, introspection);
  else if (action === 'remove') {
    if (!(await removeDocument(db, client.id, argument)))
      throw new ClientInputError(`client ${clientId} has no document ${argument}`);
    console.log(`client ${clientId}: document ${argument} removed`);
  } else {
    if (!DOCUMENTS_MODES.includes(argument as DocumentsMode))
      throw new ClientInputError(`the mode is one of ${DOCUMENTS_MODES.join(', ')} (got ${argument})`);
    await db.prisma.apiClient.update({ where: { id: client.id }, data: { documents: argument } });
    console.log(`client ${clientId}: documents mode ${client.documents} -> ${argument}`);
  }
  // Every replica forgets the tokens and documents it trusted: the change holds at once.
  if (db.provider === 'postgresql') await announceRevocation(db.prisma);
}

runCommand('client', main, [ClientInputError, RoleInputError, ConfigError, DocumentsRefused]);
