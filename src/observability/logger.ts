/**
 * Structured logs: one JSON object per line, or colourised lines when stdout is a terminal.
 * Request logs never carry headers, bodies or query strings, so tokens and secrets stay out.
 */
import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from '../config.ts';
import { mappedStack } from './stack-traces.ts';

export type { Logger };

/** Log lines are written in blocks of this size (and at least every FLUSH_INTERVAL_MS): one write per request line cost about a twentieth of a small request. */
const BUFFER_BYTES = 4096;
export const FLUSH_INTERVAL_MS = 1000;

export function createLogger(level: Config['logLevel'], destination?: DestinationStream): Logger {
  let stream = destination;
  // Loaded only for a terminal: a service writing JSON lines never needs it.
  if (!stream && process.stdout.isTTY)
    stream = (createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty'))({
      sync: true,
      colorize: true,
    });
  if (!stream) {
    const buffered = pino.destination({ sync: false, minLength: BUFFER_BYTES });
    // Whatever way the process ends, the last lines are written out.
    process.once('exit', () => buffered.flushSync());
    stream = buffered;
  }
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: serializeError },
      // A last line of defence: these never reach a log even if a caller passes them.
      redact: {
        paths: [
          'authorization',
          '*.authorization',
          'headers.authorization',
          'client_secret',
          'access_token',
          'refresh_token',
          'password',
        ],
        censor: '[redacted]',
      },
    },
    stream,
  );
}

/** pino's error serializer, with the stack in the sources' terms (./stack-traces.ts). */
function serializeError(error: Error) {
  const serialized = pino.stdSerializers.err(error);
  if (typeof serialized?.stack === 'string') serialized.stack = mappedStack(serialized.stack);
  return serialized;
}
