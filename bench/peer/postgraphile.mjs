/**
 * The benchmark's peer: PostGraphile 5 (amber preset + connection filter with relations +
 * @graphile/pg-aggregates) over a database of ours, run as production would run it. Started by
 * bench/run.ts as a child process:
 *
 *   NODE_ENV=production node --require ./bench/polyfill.cjs bench/peer/postgraphile.mjs \
 *     --database-url postgresql://postgres@127.0.0.1:5432/mdg_bench --port 5100 [--pool-size 10]
 *
 * Routes: POST /graphql (no GraphiQL, no watch mode, no explain), and GET /metrics with one
 * Prometheus counter, `db_statements_total`, counted the way our server counts it (SQL statements
 * sent; transaction control not counted), so that the runner reads both servers the same way.
 *
 * Plain JavaScript on purpose: the root tsconfig type-checks bench/, and postgraphile lives in
 * bench/node_modules, which a root-only install does not have.
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import pg from 'pg';

const { values } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    port: { type: 'string', default: '5100' },
    host: { type: 'string', default: '127.0.0.1' },
    'pool-size': { type: 'string', default: '10' },
  },
});
const databaseUrl = values['database-url'] ?? process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error('postgraphile peer: --database-url (or DATABASE_URL) is required');
  process.exit(2);
}
const port = Number(values.port);
const poolSize = Number(values['pool-size']);

// PostGraphile and grafast read NODE_ENV when they are loaded; the runner sets it, this is the
// fallback for a manual start. Hence the dynamic imports below.
process.env.NODE_ENV ??= 'production';
const [
  { postgraphile },
  { PostGraphileAmberPreset },
  { makePgService },
  { grafserv },
  { PostGraphileConnectionFilterPreset },
  { PgAggregatesPreset },
  { jsonPgSmartTags },
] = await Promise.all([
  import('postgraphile'),
  import('postgraphile/presets/amber'),
  import('postgraphile/adaptors/pg'),
  import('postgraphile/grafserv/node'),
  import('postgraphile-plugin-connection-filter'),
  import('@graphile/pg-aggregates'),
  import('postgraphile/utils'),
]);

/**
 * Statement counting. @dataplan/pg sends everything through `client.query` of clients it takes
 * from the pool we give it, so each new client's `query` is wrapped once. Not counted, as in our
 * server: transaction control (PostGraphile opens a transaction only when pgSettings are set,
 * which they are not here), and the adaptor's per-connection setup (`set jit_optimize_above_cost`)
 * and prepared-statement housekeeping (`deallocate`).
 */
const NOT_COUNTED = /^\s*(begin|commit|rollback|savepoint|release|set jit_optimize_above_cost|deallocate)\b/i;
let statements = 0;
let uncounted = 0;
const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
pool.on('connect', (client) => {
  const query = client.query;
  client.query = function countedQuery(config, ...rest) {
    const text = typeof config === 'string' ? config : (config?.text ?? '');
    if (NOT_COUNTED.test(text)) uncounted += 1;
    else statements += 1;
    return query.call(this, config, ...rest);
  };
});
pool.on('error', (error) => console.error(`postgraphile peer: idle client error: ${error.message}`));

/**
 * W6 filters products by their names and consumer price. The amber preset offers filters only on
 * indexed columns (PgIndexBehaviorsPlugin), and these five have no index, in our database as in
 * production; smart tags open them to the filter, as a PostGraphile user would (its documented
 * override; the rest of amber's schema stays as it is).
 */
const W6_FILTERABLE = jsonPgSmartTags({
  version: 1,
  config: {
    class: {
      'public.products': {
        attribute: Object.fromEntries(
          ['name_nl', 'name_fr', 'name_en', 'name_de', 'consumer_price'].map((a) => [
            a,
            { tags: { behavior: '+filterBy' } },
          ]),
        ),
      },
    },
  },
});

/** @type {GraphileConfig.Preset} */
const preset = {
  extends: [PostGraphileAmberPreset, PostGraphileConnectionFilterPreset, PgAggregatesPreset],
  plugins: [W6_FILTERABLE],
  // W6 filters through relationships (`productStructuresByProductId: { some: ... }`).
  schema: { connectionFilterRelations: true },
  pgServices: [makePgService({ pool, schemas: ['public'] })],
  grafserv: { graphqlPath: '/graphql', graphiql: false, watch: false },
  grafast: { explain: false },
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
// createHandler (rather than serv.addTo) so that /metrics can be answered first; no websockets needed.
const graphql = serv.createHandler();

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/metrics') {
    const body =
      '# HELP db_statements_total SQL statements sent to the database (transaction control not counted).\n' +
      '# TYPE db_statements_total counter\n' +
      `db_statements_total ${statements}\n` +
      '# HELP bench_db_uncounted_total Transaction control and connection housekeeping statements.\n' +
      '# TYPE bench_db_uncounted_total counter\n' +
      `bench_db_uncounted_total ${uncounted}\n`;
    res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' });
    res.end(body);
    return;
  }
  graphql(req, res);
});
server.keepAliveTimeout = 65_000;

// Build the schema (introspection of the database) before announcing readiness.
await pgl.getSchemaResult();
server.listen(port, values.host, () => {
  console.log(
    `postgraphile peer listening on http://${values.host}:${port}/graphql (pid ${process.pid}, pool ${poolSize})`,
  );
});

const shutdown = () => {
  server.close();
  server.closeAllConnections();
  Promise.resolve(pgl.release())
    .then(() => pool.end())
    .finally(() => process.exit(0));
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
