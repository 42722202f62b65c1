import type { RequestContext } from './request-context.js';
import { statusLine } from './status-text.js';
import { endWithBody } from './write-body.js';

/**
 * Answers written on the uWS response by a handler that answers itself (HANDLED): a whole body with tryEnd/onWritable
 * backpressure, or a status line and headers followed by chunks that wait for the socket to drain. Every write is
 * corked and skipped once the client has left.
 */

/** Writes a whole answer. False when nothing was written (the client left, or it was already answered). */
export function writeRawWhole(ctx: RequestContext, status: number, headers: Readonly<Record<string, string>>, body: Buffer): boolean {
  if (ctx.aborted || ctx.responded) return false;
  ctx.res.cork(() => {
    ctx.res.writeStatus(statusLine(status));
    for (const k in headers) ctx.res.writeHeader(k, headers[k] as string);
    // A relayed 204 or 304 goes out without a Content-Length (RFC 9110, 8.6), as server.ts's replies do.
    if (status === 204 || status === 304) ctx.res.endWithoutBody();
    else endWithBody(ctx.res, body, () => ctx.aborted);
  });
  return true;
}

/** The status line and headers of an answer whose body follows in chunks (a stream). */
export function writeRawHead(ctx: RequestContext, status: number, headers: Readonly<Record<string, string>>): void {
  if (ctx.aborted) return;
  ctx.res.cork(() => {
    ctx.res.writeStatus(statusLine(status));
    for (const k in headers) ctx.res.writeHeader(k, headers[k] as string);
  });
}

/** Ends an answer whose head (and maybe some chunks) went out. */
export function endRaw(ctx: RequestContext): void {
  if (!ctx.aborted) ctx.res.cork(() => ctx.res.end());
}

/** Writes the chunks of a streamed answer, one at a time, with backpressure. */
export class RawChunkWriter {
  readonly #ctx: RequestContext;
  #waitWritable: (() => void) | null = null;

  constructor(ctx: RequestContext) {
    this.#ctx = ctx;
  }

  /** Releases a write waiting for the socket to drain (the client left: it never will). */
  release(): void {
    this.#waitWritable?.();
  }

  /** Resolves once the socket can take more: the caller stops reading its source meanwhile (never buffer a whole answer). */
  async write(text: string): Promise<void> {
    const ctx = this.#ctx;
    if (!text || ctx.aborted) return;
    let ok = true;
    ctx.res.cork(() => {
      ok = ctx.res.write(text);
    });
    if (!ok && !ctx.aborted) {
      await new Promise<void>((resolve) => {
        this.#waitWritable = resolve;
        ctx.res.onWritable(() => {
          this.#waitWritable = null;
          resolve();
          return true;
        });
      });
    }
  }
}
