import type { Dispatcher } from 'undici';

/** Chunks held before the upstream connection is paused (backpressure from a slow client reaches the provider). */
const HIGH_WATER = 16;
const LOW_WATER = 4;

/**
 * An upstream response body fed by undici's dispatch handler: an async iterable of chunks with a small queue,
 * pausing the connection when the reader falls behind. Lighter than a Readable stream per response.
 */
export class UpstreamBody implements AsyncIterable<Buffer> {
  #chunks: Buffer[] = [];
  #ended = false;
  #error: unknown = null;
  #waiter: (() => void) | null = null;
  #paused = false;
  #controller: Dispatcher.DispatchController | null = null;

  attach(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
  }

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    if (!this.#paused && this.#chunks.length >= HIGH_WATER && this.#controller) {
      this.#paused = true;
      this.#controller.pause();
    }
    this.#wake();
  }

  end(): void {
    this.#ended = true;
    this.#wake();
  }

  fail(err: unknown): void {
    this.#error = err;
    this.#wake();
  }

  /** Stops the upstream request (client gone, answer refused, body too large). */
  destroy(reason: Error = new Error('upstream request cancelled')): void {
    if (this.#ended || this.#error) return;
    this.#error = reason;
    this.#controller?.abort(reason);
    this.#wake();
  }

  #wake(): void {
    const w = this.#waiter;
    this.#waiter = null;
    w?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    for (;;) {
      const chunk = this.#chunks.shift();
      if (chunk) {
        if (this.#paused && this.#chunks.length <= LOW_WATER) {
          this.#paused = false;
          this.#controller?.resume();
        }
        yield chunk;
        continue;
      }
      if (this.#error) throw this.#error;
      if (this.#ended) return;
      await new Promise<void>((resolve) => (this.#waiter = resolve));
    }
  }
}
