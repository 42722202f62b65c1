import { GatewayError } from '../../errors.js';
import { LedgerError } from '../index.js';

/** The ledger's failure codes in the gateway's error registry. */
export function fromLedgerError(err: unknown): unknown {
  if (!(err instanceof LedgerError)) return err;
  switch (err.code) {
    case 'invalid_input':
      return new GatewayError('invalid_request', err.index !== null ? `events[${err.index}]: ${err.message}` : err.message);
    case 'invalid_tenant':
    case 'invalid_query':
    case 'invalid_cursor':
      return new GatewayError('invalid_request', err.message);
    case 'out_of_range':
      return new GatewayError('not_found', err.message);
    case 'pruned':
      return new GatewayError('ledger_pruned', err.message);
    case 'closed':
      return new GatewayError('shutting_down');
    case 'busy':
      return new GatewayError('ledger_busy', err.message);
    default:
      return new GatewayError('internal');
  }
}
