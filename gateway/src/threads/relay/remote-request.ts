import type { ToOwner } from './relay-protocol.js';

type Head = Extract<ToOwner, { t: 'head' }>;

/**
 * The head of a request a request thread relayed, with the methods of uWS's HttpRequest the server reads
 * (http/request-head.ts): the main thread's route handlers run on it as on a request of their own.
 */
export class RemoteRequest {
  constructor(private readonly head: Head) {}

  getUrl(): string {
    return this.head.url;
  }

  getQuery(): string {
    return this.head.query;
  }

  getParameter(index: number): string | undefined {
    return this.head.params[index];
  }

  /** The first value of a header (lower-case name, as text or bytes), '' when absent: as uWS answers. */
  getHeader(name: string | Uint8Array): string {
    const key = typeof name === 'string' ? name : Buffer.from(name).toString('latin1');
    const h = this.head.headers;
    for (let i = 0; i < h.length; i += 2) if (h[i] === key) return h[i + 1] as string;
    return '';
  }

  forEach(cb: (key: string, value: string) => void): void {
    const h = this.head.headers;
    for (let i = 0; i < h.length; i += 2) cb(h[i] as string, h[i + 1] as string);
  }
}
