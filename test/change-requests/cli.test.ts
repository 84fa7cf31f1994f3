/**
 * `npm run change-requests -- ...` as an operator runs it, on both databases: list, show, approve
 * (applied at once, the operator recorded as `cli user@host`), reject; a request that is no
 * longer pending is refused with exit code 2 and the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/auth/clients.ts';
import { ChangeRequests } from '../../src/change-requests/requests.ts';
import { createDatabase, type Database } from '../../src/db/client.ts';
import { RoleBook } from '../../src/permissions/book.ts';
import { emptyDatabase, providers, type TestDatabase } from '../support/databases.ts';
import { runScript } from '../support/process.ts';
import { applyTestRoles } from '../support/roles.ts';

describe.each(providers)('change requests command line on %s', (provider) => {
  let database: TestDatabase;
  let db: Database;
  let requests: ChangeRequests;
  let roles: RoleBook;
  let author: number;
  let authorClientId: string;
  const cli = (...args: string[]) =>
    runScript('src/change-requests/cli.ts', args, { DATABASE_URL: database.target.url });
  beforeAll(async () => {
    database = await emptyDatabase(provider);
    expect((await cli('list')).code).toBe(0); // migrates
    db = await createDatabase(database.target, { connectMs: 5000, statementMs: 5000 });
    await applyTestRoles(db, { unit_editor: { units: { read: {}, create: { approval: 'required' } } } });
    const { client_id } = await createClient(db.prisma, 'unit-editor', ['read', 'write'], 'unit_editor');
    author = (await db.prisma.apiClient.findUniqueOrThrow({ where: { client_id } })).id;
    authorClientId = client_id;
    roles = new RoleBook(db.prisma, db.provider);
    requests = new ChangeRequests(db, roles);
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  const proposeUnit = async (reference: string) => {
    const access = await roles.access('unit_editor');
    const request = await requests.propose(
      { clientId: author, access },
      { operations: [{ op: 'add', data: { type: 'units', attributes: { reference } } }], comment: `add ${reference}` },
    );
    return request.id;
  };

  it('lists, shows, approves (applied at once) and rejects; a settled request is refused with the reason', async () => {
    const applied = await proposeUnit('KG');
    const rejected = await proposeUnit('LB');
    const list = await cli('list', '--state', 'pending');
    expect(list.code).toBe(0);
    expect(list.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(`^\\s*${rejected}\\s+pending\\s+when approved\\s+${authorClientId}\\s+units\\s+add LB$`),
      ),
      expect.stringMatching(
        new RegExp(`^\\s*${applied}\\s+pending\\s+when approved\\s+${authorClientId}\\s+units\\s+add KG$`),
      ),
    ]);
    const shown = await cli('show', String(applied));
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: applied, state: 'pending', types: ['units'] });

    const approve = await cli('approve', String(applied), '--comment', 'checked by quality');
    expect(approve.code, approve.stderr).toBe(0);
    expect(approve.stdout).toMatch(/applied/);
    expect(await db.prisma.unit.count({ where: { reference: 'KG' } })).toBe(1);
    const decision = (await requests.get({ operator: 'test' }, applied)).decisions[0]!;
    expect(decision).toMatchObject({ decision: 'approved', comment: 'checked by quality', clientId: null });
    expect(decision.by).toMatch(/^cli \S+@\S+$/);
    const entries = await db.prisma.change.findMany({ where: { change_request_id: applied } });
    expect(entries.map((e) => [e.resource_type, e.op, e.actor])).toEqual([['units', 'created', authorClientId]]);

    expect((await cli('reject', String(rejected))).code).toBe(0);
    expect(await db.prisma.unit.count({ where: { reference: 'LB' } })).toBe(0);
    const again = await cli('approve', String(rejected));
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/change request \d+ is rejected: only a pending request can be approved/);
    const missing = await cli('show', '999999');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/change_requests 999999 not found/);
  });
});
