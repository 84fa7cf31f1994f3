// Preloaded into a process under test (node --import): writes the URL of every module it resolves
// to the file MODULE_AUDIT_FILE names, one per line. Plain JavaScript, so that auditing a
// process loads no TypeScript transform into it. Node's resolve hooks see `import` and
// `import()`, including those of CommonJS packages; not the require() calls inside them.
import { register } from 'node:module';

const hooks = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(process.env.MODULE_AUDIT_FILE, resolved.url + '\\n');
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
