import type { Stage } from './stage.js';

/**
 * Budgets need token usage, which a stream reports only when asked (`stream_options.include_usage`). We ask; if the
 * client did not, the usage chunk is counted and not relayed, so the client sees the stream it asked for.
 */
export function requestUsageStage(): Stage {
  return {
    name: 'request-usage',
    run(c) {
      if (!c.stream || c.clientWantsStreamUsage || !c.endpoint.asksStreamUsage) return;
      const req = c.request!;
      const so = req['stream_options'];
      req['stream_options'] = { ...(so && typeof so === 'object' ? (so as object) : {}), include_usage: true };
    },
  };
}
