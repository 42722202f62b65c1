import { performance } from 'node:perf_hooks';
import type { TenantRuntimes } from '../../policy/runtime/tenant-runtime.js';
import { visitRequestText } from '../request-text.js';
import type { Stage } from './stage.js';

/** PII in the prompt is rewritten to `[REDACTED:ENTITY]` before the upstream sees it (REDACT pii policies). */
export function redactInputStage(runtimes: TenantRuntimes): Stage {
  return {
    name: 'redact-input',
    run(c) {
      const redactor = c.policySet!.inputRedactor;
      if (!redactor || !c.evaluation!.redactInput || c.inputJudgedInWorker) return;
      const started = performance.now();
      let count = 0;
      visitRequestText(c.request!, (text) => {
        const r = redactor.redact(text);
        count += r.matches.length;
        return r.text;
      });
      c.inputRedactions = count;
      // Redaction is evaluation work too: it counts against the tenant's evaluation-time budget.
      runtimes.chargeEvaluation(c.principal!.tenantId, performance.now() - started);
    },
  };
}
