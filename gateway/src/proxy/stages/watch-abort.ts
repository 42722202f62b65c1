import type { ProxyContext } from '../proxy-context.js';
import type { Step } from './stage.js';

/** From here on, a client that leaves is recorded as such and its upstream request (once sent) is cancelled. */
export function watchAbortStep(): Step {
  return {
    name: 'watch-abort',
    run(c) {
      c.http.onAbort = () => clientLeft(c);
    },
  };
}

function clientLeft(c: ProxyContext): void {
  if (c.outcome === 'completed') c.outcome = 'client_aborted';
  c.cancelUpstream?.();
}
