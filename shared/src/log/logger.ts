import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Paths that must never reach a log line. Bodies are never logged at all (DESIGN.md); these guard the headers and
 * fields that carry credentials.
 */
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-forwarded-authorization"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-forwarded-authorization"]',
  'authorization',
  'password',
  'token',
  'secret',
  'signingSecret',
  'apiKey',
  '*.password',
  '*.token',
  '*.secret',
  '*.signingSecret',
];

export function createLogger(name: string, options: { level?: string; destination?: pino.DestinationStream } = {}): Logger {
  const opts: LoggerOptions = {
    name,
    level: options.level ?? process.env.LOG_LEVEL ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return options.destination ? pino(opts, options.destination) : pino(opts);
}
