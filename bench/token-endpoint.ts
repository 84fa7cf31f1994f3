/**
 * `npm run bench:token`: the token endpoint (client_credentials with valid credentials) beside a
 * bearer-authenticated GET, on a fresh SQLite database, against the service started as
 * production runs it (its own process, logs at info, metrics on). Paired runs alternate A B A B
 * so that the machine's noise hits both alike; medians are reported.
 *
 *   npm run bench:token -- [--duration 5] [--rounds 3] [--connections 10]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { createClient } from '../src/auth/clients.ts';
import { createDatabase } from '../src/db/client.ts';
import { migrate } from '../src/db/migrate.ts';
import { parseDatabaseUrl } from '../src/db/url.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
  },
});
const duration = Number(values.duration);
const rounds = Number(values.rounds);
const connections = Number(values.connections);

interface Sample {
  requests: number;
  p50: number;
  p99: number;
  errors: number;
  statuses: Record<string, number>;
}

async function drive(opts: autocannon.Options): Promise<Sample> {
  const result = await autocannon({ connections, duration, ...opts });
  const statuses: Record<string, number> = {};
  for (const [code, n] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = (n as { count: number }).count;
  return {
    requests: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    statuses,
  };
}

const PORT = 4791;

async function waitUntilListening(baseUrl: string, server: ReturnType<typeof spawn>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (server.exitCode !== null) throw new Error(`service exited with ${server.exitCode}`);
    if (
      await fetch(`${baseUrl}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('service did not start within 20 s');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'mdg-bench-token-'));
  const target = parseDatabaseUrl(`file:${join(dir, 'bench.db')}`);
  await migrate(target);
  const db = await createDatabase(target);
  const client = await createClient(db.prisma, 'bench', ['read', 'write']);
  await db.close();

  // The log goes to a file, as to a collector: a pipe drained by this process, which is busy
  // driving the load, would hold the server back whenever it fills.
  const logFile = join(dir, 'service.log');
  const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: target.url,
      PORT: String(PORT),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SEED_DEMO_DATA: 'false',
    },
    stdio: ['ignore', openSync(logFile, 'w'), 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${PORT}`;
  await waitUntilListening(baseUrl, server);

  const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
  const tokenResponse = await fetch(`${baseUrl}/oauth/token.php`, {
    method: 'POST',
    headers: { Authorization: basic, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  const { access_token } = (await tokenResponse.json()) as { access_token: string };

  const workloads: Record<string, autocannon.Options> = {
    'POST /oauth/token.php (client_credentials)': {
      url: `${baseUrl}/oauth/token.php`,
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    },
    // The database holds no master data: the bearer check and an empty first page, the floor
    // against which the token endpoint's cost is read.
    'GET /customers (bearer)': { url: `${baseUrl}/customers`, headers: { authorization: `Bearer ${access_token}` } },
  };

  const samples: Record<string, Sample[]> = Object.fromEntries(Object.keys(workloads).map((k) => [k, []]));
  for (const options of Object.values(workloads)) await drive({ ...options, duration: 2 }); // warm-up
  for (let round = 1; round <= rounds; round++) {
    for (const [name, options] of Object.entries(workloads)) {
      const sample = await drive(options);
      samples[name]!.push(sample);
      console.error(
        `round ${round}: ${name}: ${Math.round(sample.requests)} req/s, statuses ${JSON.stringify(sample.statuses)}`,
      );
    }
  }
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });

  console.log(`\n${connections} connections, ${rounds} rounds of ${duration} s each, alternating; medians:\n`);
  console.log('| workload | req/s | p50 ms | p99 ms | errors |');
  console.log('|---|---|---|---|---|');
  for (const [name, list] of Object.entries(samples)) {
    console.log(
      `| ${name} | ${Math.round(median(list.map((s) => s.requests)))} | ${median(list.map((s) => s.p50))} | ${median(list.map((s) => s.p99))} | ${list.reduce((n, s) => n + s.errors, 0)} |`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
