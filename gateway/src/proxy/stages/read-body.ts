import type { ProxyEdge } from '../proxy-edge.js';
import type { Stage } from './stage.js';

/** The request body, capped (413 past it) and counted against the in-flight budget; read only once authenticated. */
export function readBodyStage(edge: ProxyEdge, maxBodyBytes: number): Stage {
  return {
    name: 'read-body',
    // The read leaves the body in c.http.rawBody: the runner waits on it directly.
    run: (c) => edge.readBody(c.http, maxBodyBytes),
  };
}
