/**
 * What the tests of live changes share, whatever the transport: the subscription document,
 * writes and tokens over HTTP (in memory or to a running service), the change log read straight
 * from the database, and the check that what subscribers received covers the log without a gap.
 */
import { expect } from 'vitest';
import type { PrismaDb } from '../../src/db/client.ts';
import { basic, type Client } from './oauth.ts';

/** Sends a request to the service: `path` is below the service's root. */
export type Send = (path: string, init: RequestInit) => Promise<Response>;

/** A service over real HTTP, as a `Send`. */
export const over =
  (baseUrl: string): Send =>
  (path, init) =>
    fetch(`${baseUrl}${path}`, init);

export const CHANGES = `subscription Changes($after: String, $types: [ResourceType!]) {
  changes(after: $after, types: $types) { cursor type id op version changed actor at }
}`;

/** Milliseconds on a monotonic clock. */
export const elapsed = () => performance.now();

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `predicate` every 10 ms until it holds; fails with `what()` after `timeoutMs`. */
export async function waitUntil(predicate: () => boolean, what: () => string, timeoutMs: number): Promise<void> {
  const deadline = elapsed() + timeoutMs;
  while (!predicate()) {
    if (elapsed() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`);
    await sleep(10);
  }
}

/** A GraphQL operation over a plain POST; fails unless it answers data without errors. */
export async function graphql(send: Send, token: string, query: string, variables?: Record<string, unknown>) {
  const res = await send('/graphql', {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: any; errors?: unknown[] };
  if (res.status !== 200 || body.errors) throw new Error(`${query} failed: ${res.status} ${JSON.stringify(body)}`);
  return body.data;
}

/** Tokens of `client` from the service's token endpoint. */
export async function tokensOf(send: Send, client: Client) {
  const res = await send('/oauth/token.php', {
    method: 'POST',
    headers: {
      Authorization: basic(client.client_id, client.client_secret),
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { access_token: string; refresh_token: string; expires_in: number };
}

/** RFC 7009 revocation of `token` by its client; resolves when the answer (200) is in. */
export async function revokeToken(send: Send, client: Client, token: string): Promise<void> {
  const res = await send('/oauth/revoke.php', {
    method: 'POST',
    headers: {
      Authorization: basic(client.client_id, client.client_secret),
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ token }).toString(),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

let references = 0;
/** A brand reference no other test uses. */
export const uniqueReference = (prefix: string) =>
  `${prefix}-${process.pid}-${Date.now().toString(36)}-${++references}`;

/** Creates a brand (one `created` entry of BRANDS); answers its id. */
export async function createBrand(send: Send, token: string, prefix = 'LIVE'): Promise<number> {
  const data = await graphql(send, token, 'mutation($r: String!) { createBrand(input: { reference: $r }) { id } }', {
    r: uniqueReference(prefix),
  });
  return Number(data.createBrand.id);
}

/** Creates a unit (one `created` entry of UNITS); answers its id. */
export async function createUnit(send: Send, token: string): Promise<number> {
  const data = await graphql(send, token, 'mutation($r: String!) { createUnit(input: { reference: $r }) { id } }', {
    r: uniqueReference('U'),
  });
  return Number(data.createUnit.id);
}

/** The newest entry of the log (0 when empty): a cursor from which to follow what comes next. */
export async function logHead(prisma: PrismaDb): Promise<number> {
  return (await prisma.change.aggregate({ _max: { seq: true } }))._max.seq ?? 0;
}

/** The (numbered) entries after `seq`, oldest first (of `types`, REST names, when given). */
export async function logAfter(prisma: PrismaDb, seq: number, types?: string[]) {
  const rows = await prisma.change.findMany({
    where: { seq: { gt: seq }, ...(types ? { resource_type: { in: types } } : {}) },
    orderBy: { seq: 'asc' },
    select: { seq: true, resource_type: true, resource_id: true, op: true, version: true, actor: true },
  });
  return rows.map((row) => ({ ...row, seq: row.seq! }));
}

/**
 * What one client received over several connections, one after the other (each resumed from the
 * last cursor of the one before), against the log: each connection in strictly ascending order,
 * and all of them together every entry of `expected`, in order: duplicates allowed across a
 * resume, gaps never.
 */
export function expectGapless(connections: number[][], expected: number[]): void {
  for (const [i, seqs] of connections.entries()) {
    expect(
      seqs.every((s, j) => j === 0 || s > seqs[j - 1]!),
      `connection ${i} is not in ascending order: ${seqs}`,
    ).toBe(true);
  }
  const merged: number[] = [];
  for (const seqs of connections) {
    for (const seq of seqs) {
      if (merged.length === 0 || seq > merged.at(-1)!) merged.push(seq);
      else expect(merged, `duplicate ${seq} was never delivered before`).toContain(seq);
    }
  }
  expect(merged, 'the entries received, duplicates taken out, are the log').toEqual(expected);
}

/** The cursors of received `changes` payloads, as numbers. */
export const seqsOf = (changes: { cursor: string }[]) => changes.map((c) => Number(c.cursor));
