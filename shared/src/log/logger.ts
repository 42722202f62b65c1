import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Paths that must never reach a log line. Bodies are never logged at all (docs/architecture.md); these guard the headers and
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
 * costs no syscall of its own on a hot path, and flushes what it holds every second, so a quiet service's lines still
 * show within one; call `logger.flush()` before exit.
 */
export interface LoggerOptionsIn {
  level?: string;
  destination?: pino.DestinationStream;
  buffered?: boolean;
}

function baseOptions(name: string, options: LoggerOptionsIn): LoggerOptions {
  return { name, level: options.level ?? process.env.LOG_LEVEL ?? 'info', base: { service: name }, timestamp: pino.stdTimeFunctions.isoTime };
}

/** How long a buffered line may wait for the batch to fill before it is written anyway. */
const FLUSH_EVERY_MS = 1000;

function destinationOf(options: LoggerOptionsIn): pino.DestinationStream | undefined {
  if (options.destination) return options.destination;
  if (options.buffered) return pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: FLUSH_EVERY_MS });
  return undefined;
}

export function createLogger(name: string, options: LoggerOptionsIn = {}): Logger {
  const opts: LoggerOptions = { ...baseOptions(name, options), redact: { paths: REDACT_PATHS, censor: '[REDACTED]' } };
  const dest = destinationOf(options);
  return dest ? pino(opts, dest) : pino(opts);
}

/**
 * The service logger plus a request logger on the same destination (one stream: lines stay whole and in order). The
 * request logger has no redaction pass, which costs more than the rest of a line: it may only ever be given the fixed,
 * safe fields of a request line (method, path, status, duration, ids), never a header value or a body.
 */
export function createLoggers(name: string, options: LoggerOptionsIn = {}): { logger: Logger; requestLog: Logger } {
  const dest = destinationOf(options) ?? pino.destination({ dest: 1, sync: true });
  return {
    logger: pino({ ...baseOptions(name, options), redact: { paths: REDACT_PATHS, censor: '[REDACTED]' } }, dest),
    requestLog: pino(baseOptions(name, options), dest),
  };
}
