import { newId } from '@aduana/shared';
import type { Step } from './stage.js';

/** A passthrough (models) is authenticated and recorded, not judged: it gets a decision id and nothing else. */
export function passthroughStep(): Step {
  return {
    name: 'passthrough',
    run(c) {
      c.decisionId = newId('dec');
    },
  };
}
