import type { RequestContext } from '../http/request-context.js';

/** Writes a streamed answer's chunks with backpressure (resolves once the socket can take more). */
export interface ChunkWriter {
  write(text: string): Promise<void>;
  /** Releases a write waiting for the socket to drain (the client left: it never will). */
  release(): void;
}

/**
 * What the proxy needs of the HTTP edge, handed to it when the edge mounts the proxy's routes: the edge calls the
 * proxy, and the proxy answers through this, so that imports run one way.
 */
export interface ProxyEdge {
  /** The request body, capped (413 past it) and counted against the in-flight budget. */
  readBody(ctx: RequestContext, maxBytes: number): Promise<Buffer>;
  /** Writes a whole answer. False when nothing was written (the client left, or it was already answered). */
  writeWhole(ctx: RequestContext, status: number, headers: Readonly<Record<string, string>>, body: Buffer): boolean;
  /** The status line and headers of an answer whose body follows in chunks. */
  writeHead(ctx: RequestContext, status: number, headers: Readonly<Record<string, string>>): void;
  chunkWriter(ctx: RequestContext): ChunkWriter;
  /** Ends an answer whose head (and maybe some chunks) went out. */
  end(ctx: RequestContext): void;
  /** Marks the request answered (logged, counted, its body budget released): once per request. */
  complete(ctx: RequestContext, status: number): void;
}
