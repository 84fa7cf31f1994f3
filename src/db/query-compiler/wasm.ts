/**
 * Prisma's query compiler (WebAssembly) as its generated clients ask for it, without holding its
 * text: `npm run build` puts ./sqlite.ts and ./postgresql.ts in place of @prisma/client's
 * `runtime/query_compiler_bg.<provider>.wasm-base64.mjs` (esbuild's --alias).
 *
 * Why: Prisma's module is the compiler as 2.4 MB of base64, kept twice for the life of the
 * process, as the module's source and as the string it exports: 4.8 MB of the 36 MB a server
 * holds at rest (heap snapshot, demo data). The client compiles it once per process (it keeps the
 * compiled module per provider) after `Buffer.from(wasm, 'base64')`; the value here gives that
 * call the same base64, read from Prisma's file when it asks (Buffer.from takes an object's
 * Symbol.toPrimitive), and nothing keeps it after.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** What stands for the exported base64 string of the provider's compiler. */
export function compilerBase64(provider: 'sqlite' | 'postgresql'): { [Symbol.toPrimitive](): string } {
  return {
    [Symbol.toPrimitive]() {
      const file = fileURLToPath(
        import.meta.resolve(`@prisma/client/runtime/query_compiler_bg.${provider}.wasm-base64.mjs`),
      );
      // The module is `const wasm = "<base64>";` and its export.
      const text = readFileSync(file, 'latin1');
      return text.slice(text.indexOf('"') + 1, text.lastIndexOf('"'));
    },
  };
}
