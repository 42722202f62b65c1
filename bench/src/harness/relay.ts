import { App, us_listen_socket_close, us_socket_local_port, type HttpResponse, type us_listen_socket } from 'uWebSockets.js';
import { Pool } from 'undici';

/**
 * The floor: a plain relay made of the gateway's own parts (uWebSockets.js in, undici out) and nothing else. It reads
 * the whole request body, forwards it to the provider on a keep-alive pool, and relays the status, the content type
 * and the answer's chunks as they arrive (so a stream's first byte is relayed at once). No authentication, no
 * governance, no ledger: whatever aduana adds beyond this is the cost of governing the call, not of the hop.
 */
export interface Relay {
  url: string;
  port: number;
  close(): Promise<void>;
}

export function startRelay(upstreamBase: string, port = 0, connections = 64): Promise<Relay> {
  const base = new URL(upstreamBase);
  const prefix = base.pathname.replace(/\/$/, ''); // e.g. /v1
  const pool = new Pool(base.origin, { connections, pipelining: 1 });

  function forward(res: HttpResponse, path: string, contentType: string, body: Buffer): void {
    let aborted = false;
    res.onAborted(() => (aborted = true));
    pool
      .request({ method: 'POST', path: `${prefix}${path}`, headers: { 'content-type': contentType || 'application/json' }, body })
      .then(async (up) => {
        const ct = up.headers['content-type'];
        let started = false;
        for await (const chunk of up.body) {
          if (aborted) continue;
          res.cork(() => {
            if (!started) {
              res.writeStatus(String(up.statusCode));
              if (typeof ct === 'string') res.writeHeader('content-type', ct);
              started = true;
            }
            res.write(chunk as Buffer);
          });
        }
        if (aborted) return;
        res.cork(() => {
          if (!started) {
            res.writeStatus(String(up.statusCode));
            if (typeof ct === 'string') res.writeHeader('content-type', ct);
          }
          res.end();
        });
      })
      .catch(() => {
        if (!aborted) res.cork(() => res.writeStatus('502').end());
      });
  }

  return new Promise((resolve, reject) => {
    let listen: us_listen_socket | null = null;
    const app = App().post('/*', (res, req) => {
      // Everything read from `req` must be read before the handler returns (uWS reuses it).
      const path = req.getUrl().replace(/^\/v1/, '');
      const contentType = req.getHeader('content-type');
      const parts: Buffer[] = [];
      let aborted = false;
      res.onAborted(() => (aborted = true));
      res.onData((chunk, last) => {
        // uWS hands a view over its own buffer: copy before returning.
        parts.push(Buffer.from(new Uint8Array(chunk).slice()));
        if (!last || aborted) return;
        forward(res, path, contentType, parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts));
      });
    });
    app.listen('127.0.0.1', port, (s) => {
      if (!s) return reject(new Error(`relay: cannot listen on ${port}`));
      listen = s;
      const p = us_socket_local_port(s as unknown as Parameters<typeof us_socket_local_port>[0]);
      resolve({
        url: `http://127.0.0.1:${p}/v1`,
        port: p,
        close: async () => {
          if (listen) us_listen_socket_close(listen);
          await pool.close();
        },
      });
    });
  });
}
