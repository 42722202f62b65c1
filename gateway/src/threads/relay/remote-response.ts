import type { AnswerOp, ToRequestThread } from './relay-protocol.js';

/** Bytes written and not yet taken by the request thread's socket past which `write` asks the writer to wait. */
const HIGH_WATER = 256 * 1024;

type Body = string | Uint8Array | ArrayBuffer;

function bodyOf(chunk: Body | undefined): string | Uint8Array {
  if (chunk === undefined) return '';
  return chunk instanceof ArrayBuffer ? new Uint8Array(chunk) : chunk;
}

/** A status line or header as the handlers pass it (text, or bytes made once: http/header-bytes.ts). */
function textOf(value: string | Uint8Array): string {
  return typeof value === 'string' ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('latin1');
}

function sizeOf(body: string | Uint8Array): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
}

/**
 * The answer to a relayed request, with the methods of uWS's HttpResponse the server and the streaming handlers use
 * (cork, writeStatus, writeHeader, write, end, tryEnd, endWithoutBody, onData, onAborted, onWritable, getWriteOffset,
 * getRemoteAddressAsText). Writes are sent to the request thread in order, a corked group as one message; the request
 * thread writes them on its socket with the socket's own backpressure, and `write` returns false while more than
 * HIGH_WATER bytes are on their way, as uWS's does while its socket is full.
 */
export class RemoteResponse {
  #ops: AnswerOp[] = [];
  #corked = false;
  #ended = false;
  #aborted = false;
  #offset = 0;
  #unacked = 0;
  #onAborted: (() => void) | null = null;
  #onData: ((chunk: ArrayBuffer, isLast: boolean) => void) | null = null;
  #onWritable: ((offset: number) => boolean) | null = null;
  /** Body chunks that arrived before a reader was attached (a shared admission is waited for first). */
  #early: [ArrayBuffer, boolean][] | null = null;

  constructor(
    readonly id: number,
    private readonly send: (msg: ToRequestThread) => void,
    private readonly remote: string,
    /** Called once the answer ended or the client left: the relay forgets the request. */
    private readonly finished: (id: number) => void,
  ) {}

  // --- what the request thread tells ---

  /** A body chunk arrived. */
  data(chunk: ArrayBuffer, last: boolean): void {
    if (this.#onData === null) (this.#early ??= []).push([chunk, last]);
    else this.#onData(chunk, last);
  }

  /** The client left: uWS's abort handler runs, and nothing more is sent. */
  abort(): void {
    if (this.#aborted || this.#ended) return;
    this.#aborted = true;
    this.finished(this.id);
    this.#onAborted?.();
  }

  /** The request thread's socket took what was sent. */
  drained(): void {
    this.#unacked = 0;
    const h = this.#onWritable;
    if (h !== null && h(this.#offset)) this.#onWritable = null;
  }

  // --- uWS's HttpResponse, as the handlers use it ---

  cork(cb: () => void): this {
    if (this.#corked) {
      cb();
      return this;
    }
    this.#corked = true;
    try {
      cb();
    } finally {
      this.#corked = false;
      this.#flush();
    }
    return this;
  }

  writeStatus(status: string | Uint8Array): this {
    return this.#op(['status', textOf(status)]);
  }

  writeHeader(key: string | Uint8Array, value: string | Uint8Array): this {
    return this.#op(['header', textOf(key), textOf(value)]);
  }

  write(chunk: Body): boolean {
    const body = bodyOf(chunk);
    const n = sizeOf(body);
    this.#offset += n;
    this.#unacked += n;
    this.#op(['write', body]);
    return this.#unacked <= HIGH_WATER;
  }

  end(body?: Body, closeConnection = false): this {
    const b = bodyOf(body);
    this.#offset += sizeOf(b);
    this.#op(['end', b, closeConnection]);
    return this.#end();
  }

  /** The whole rest of the body goes at once: the request thread writes it with its socket's backpressure. */
  tryEnd(body: Body, _totalSize: number): [boolean, boolean] {
    this.end(body);
    return [true, true];
  }

  /** As the handlers call it: without arguments (a 204 or 304, no Content-Length). */
  endWithoutBody(): this {
    this.#op(['endWithoutBody']);
    return this.#end();
  }

  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): this {
    this.#onData = handler;
    const early = this.#early;
    this.#early = null;
    if (early !== null) queueMicrotask(() => early.forEach(([chunk, last]) => handler(chunk, last)));
    return this;
  }

  onAborted(handler: () => void): this {
    this.#onAborted = handler;
    return this;
  }

  onWritable(handler: (offset: number) => boolean): this {
    this.#onWritable = handler;
    return this;
  }

  getWriteOffset(): number {
    return this.#offset;
  }

  getRemoteAddressAsText(): ArrayBuffer {
    const b = Buffer.from(this.remote, 'latin1');
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }

  #op(op: AnswerOp): this {
    if (this.#aborted || this.#ended) return this;
    this.#ops.push(op);
    if (!this.#corked) this.#flush();
    return this;
  }

  #end(): this {
    if (this.#ended || this.#aborted) return this;
    this.#ended = true;
    if (!this.#corked) this.#flush();
    this.finished(this.id);
    return this;
  }

  #flush(): void {
    if (this.#ops.length === 0) return;
    const ops = this.#ops;
    this.#ops = [];
    this.send({ t: 'answer', id: this.id, ops });
  }
}
