import { performance } from 'node:perf_hooks';
import type { TenantRuntimes } from '../../policy/runtime/tenant-runtime.js';
import { visitRequestText } from '../request-text.js';
import { tallyEntities, type EntityTally } from '../../policy/pii/entity-tally.js';
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
      let entities: EntityTally | null = null;
      visitRequestText(c.request!, (text) => {
        const r = redactor.redact(text);
        count += r.matches.length;
        entities = tallyEntities(r.matches, entities);
        return r.text;
      });
      c.inputRedactions = count;
      c.inputRedactionEntities = entities;
      // Redaction is evaluation work too: it counts against the tenant's evaluation-time budget.
      c.redactionMs = performance.now() - started;
      runtimes.chargeEvaluation(c.principal!.tenantId, c.redactionMs);
    },
  };
}
