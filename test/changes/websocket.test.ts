/**
 * What GraphQL over WebSocket does its own way (graphql-ws, subprotocol graphql-transport-ws, the
 * token in connection_init), on the app listening on a real port in this process: a connection
 * without a valid token is closed with 4403 and the reason; and a subscription ends within 1 s
 * of `npm run client -- revoke` in another process.
 *
 * The contract, over this transport and Server-Sent Events alike, is in ./live.test.ts.
 */
import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../../src/config.ts';
import { testApp } from '../support/app.ts';
import { migratedDatabase, providers, type MigratedDatabase } from '../support/databases.ts';
import {
  CHANGES,
  createBrand,
  elapsed,
  type Listening,
  listen,
  logHead,
  clientWithTokens,
  type Send,
} from '../support/live.ts';
import { ROOT } from '../support/process.ts';
import { connectionInit, WsSubscription, wsUrl } from '../support/ws.ts';

describe.each(providers)('subscription { changes } over WebSocket on %s', (provider) => {
  let database: MigratedDatabase;
  let service: Listening;
  let send: Send;
  let url: string;
  const opened: WsSubscription[] = [];

  beforeAll(async () => {
    database = await migratedDatabase(provider);
    const t = testApp(database);
    send = (path, init) => t.request(path, init);
    service = await listen(t.app);
    url = wsUrl(service.baseUrl);
  });
  afterEach(async () => {
    for (const sub of opened.splice(0)) await sub.close();
  });
  afterAll(async () => {
    await service?.close();
    await database?.cleanup();
  });

  const newClient = (scopes?: string[]) => clientWithTokens(database.db.prisma, send, scopes);

  /** A subscription on a connection of its own (closed after the test). */
  function subscribe(token: string, variables: { after?: string } = {}): WsSubscription {
    const sub = new WsSubscription(url, token, { query: CHANGES, variables });
    opened.push(sub);
    return sub;
  }

  it('refuses a connection without a token, with a bad one or without the read scope: closed with 4403 and the reason', async () => {
    expect(await connectionInit(url, {})).toEqual({
      code: 4403,
      reason: expect.stringMatching(/^invalid_request: send the access token in connection_init/),
    });
    expect(await connectionInit(url, { Authorization: 'Bearer mda_not-a-token' })).toEqual({
      code: 4403,
      reason: 'invalid_token: unknown access token',
    });
    expect(await connectionInit(url, { Authorization: 'Basic abc' })).toMatchObject({ code: 4403 });
    const { access_token: writeOnly } = await newClient(['write']);
    expect(await connectionInit(url, { Authorization: `Bearer ${writeOnly}` })).toEqual({
      code: 4403,
      reason: 'insufficient_scope: the token needs the read scope',
    });
    const { access_token: token } = await newClient(['read']);
    expect(await connectionInit(url, { authorization: `Bearer ${token}` })).toBe('ack');
    // What graphql-ws's client reports: the close, as the subscription's error.
    const sub = subscribe('mda_not-a-token');
    await sub.ended();
    expect(sub.closed?.code).toBe(4403);
    expect(sub.results).toEqual([]);
  });

  it('ends within 1 s of `npm run client -- revoke` in another process, with TOKEN_REVOKED; its token is then refused (4403)', async () => {
    const { client, access_token: token } = await newClient(['read']);
    const { access_token: writer } = await newClient();
    const sub = subscribe(token, { after: String(await logHead(database.db.prisma)) });
    // Running: a change reaches it.
    await createBrand(send, writer);
    await sub.until((s) => s.changes().length === 1, 'a change before the revocation');

    const cli = await revokeWithCli(database.target.url, client.client_id);
    expect(await sub.endCode()).toBe('TOKEN_REVOKED');
    const afterCli = sub.errorResults()[0]!.t - cli;
    expect(afterCli, 'ms from the CLI revoking the client to the end of the subscription').toBeLessThan(1000);
    expect(sub.completed?.by, 'ended with an error result, then complete').toBe('complete');
    console.info(`[${provider}] the CLI's revocation to the end of the subscription: ${Math.round(afterCli)} ms`);
    expect(await connectionInit(url, { Authorization: `Bearer ${token}` })).toMatchObject({
      code: 4403,
      reason: expect.stringMatching(/^invalid_token: .*revoked/),
    });
  });
});

/** `npm run client -- revoke <id>` in a process of its own; resolves at the moment it says the client is revoked. */
function revokeWithCli(databaseUrl: string, clientId: string): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of CONFIG_VARIABLES) delete env[key];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/auth/cli.ts', 'revoke', clientId], {
      cwd: ROOT,
      env: { ...env, DATABASE_URL: databaseUrl },
    });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
      if (output.includes(`client ${clientId} revoked`)) resolve(elapsed());
    });
    child.stderr.on('data', (d) => (output += d));
    child.on('exit', (code) => {
      if (!output.includes('revoked')) reject(new Error(`the CLI exited with ${code}: ${output}`));
    });
  });
}
