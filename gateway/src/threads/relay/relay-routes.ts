import type { MessagePort } from 'node:worker_threads';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { endWithBody } from '../../http/write-body.js';
import type { AnswerOp, RelayedRoute, ToOwner, ToRequestThread } from './relay-protocol.js';

interface Open {
  readonly res: HttpResponse;
  aborted: boolean;
}

const STATUS_500 = '500 Internal Server Error';

/**
 * The request thread's end of the relay: registers each route on this thread's app (but those `skip` names: the
 * thread answers them itself) with a handler that hands the request over to the main thread (its head at once, its
 * body as it arrives) and writes the answer the main thread sends back on this thread's socket, with the socket's
 * backpressure. Returns how many relayed requests are open.
 */
export function relayRoutes(app: TemplatedApp, routes: readonly RelayedRoute[], port: MessagePort, skip: (route: RelayedRoute) => boolean = () => false): () => number {
  const open = new Map<number, Open>();
  let nextId = 0;
  const post = (msg: ToOwner, transfer?: ArrayBuffer[]): void => port.postMessage(msg, transfer);

  routes.forEach((route, index) => {
    if (skip(route)) return;
    const handler = (res: HttpResponse, req: HttpRequest): void => {
      const id = ++nextId;
      const entry: Open = { res, aborted: false };
      res.onAborted(() => {
        entry.aborted = true;
        if (open.delete(id)) post({ t: 'aborted', id });
      });
      // Nothing may throw out of a uWS handler: it would take the process down.
      try {
        const headers: string[] = [];
        req.forEach((k, v) => headers.push(k, v));
        const params: string[] = [];
        for (let i = 0; i < route.paramCount; i++) params.push(req.getParameter(i) ?? '');
        const remote = Buffer.from(res.getRemoteAddressAsText()).toString('latin1');
        open.set(id, entry);
        post({ t: 'head', id, route: index, url: req.getUrl(), query: req.getQuery() ?? '', params, headers, remote });
        res.onData((chunk, last) => {
          if (entry.aborted) return;
          const copy = chunk.slice(0);
          post({ t: 'data', id, chunk: copy, last }, [copy]);
        });
      } catch {
        open.delete(id);
        res.cork(() => res.writeStatus(STATUS_500).end('', true));
      }
    };
    if (route.method === 'any') app.any(route.pattern, handler);
    else if (route.method === 'delete') app.del(route.pattern, handler);
    else app[route.method](route.pattern, handler);
  });

  port.on('message', (msg: ToRequestThread) => {
    const entry = open.get(msg.id);
    if (entry === undefined || entry.aborted) return;
    const res = entry.res;
    let wrote = false;
    let full = false;
    res.cork(() => {
      for (const op of msg.ops) {
        if (apply(res, op, entry)) {
          open.delete(msg.id);
          return;
        }
        if (op[0] === 'write') {
          wrote = true;
          if (!res.write(op[1])) full = true;
        }
      }
    });
    if (!wrote || !open.has(msg.id)) return;
    if (!full) post({ t: 'drained', id: msg.id });
    else
      res.onWritable(() => {
        if (!entry.aborted) post({ t: 'drained', id: msg.id });
        return true;
      });
  });
  return () => open.size;
}

/** Applies one op other than a write; true when it ended the answer. */
function apply(res: HttpResponse, op: AnswerOp, entry: Open): boolean {
  switch (op[0]) {
    case 'status':
      res.writeStatus(op[1]);
      return false;
    case 'header':
      res.writeHeader(op[1], op[2]);
      return false;
    case 'write':
      return false;
    case 'end':
      if (op[2]) res.end(op[1], true);
      else endWithBody(res, typeof op[1] === 'string' ? op[1] : Buffer.from(op[1].buffer, op[1].byteOffset, op[1].byteLength), () => entry.aborted);
      return true;
    case 'endWithoutBody':
      // No argument: uWS writes any argument, even undefined, as a Content-Length (a 204 or 304 carries none).
      res.endWithoutBody();
      return true;
  }
}
