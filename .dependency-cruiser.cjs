/**
 * Import rules of src/ (docs/development/architecture.md, "Layers"), checked by `npm run lint` and by
 * test/architecture.test.ts. The arrows run one way:
 *   main -> app -> surfaces (rest, graphql, auth) -> http -> data -> query -> db -> resources
 * with config, clock, timeout and observability usable from anywhere below app.
 */
const SURFACES = '^src/(rest|graphql|auth)/';
const ABOVE_DATA = '^src/(rest|graphql|auth|http|app\\.ts|main\\.ts|seed|transfer)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'A cycle means two modules are one subject or share a type that belongs in a third module.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'rest-stands-apart',
      comment: 'The REST layer never imports GraphQL: both read the resource descriptions (src/resources) instead.',
      severity: 'error',
      from: { path: '^src/rest/' },
      to: { path: '^src/graphql/' },
    },
    {
      name: 'graphql-stands-apart',
      comment: 'The GraphQL layer never imports REST: both read the resource descriptions (src/resources) instead.',
      severity: 'error',
      from: { path: '^src/graphql/' },
      to: { path: '^src/rest/' },
    },
    {
      name: 'data-below-surfaces',
      comment: 'src/data serves both surfaces and the seed: it imports no surface, no HTTP code, nothing above it.',
      severity: 'error',
      from: { path: '^src/data/' },
      to: { path: ABOVE_DATA },
    },
    {
      name: 'query-below-data',
      comment:
        'src/query is the filter language the data layer, roles and webhooks share: it reads the resource descriptions and builds SQL with src/db, and imports nothing above.',
      severity: 'error',
      from: { path: '^src/query/' },
      to: { path: [ABOVE_DATA, '^src/data/'] },
    },
    {
      name: 'permissions-below-data',
      comment:
        'src/permissions (roles: reading, checking, storing them) is consulted by the data layer and the surfaces: it reads the descriptions, the filter language and src/db, and never imports the data layer back.',
      severity: 'error',
      from: { path: '^src/permissions/' },
      to: { path: [ABOVE_DATA, '^src/data/'], pathNot: '^src/permissions/' },
    },
    {
      name: 'db-below-data',
      comment:
        'src/db knows databases, not resources\u2019 rules or requests: it imports neither src/data nor anything above.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: [ABOVE_DATA, '^src/data/'] },
    },
    {
      name: 'resources-are-descriptions',
      comment: 'src/resources is plain data and naming rules: it imports nothing else of src/.',
      severity: 'error',
      from: { path: '^src/resources/' },
      to: { path: '^src/', pathNot: '^src/resources/' },
    },
    {
      name: 'http-is-not-a-surface',
      comment: 'src/http is middleware both surfaces use: it imports no surface.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: SURFACES },
    },
    {
      name: 'only-main-starts-the-app',
      comment: 'app.ts builds the fetch handler and main.ts listens; nothing else in src/ imports them.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/main\\.ts$' },
      to: { path: '^src/(app|main)\\.ts$' },
    },
    {
      name: 'src-stands-alone',
      comment: 'The service never imports its tests, benchmarks or build scripts.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|prisma)/' },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules', '^src/generated/'] },
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
