import { GatewayError } from '../../errors.js';
import type { ResponseStage } from '../answer/response-stage.js';
import { storedResponseId } from '../endpoints.js';
import type { ProxyContext } from '../proxy-context.js';
import type { Stage } from '../stages/stage.js';
import type { StoredResponses } from './stored-responses.js';

/** The same answer for an id another tenant made and one nobody made: neither is told apart. */
function notYours(): GatewayError {
  return new GatewayError('not_found', 'no response with this id was made through this gateway by your tenant');
}

function assertOwned(stored: StoredResponses, c: ProxyContext, id: string): void {
  if (!stored.ownedBy(id, c.principal!.tenantId)) throw notYours();
}

/**
 * A call that names a stored response (reads, deletes or lists it by the id in its path, or continues it with
 * `previous_response_id`) is refused unless the caller's tenant made it, before anything is sent.
 */
export function checkStoredStage(stored: StoredResponses): Stage {
  return {
    name: 'check-stored',
    run(c) {
      if (c.endpoint.readsStored === true) {
        assertOwned(stored, c, storedResponseId(c.http));
        return;
      }
      const previous = c.request?.['previous_response_id'];
      if (previous === undefined || previous === null || c.endpoint.format.storedId === undefined) return;
      if (typeof previous !== 'string') throw new GatewayError('invalid_request', 'previous_response_id: must be a string');
      assertOwned(stored, c, previous);
    },
  };
}

/** The id of a response the answer made (whole, or a stream's `response.created`) is remembered as the tenant's. */
export function rememberStoredStage(stored: StoredResponses): ResponseStage {
  return {
    name: 'remember-stored',
    onPiece(c, piece) {
      const id = c.endpoint.format.storedId?.(piece.body);
      if (id) stored.remember(id, c.principal!.tenantId, c.http.agentId);
    },
  };
}

/** A response the provider deleted is nobody's any more. */
export function forgetDeletedStage(stored: StoredResponses): Stage {
  return {
    name: 'forget-deleted',
    run(c) {
      if (c.endpoint.method !== 'DELETE' || c.upstreamStatus < 200 || c.upstreamStatus >= 300) return;
      return stored.forget(storedResponseId(c.http), c.principal!.tenantId).then(() => undefined);
    },
  };
}
