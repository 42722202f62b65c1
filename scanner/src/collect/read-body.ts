import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';

export interface BodyRead {
  /** Decoded (decompressed) bytes, at most the cap. */
  readonly bytes: Buffer;
  /** Bytes taken off the wire (compressed), up to where reading stopped. */
  readonly wireBytes: number;
  readonly truncated: boolean;
  /** The content coding could not be undone (corrupt stream or an unknown coding): `bytes` holds what came out. */
  readonly decodeFailed: boolean;
  /** The body stream broke off (time-out, reset): `bytes` holds what arrived before. */
  readonly interruptedBy?: unknown;
}

/**
 * Reads a response body, undoing its Content-Encoding as it streams and stopping at `maxBytes` decoded bytes: a
 * decompression bomb costs at most the cap, and a cut body is marked, not failed. Never throws: a decoder error is
 * `decodeFailed`, a broken stream (abort, reset) is `interruptedBy`, and both keep what was read.
 */
export async function readBody(raw: Readable, contentEncoding: string, maxBytes: number): Promise<BodyRead> {
  let wireBytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      wireBytes += chunk.length;
      callback(null, chunk);
    },
  });
  const codings = contentEncoding
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && c !== 'identity');
  const decoders: Transform[] = [];
  let unknownCoding = false;
  // Codings are listed in the order applied, so they are undone in reverse.
  for (const coding of codings.reverse()) {
    const decoder = decoderFor(coding);
    if (decoder === null) unknownCoding = true;
    else decoders.push(decoder);
  }
  if (unknownCoding) decoders.length = 0; // keep the raw bytes rather than half-decode them

  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const room = maxBytes - size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        size += room;
        truncated = true;
        callback(new Error('body cap reached')); // tears the pipeline down: the rest of the body is never read
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
      callback();
    },
  });
  let decodeFailed = unknownCoding;
  let interruptedBy: unknown;
  try {
    await pipeline([raw, counter, ...decoders, sink]);
  } catch (error) {
    // Stopping at the cap tears the pipeline down on purpose; only other errors mean something.
    if (!truncated) {
      if (decoders.some((d) => d.errored === error) || isZlibError(error)) decodeFailed = true;
      else interruptedBy = error;
    }
  }
  const bytes = Buffer.concat(chunks, size);
  return interruptedBy === undefined
    ? { bytes, wireBytes, truncated, decodeFailed }
    : { bytes, wireBytes, truncated, decodeFailed, interruptedBy };
}

function decoderFor(coding: string): Transform | null {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'br':
      return createBrotliDecompress();
    case 'deflate':
      return new DeflateEither();
    default:
      return null;
  }
}

/**
 * `deflate` means zlib-wrapped data (RFC 9110), but some servers send raw deflate and browsers accept both; the
 * first two bytes tell them apart (a zlib header is CM=8 and a multiple of 31).
 */
class DeflateEither extends Transform {
  #inner: Transform | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.#inner === undefined) {
      const zlibWrapped = chunk.length >= 2 && ((chunk[0] ?? 0) & 0x0f) === 8 && (((chunk[0] ?? 0) << 8) | (chunk[1] ?? 0)) % 31 === 0;
      const inner = zlibWrapped ? createInflate() : createInflateRaw();
      inner.on('data', (data: Buffer) => this.push(data));
      inner.on('error', (error) => this.destroy(error));
      this.#inner = inner;
    }
    this.#inner.write(chunk, () => callback());
  }

  override _flush(callback: (error?: Error | null) => void): void {
    if (this.#inner === undefined) return callback();
    this.#inner.once('end', () => callback());
    this.#inner.end();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#inner?.destroy();
    callback(error);
  }
}

// zlib reports corrupt input with Z_* codes (gzip, deflate) or ERR__ERROR_* / ERR_BROTLI_* codes (brotli).
function isZlibError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__') || code.startsWith('ERR_BROTLI'));
}
