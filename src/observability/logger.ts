/**
 * Structured logs: one JSON object per line, or colourised lines when stdout is a terminal.
 * Request logs never carry headers, bodies or query strings, so tokens and secrets stay out.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from '../config.ts';

export type { Logger };

export function createLogger(level: Config['logLevel'], destination?: DestinationStream): Logger {
  const stream = destination ?? (process.stdout.isTTY ? pretty({ sync: true, colorize: true }) : pino.destination({ sync: true }));
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // A last line of defence: these never reach a log even if a caller passes them.
      redact: {
        paths: ['authorization', '*.authorization', 'headers.authorization', 'client_secret', 'access_token', 'refresh_token', 'password'],
        censor: '[redacted]',
      },
    },
    stream,
  );
}
