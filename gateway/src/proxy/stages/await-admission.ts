import type { Stage } from './stage.js';

/**
 * Waits for a plan admission decided on Redis (docs/fleet.md, "Shared limits"), after the body read has started (uWS
 * does not keep body chunks for a reader attached later): a refusal answers 429 before anything is judged or
 * forwarded. In the pipeline only when limits are shared.
 */
export function awaitAdmissionStage(): Stage {
  return {
    name: 'await-admission',
    run: (c) => c.http.admission ?? undefined,
  };
}
