import { newId } from '@aduana/shared';
import type { Stage } from './stage.js';

/** A passthrough (models) is authenticated and recorded, not judged: it gets a decision id and nothing else. */
export function passthroughStage(): Stage {
  return {
    name: 'passthrough',
    run(c) {
      c.decisionId = newId('dec');
    },
  };
}
