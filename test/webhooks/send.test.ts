/**
 * The parts of delivery that need no database: one call's timeout is kept from the moment it is
 * written and judged after the answers already received were read (a busy event loop does not
 * turn an answer that came in time into a timeout, and so into a duplicate); the signature; the
 * live window keeps only what the deliverer furthest behind still has to read; each endpoint's
 * share of the entries held in memory.
 */
import { Worker } from 'node:worker_threads';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEntry } from '../../src/data/changes.ts';
import { HELD, shareOf } from '../../src/webhooks/policy.ts';
import { KEPT, LiveWindow } from '../../src/webhooks/live-window.ts';
import { Caller, sign, signingKey } from '../../src/webhooks/send.ts';
import { Targets } from '../../src/webhooks/targets.ts';

/** A receiver on a thread of its own (it answers while this one is busy): 200 at once, after 50 ms to `msg_late_*`, after a second to `msg_slow_*`. */
const RECEIVER = `
const { createServer } = require('node:http');
const { parentPort } = require('node:worker_threads');
const server = createServer((req, res) => {
  req.resume();
  const id = String(req.headers['webhook-id']);
  const delay = id.startsWith('msg_slow') ? 1000 : id.startsWith('msg_late') ? 50 : 0;
  req.on('end', () => setTimeout(() => res.end('ok'), delay));
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

describe('one call', () => {
  let worker: Worker;
  let port: number;
  const targets = new Targets({ allowHttp: true, allowedNetworks: ['127.0.0.0/8'] });

  beforeAll(async () => {
    worker = new Worker(RECEIVER, { eval: true });
    port = await new Promise<number>((resolve) => worker.once('message', resolve));
  });
  afterAll(async () => {
    await worker.terminate();
  });

  const message = (id: string) => {
    const body = Buffer.from(JSON.stringify({ type: 'brands.updated', data: { id } }));
    return { id, timestamp: Math.floor(Date.now() / 1000), body, signature: 'v1,x' };
  };

  it('takes an answer that came within the timeout while the event loop was busy past it', async () => {
    const caller = new Caller(new URL(`http://127.0.0.1:${port}/hook`), targets, { connections: 1, timeoutMs: 200 });
    // A first call opens the connection.
    expect((await caller.post(message('msg_1_1'))).status).toBe(200);
    const attempt = caller.post(message('msg_late_2'));
    // Written on the open connection within a moment; answered 50 ms later, while this thread is
    // busy for three times the timeout (after its sockets were read, as a loaded server is): the
    // next turn of the event loop finds the timer due before it reads the answer.
    await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        const until = performance.now() + 600;
        while (performance.now() < until) {
          // busy
        }
        resolve();
      }),
    );
    const result = await attempt;
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(200);
    expect(result.response).toBe('ok');
    await caller.close();
  });

  it('times out a call whose answer does not come', async () => {
    const caller = new Caller(new URL(`http://127.0.0.1:${port}/hook`), targets, { connections: 1, timeoutMs: 100 });
    const result = await caller.post(message('msg_slow_1'));
    expect(result).toMatchObject({ error: 'no complete answer within 100 ms' });
    expect(result.status).toBeUndefined();
    expect(result.latencyMs).toBeGreaterThanOrEqual(100);
    await caller.close();
  });

  it('signs as standardwebhooks verifies, with each key', () => {
    const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
    const other = `whsec_${Buffer.from('fedcba9876543210fedcba9876543210').toString('base64')}`;
    const body = Buffer.from('{"type":"brands.created","é":1}');
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = sign([signingKey(secret), signingKey(other)], 'msg_1_9', timestamp, body);
    expect(signature.split(' ')).toHaveLength(2);
    for (const key of [secret, other])
      expect(
        new Webhook(key).verify(body.toString('utf8'), {
          'webhook-id': 'msg_1_9',
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signature,
        }),
      ).toEqual({ type: 'brands.created', é: 1 });
  });
});

describe('the live window', () => {
  const entry = (seq: number, type = 'brands'): ChangeEntry => ({
    seq,
    type,
    id: seq,
    op: 'updated',
    version: 1,
    changed: [],
    before: null,
    after: null,
    actor: 'cli',
    at: new Date(0).toISOString(),
    changeRequest: null,
  });

  it('keeps what the deliverer furthest behind has still to read, and no more', () => {
    const window = new LiveWindow();
    window.start(10);
    window.add([11, 12, 13, 14, 15].map((seq) => entry(seq)));
    expect(window.after(10, undefined, 100)?.entries.map((e) => e.seq)).toEqual([11, 12, 13, 14, 15]);
    window.trim(13);
    // Before the least advanced deliverer: not held, read from the log.
    expect(window.after(12, undefined, 100)).toBeUndefined();
    expect(window.after(13, undefined, 100)).toEqual({
      entries: [entry(14), entry(15)],
      cursor: 15,
      hasMore: false,
    });
    expect(window.after(13, ['units'], 100)).toEqual({ entries: [], cursor: 15, hasMore: false });
    expect(window.after(13, undefined, 1)).toEqual({ entries: [entry(14)], cursor: 14, hasMore: true });
    // Past the head (a deliverer read the log itself beyond it): nothing held before it.
    window.trim(20);
    window.add([entry(21)]);
    expect(window.after(20, undefined, 100)?.entries.map((e) => e.seq)).toEqual([21]);
  });

  it(`keeps ${KEPT} entries at most`, () => {
    const window = new LiveWindow();
    window.start(0);
    window.add(Array.from({ length: KEPT + 10 }, (_, i) => entry(i + 1)));
    expect(window.after(5, undefined, 10)).toBeUndefined();
    expect(window.after(10, undefined, 1)?.entries.map((e) => e.seq)).toEqual([11]);
  });

  it(`shares ${HELD} entries between the endpoints delivered`, () => {
    expect(shareOf(1)).toBe(1000);
    expect(shareOf(50)).toBe(HELD / 50);
    expect(shareOf(50) * 50).toBe(HELD);
    expect(shareOf(10_000)).toBe(32);
  });
});
