import type { Authenticator } from '../auth/authenticate.js';
import type { TenantRuntimes } from '../runtime/tenant-runtime.js';
import type { EvalPool } from '../runtime/eval-pool.js';
import type { AgentBudgetLookup } from '../decisions/decision-engine.js';
import type { PriceTable } from './pricing/price-table.js';
import type { ToolCallValidator } from './output/tool-call-validator.js';
import type { RequestStage, ResponseStage } from './stages/stage.js';
import { authenticateStage } from './stages/authenticate.js';
import { parseIntentStage } from './stages/parse-intent.js';
import { preflightStage } from './stages/preflight.js';
import { evaluatePoliciesStage } from './stages/evaluate-policies.js';
import { redactInputStage } from './stages/redact-input.js';
import { requestUsageStage } from './stages/request-usage.js';
import { checkOutputStage, meterUsageStage, redactOutputStage } from './stages/response-stages.js';

/**
 * The governance proxy's request path, in order, declared once:
 *
 *   auth -> parse -> preflight -> policy -> redact -> usage -> forward -> (usage -> redact -> policy) -> ledger -> respond
 *
 * Request stages run top to bottom; any of them may answer directly (a local reply: nothing after it runs and the
 * upstream is never contacted). Response stages are the request stages' counterparts and run in reverse order
 * (Envoy's encoder order): usage is metered first, then the answer is redacted, then output policies judge what the
 * client would see. The ledger entry is written last, whatever happened. Streams take the same steps per event in
 * StreamGovernor.
 */
export interface Pipeline {
  readonly request: readonly RequestStage[];
  readonly response: readonly ResponseStage[];
}

export function createPipeline(deps: {
  authenticator: Authenticator;
  runtimes: TenantRuntimes;
  agentBudget: AgentBudgetLookup;
  prices: PriceTable;
  tools: ToolCallValidator;
  /** Longest `model` accepted (it is recorded in the ledger). */
  maxModelLength: number;
  /** Where inputs longer than `evalInlineMaxChars` are judged. */
  evalPool: EvalPool;
  evalInlineMaxChars: number;
}): Pipeline {
  const request = [
    authenticateStage(deps.authenticator, deps.runtimes),
    parseIntentStage(),
    preflightStage(deps.maxModelLength),
    evaluatePoliciesStage(deps.runtimes, deps.agentBudget, deps.evalPool, deps.evalInlineMaxChars),
    redactInputStage(deps.runtimes),
    requestUsageStage(),
  ];
  const responseInDeclarationOrder = [checkOutputStage(deps.tools), redactOutputStage(), meterUsageStage(deps.runtimes, deps.prices)];
  return Object.freeze({ request: Object.freeze(request), response: Object.freeze(responseInDeclarationOrder.reverse()) });
}
