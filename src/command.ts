/**
 * How the command-line tools (`npm run client`, `npm run roles`) end: with the exit code their
 * `main` returns; on an error the operator caused (a bad argument, an unknown role, a refused
 * file: `expected`, and parseArgs's usage errors) its message and exit code 2; on anything else
 * its first line only (never a stack) and exit code 1.
 */
export function runCommand(
  name: string,
  main: () => Promise<number>,
  expected: readonly (abstract new (...args: never[]) => Error)[],
): void {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      // parseArgs reports bad options as errors with an ERR_PARSE_ARGS_* code: usage errors too.
      const usage = String((error as NodeJS.ErrnoException).code ?? '').startsWith('ERR_PARSE_ARGS');
      const known = usage || expected.some((kind) => error instanceof kind);
      const message = String((error as Error).message);
      console.error(`${name}: ${known ? message : `failed: ${message.split('\n')[0]}`}`);
      process.exit(known ? 2 : 1);
    },
  );
}
