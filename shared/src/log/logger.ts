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

/**
 * `buffered: true` writes through an asynchronous destination that batches lines (4 KiB), so a per-request log line
 * costs no syscall of its own on a hot path; call `logger.flush()` before exit.
 */
export function createLogger(name: string, options: { level?: string; destination?: pino.DestinationStream; buffered?: boolean } = {}): Logger {
  const opts: LoggerOptions = {
    name,
    level: options.level ?? process.env.LOG_LEVEL ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (options.destination) return pino(opts, options.destination);
  if (options.buffered) return pino(opts, pino.destination({ dest: 1, sync: false, minLength: 4096 }));
  return pino(opts);
}
