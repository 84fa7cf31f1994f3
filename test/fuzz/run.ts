/**
 * `npm run fuzz -- --runs N [--seed S] [--surface rest|graphql] [--provider sqlite|postgresql]`:
 * the fuzz suites, longer than CI runs them. N cases per surface and provider (default 20,000),
 * then N / 250 random roles, each with its reads sent before and after the values it cannot see
 * change (./roles.ts); a random seed unless one is given, printed first, so that a failure can be
 * replayed with `--seed`. PostgreSQL runs when TEST_POSTGRES_URL is set, as for `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20000' },
    seed: { type: 'string' },
    surface: { type: 'string' },
    provider: { type: 'string' },
  },
});
if (!/^[1-9]\d*$/.test(values.runs)) throw new Error(`--runs must be a whole number >= 1 (got ${values.runs})`);
if (values.surface && !['rest', 'graphql'].includes(values.surface))
  throw new Error('--surface must be rest or graphql');
if (values.provider && !['sqlite', 'postgresql'].includes(values.provider))
  throw new Error('--provider must be sqlite or postgresql');
const seed = values.seed ?? String(Math.floor(Math.random() * 2 ** 31));
console.log(`fuzzing: ${values.runs} cases per surface and provider, seed ${seed}`);

const files = (values.surface ? [values.surface] : ['rest', 'graphql']).map((s) => `test/fuzz/${s}.fuzz.test.ts`);
const filter = values.provider ? ['-t', `on ${values.provider}`] : [];
const run = spawnSync('npx', ['vitest', 'run', ...files, ...filter], {
  stdio: 'inherit',
  env: { ...process.env, FUZZ_RUNS: values.runs, FUZZ_SEED: seed },
});
process.exit(run.status ?? 1);
