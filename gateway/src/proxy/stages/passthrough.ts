import { newId } from '@aduana/shared';
import type { Stage } from './stage.js';

/**
 * A passthrough (models, a stored response) is authenticated and recorded, not judged: it gets a decision id, and its
 * upstream path when the route names it (checked before anything is sent).
 */
export function passthroughStage(): Stage {
  return {
    name: 'passthrough',
    run(c) {
      c.decisionId = newId('dec');
      // Its answer is redacted by the policies whose scope it matches: it names no model.
      c.policySet = c.policySet!.narrow('proxy', c.http.agentId);
      if (c.endpoint.pathOf) c.upstreamPath = c.endpoint.pathOf(c.http);
    },
  };
}
