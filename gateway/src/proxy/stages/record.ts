import type { Logger } from '@aduana/shared';
import type { AuditTrail } from '../../audit/audit-trail.js';
import { GatewayError } from '../../errors.js';
import { indexProxyCall, recordProxyCall } from '../audit-record.js';
import type { ProxyContext } from '../proxy-context.js';
import type { Step } from './stage.js';

/**
 * The audit record. A whole answer is recorded before it goes out: an entry the ledger refuses withholds the answer
 * (500). A stream has already been relayed: a refusal can only be logged. The decision index and the observers, which
 * cannot refuse, follow the answer (the pipeline's `indexProxyCall`).
 */
export function recordStep(audit: AuditTrail, logger: Logger): Step {
  return {
    name: 'record',
    run(c) {
      if (c.streamed) {
        recordAfterAnswer(c, audit, logger);
        return;
      }
      try {
        recordProxyCall(c, audit);
      } catch (err) {
        c.outcome = 'error';
        logger.error({ err, traceId: c.http.trace.traceId }, 'ledger refused a proxy entry; answer withheld');
        throw new GatewayError('internal', 'the call could not be recorded in the ledger; its answer is withheld');
      }
    },
  };
}

/** Streams and refusals are recorded after the client was answered (fields are capped before forwarding). */
export function recordAfterAnswer(c: ProxyContext, audit: AuditTrail, logger: Logger): void {
  try {
    recordProxyCall(c, audit);
    indexProxyCall(c, audit);
  } catch (err) {
    logger.error({ err, traceId: c.http.trace.traceId }, 'ledger refused a proxy entry');
  }
}
