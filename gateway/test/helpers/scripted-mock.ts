import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a mock provider received. */
export interface ScriptedReceived {
  method: string;
  /** As requested, query string included. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (null when empty or not JSON), and the text as received. */
  body: Record<string, unknown> | null;
  raw: string;
}

/** One request being answered: `finished` is set once its answer is complete (else the client left early). */
export interface Exchange<S> {
  req: IncomingMessage;
  res: ServerResponse;
  script: S;
  got: ScriptedReceived;
  finished: boolean;
}

/**
 * What the mock providers of the wire-format tests share (Anthropic's, Gemini's): an HTTP server on loopback whose
 * tests script the next answers in order (then a default), and read what it received and how often a client left
 * before an answer was complete. A subclass answers one request with its script.
 */
export abstract class ScriptedMock<S extends { delayMs?: number }> {
  readonly received: ScriptedReceived[] = [];
  /** Connections the client closed before the answer was complete (e.g. an aborted stream). */
  clientAborts = 0;
  /** The origin, without a version segment: what the official SDK takes as its base URL. */
  url = '';
  #scripts: S[] = [];
  #default = {} as S;
  #server: Server | null = null;

  /** Scripts the next answers, in order (one per request, whatever its route); then the default answers. */
  next(...scripts: S[]): this {
    this.#scripts.push(...scripts);
    return this;
  }

  setDefault(s: S): this {
    this.#default = s;
    return this;
  }

  reset(): void {
    this.received.length = 0;
    this.#scripts = [];
    this.#default = {} as S;
    this.clientAborts = 0;
  }

  async start(): Promise<this> {
    this.#server = createServer((req, res) => void this.#handle(req, res));
    this.#server.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => this.#server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise((r) => this.#server?.close(r));
  }

  /** Answers one request with its script, setting `x.finished` once the answer is complete. */
  protected abstract answer(x: Exchange<S>): Promise<void>;

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const raw = Buffer.concat(parts).toString('utf8');
    let body: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = raw ? JSON.parse(raw) : null;
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      body = null;
    }
    const got: ScriptedReceived = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, raw };
    this.received.push(got);
    const x: Exchange<S> = { req, res, script: this.#scripts.shift() ?? this.#default, got, finished: false };
    res.on('close', () => {
      if (!x.finished) this.clientAborts++;
    });
    if (x.script.delayMs) await sleep(x.script.delayMs);
    await this.answer(x);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
