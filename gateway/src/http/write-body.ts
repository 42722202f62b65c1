import type { HttpResponse } from 'uWebSockets.js';

/** Bodies up to this size go out with one end(); larger ones are written in steps, as the socket drains. */
const SMALL = 64 * 1024;

/**
 * Ends a response whose status and headers are already written (inside the caller's cork). A large body is sent with
 * uWS's tryEnd/onWritable backpressure (the documented pattern: resume from getWriteOffset), so a slow client never
 * makes uWS copy the whole body into its own buffer at once. `isAborted` is checked before each resumed write.
 */
export function endWithBody(res: HttpResponse, body: string | Buffer, isAborted: () => boolean): void {
  if (typeof body === 'string' ? body.length <= SMALL / 4 : body.length <= SMALL) {
    res.end(body);
    return;
  }
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  const total = buf.length;
  const start = res.getWriteOffset();
  const [ok, done] = res.tryEnd(buf, total);
  if (ok || done) return;
  res.onWritable((offset) => {
    if (isAborted()) return true;
    const [ok2, done2] = res.tryEnd(buf.subarray(offset - start), total);
    return ok2 || done2;
  });
}
