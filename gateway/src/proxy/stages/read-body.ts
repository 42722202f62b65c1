import type { HttpServer } from '../../http/server.js';
import type { Step } from './stage.js';

/** The request body, capped (413 past it) and counted against the in-flight budget; read only once authenticated. */
export function readBodyStep(server: HttpServer, maxBodyBytes: number): Step {
  return {
    name: 'read-body',
    // The read leaves the body in c.http.rawBody: the runner waits on it directly.
    run: (c) => server.readBody(c.http, maxBodyBytes),
  };
}
