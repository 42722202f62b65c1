import type { HttpResponse } from 'uWebSockets.js';
import { GatewayError } from '../errors.js';
import type { BodyBudget } from './body-budget.js';
import type { RequestContext } from './request-context.js';

/** Rejection reason when the client went away while its body was being read (nothing to answer). */
export const CLIENT_ABORTED = new Error('client aborted');

/**
 * Reads a request body up to `maxBytes`. A Content-Length over the cap is refused before any byte is read; a body
 * that grows past it is refused as soon as it does. Every byte is counted against `budget` (the in-flight cap): a
 * declared length is reserved whole before the first byte, a chunked body chunk by chunk. uWS hands out chunks that
 * are only valid inside the callback, so each one is copied, straight into one buffer of the declared length when
 * there is one (a shipped ledger batch is megabytes). The body is also left in `ctx.rawBody` (before the promise
 * resolves), so a caller can wait for it without a continuation of its own.
 */
export function readBody(res: HttpResponse, maxBytes: number, ctx: RequestContext, budget: BodyBudget): Promise<Buffer> {
  const contentLength = ctx.contentLength;
  if (contentLength > maxBytes) return Promise.reject(new GatewayError('payload_too_large'));
  try {
    if (contentLength > 0) budget.reserve(ctx, contentLength);
  } catch (err) {
    return Promise.reject(err);
  }
  const metered = contentLength < 0;
  return new Promise((resolve, reject) => {
    // A client that leaves mid-body must not leave this promise pending forever.
    ctx.onAbort = () => reject(CLIENT_ABORTED);
    let chunks: Buffer[] | null = null;
    let first: Buffer | null = null;
    // A declared length that takes several chunks is read straight into one buffer of that length (reserved above).
    let whole: Buffer | null = null;
    let size = 0;
    let failed = false;
    res.onData((chunk, isLast) => {
      if (failed) return;
      const at = size;
      size += chunk.byteLength;
      if (size > maxBytes || (whole !== null && size > whole.length)) {
        failed = true;
        reject(new GatewayError('payload_too_large'));
        return;
      }
      if (metered && chunk.byteLength > 0) {
        try {
          budget.reserve(ctx, chunk.byteLength);
        } catch (err) {
          failed = true;
          reject(err);
          return;
        }
      }
      if (whole === null && !isLast && contentLength > 0 && at === 0) whole = Buffer.allocUnsafe(contentLength);
      if (whole !== null) {
        whole.set(new Uint8Array(chunk), at);
        if (!isLast) return;
        ctx.rawBody = size === whole.length ? whole : whole.subarray(0, size);
        return resolve(ctx.rawBody);
      }
      const copy = Buffer.from(new Uint8Array(chunk));
      if (isLast) {
        if (!first) {
          ctx.rawBody = copy;
        } else {
          (chunks ??= [first]).push(copy);
          ctx.rawBody = Buffer.concat(chunks, size);
        }
        return resolve(ctx.rawBody);
      }
      if (!first) first = copy;
      else (chunks ??= [first]).push(copy);
    });
  });
}
