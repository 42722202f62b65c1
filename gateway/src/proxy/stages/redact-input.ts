import { performance } from 'node:perf_hooks';
import type { TenantLimits } from '../../policy/runtime/tenant-limits.js';
import { visitRequestText } from '../request-text.js';
import { RedactionCount } from '../../policy/pii/entity-tally.js';
import type { Stage } from './stage.js';

/** PII in the prompt is rewritten to `[REDACTED:ENTITY]` before the upstream sees it (REDACT pii policies). */
export function redactInputStage(limits: TenantLimits): Stage {
  return {
    name: 'redact-input',
    run(c) {
      const redactor = c.policySet!.inputRedactor;
      if (!redactor || !c.evaluation!.redactInput || c.inputJudgedInWorker) return;
      const started = performance.now();
      const tally = new RedactionCount(redactor);
      visitRequestText(c.request!, tally.redact, c.requestMedia);
      c.inputRedactions = tally.count;
      c.inputRedactionEntities = tally.entities;
      // Redaction is evaluation work too: it counts against the tenant's evaluation-time budget.
      c.redactionMs = performance.now() - started;
      limits.chargeEvaluation(c.principal!.tenantId, c.redactionMs);
    },
  };
}
