import { visitRequestText } from '../request-text.js';
import type { RequestStage } from './stage.js';

/** PII in the prompt is rewritten to `[REDACTED:ENTITY]` before the upstream sees it (REDACT pii policies). */
export function redactInputStage(): RequestStage {
  return {
    name: 'redact',
    run(c) {
      const redactor = c.policySet!.inputRedactor;
      if (!redactor || !c.evaluation!.redactInput) return;
      let count = 0;
      visitRequestText(c.request!, (text) => {
        const r = redactor.redact(text);
        count += r.matches.length;
        return r.text;
      });
      c.inputRedactions = count;
    },
  };
}
