/**
 * GraphQL Code Generator (`npm run codegen`): writes the committed SDL (`schema.graphql`, which
 * a test keeps current) and typed documents for the operations the tests send
 * (`test/graphql/documents/*.graphql` -> `test/graphql/generated/`), with their persisted
 * documents (`persisted-documents.json`: each document by its id, `sha256:<hex>`), which a
 * client registers as its trusted documents (`npm run client -- documents add`).
 * The schema comes from the code that serves it, printed the way /graphql/schema.graphql shows it.
 */
import type { CodegenConfig } from '@graphql-codegen/cli';
import { printSdl } from './src/graphql/schema.ts';

const config: CodegenConfig = {
  schema: printSdl(),
  documents: ['test/graphql/documents/*.graphql'],
  ignoreNoDocuments: false,
  generates: {
    // Exactly what GET /graphql/schema.graphql serves, so that one comparison keeps both honest.
    'schema.graphql': { plugins: [{ add: { content: printSdl() } }] },
    'test/graphql/generated/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false, persistedDocuments: true },
      config: { scalars: { DateTime: 'string', Decimal: 'number' }, useTypeImports: true },
    },
  },
};

export default config;
