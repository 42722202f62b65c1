import { pino, type Logger } from 'pino';
import { isoTime } from '../time/iso-time.js';

/** The fixed, safe fields of a request line: never a header value, a body or a token. */
export interface RequestLogFields {
  method: string;
  path: string;
  status: number;
  ms: number;
  traceId: string;
  tenant?: string | undefined;
  agent?: string | undefined;
}

/** The one-line-per-request log of an HTTP server. */
export interface RequestLog {
  readonly enabled: boolean;
  write(fields: RequestLogFields): void;
  /** Hands lines still held by this log to its destination now (a template log holds a turn's lines). */
  flush(): void;
}

/** Request lines through a logger's own `info` (any pino logger: its formatters, hooks and transport apply). */
export function pinoRequestLog(logger: Logger): RequestLog {
  return {
    enabled: logger.isLevelEnabled('info'),
    write(f) {
      logger.info({ method: f.method, path: f.path, status: f.status, ms: f.ms, traceId: f.traceId, tenant: f.tenant, agent: f.agent }, 'request');
    },
    flush() {},
  };
}

/** What of pino's internals a template line needs: the destination and the serialised bindings (`pino.symbols`). */
interface PinoInternals {
  [pino.symbols.streamSym]: pino.DestinationStream;
  [pino.symbols.chindingsSym]: string;
}

/**
 * Request lines written by a template, byte for byte the line `pinoRequestLog` has pino write for a logger made by
 * createLoggers (level 30, ISO time, the logger's bindings, no formatters, hooks or redaction), onto the same
 * destination. One difference: a lone surrogate is written as its JSON escape, where pino writes a short string's
 * raw (and its UTF-8 destination then writes U+FFFD). pino's generic path (a walk of the fields, a serialiser per
 * value) cost ~2 µs a line against ~0.3 µs here, and a line is written for every request; `request-log.test.ts`
 * holds the two equal.
 *
 * The lines of one event-loop turn reach the destination as one write, at the end of the turn (`setImmediate`), or
 * on `flush()`, or when the process exits. The asynchronous destination (sonic-boom) measures its whole pending text
 * on every write, a rope of up to 16 KiB it flattens to count its bytes: under load that was ~4–8 µs a line, once a
 * turn it is shared by the turn's lines. So a request line can follow a service log line written later in its turn.
 */
export function templateRequestLog(logger: Logger): RequestLog {
  const internals = logger as unknown as PinoInternals;
  const stream = internals[pino.symbols.streamSym];
  const bindings = internals[pino.symbols.chindingsSym];
  let pending = '';
  const flush = (): void => {
    if (pending === '') return;
    const lines = pending;
    pending = '';
    heldLogs.delete(flush);
    stream.write(lines);
  };
  return {
    enabled: logger.isLevelEnabled('info'),
    flush,
    write(f) {
      let line = `{"level":30,"time":"${isoTime(Date.now())}"${bindings},"method":${JSON.stringify(f.method)},"path":${JSON.stringify(f.path)},"status":${f.status},"ms":${f.ms},"traceId":${JSON.stringify(f.traceId)}`;
      if (f.tenant !== undefined) line += `,"tenant":${JSON.stringify(f.tenant)}`;
      if (f.agent !== undefined) line += `,"agent":${JSON.stringify(f.agent)}`;
      if (pending === '') {
        holdUntilTurnEnds(flush);
      }
      pending += `${line},"msg":"request"}\n`;
    },
  };
}

/** Template logs holding lines: written out on exit, before pino's own exit hook writes its destination's buffer. */
const heldLogs = new Set<() => void>();
let exitHook = false;

function holdUntilTurnEnds(flush: () => void): void {
  heldLogs.add(flush);
  setImmediate(flush);
  if (!exitHook) {
    exitHook = true;
    process.prependListener('exit', () => {
      for (const f of heldLogs) f();
    });
  }
}
