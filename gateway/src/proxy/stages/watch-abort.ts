import type { ProxyContext } from '../proxy-context.js';
import type { Stage } from './stage.js';

/** From here on, a client that leaves is recorded as such and its upstream request (once sent) is cancelled. */
export function watchAbortStage(): Stage {
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
