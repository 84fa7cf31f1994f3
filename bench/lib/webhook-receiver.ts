/**
 * A webhook receiver on a worker thread (./webhooks.ts): answers every call at once, 204, or 500
 * to `failRate` of them at random, and records each call (endpoint and entry from its
 * `webhook-id`, status, when it came on the process's shared clock). `collect` sends the records.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';

export interface ReceiverCall {
  endpoint: number;
  seq: number;
  status: number;
  at: number;
}

export interface ReceiverRecords {
  endpoint: Int32Array;
  seq: Int32Array;
  status: Int16Array;
  at: Float64Array;
  calls(): ReceiverCall[];
  accepted(): string[];
}

if (parentPort) {
  const port = parentPort;
  const { failRate } = workerData as { failRate: number };
  const endpoint: number[] = [];
  const seq: number[] = [];
  const status: number[] = [];
  const at: number[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = /^msg_(\d+)_(\d+)$/.exec(String(req.headers['webhook-id']));
      const answer = Math.random() < failRate ? 500 : 204;
      endpoint.push(Number(id?.[1] ?? 0));
      seq.push(Number(id?.[2] ?? 0));
      status.push(answer);
      at.push(performance.timeOrigin + performance.now());
      res.writeHead(answer);
      res.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => port.postMessage({ port: (server.address() as AddressInfo).port }));
  port.on('message', () =>
    port.postMessage({
      endpoint: Int32Array.from(endpoint),
      seq: Int32Array.from(seq),
      status: Int16Array.from(status),
      at: Float64Array.from(at),
    }),
  );
}

/** The records as the worker sent them, with their readers. */
export function records(raw: Omit<ReceiverRecords, 'calls' | 'accepted'>): ReceiverRecords {
  return {
    ...raw,
    calls: () =>
      Array.from(raw.seq, (s, i) => ({ endpoint: raw.endpoint[i]!, seq: s, status: raw.status[i]!, at: raw.at[i]! })),
    accepted: () =>
      Array.from(raw.seq, (s, i) => (raw.status[i]! < 300 ? `${raw.endpoint[i]}/${s}` : '')).filter(Boolean),
  };
}
