import { GatewayError } from '../../errors.js';
import type { Stage } from './stage.js';

/**
 * The shape the provider requires, checked before anything is spent on it: a model, a boolean `stream`, the path's
 * parts, and the body the endpoint's format requires (its `validate`). A body the provider would reject anyway is
 * answered here with a clear 400.
 */
export function preflightStage(maxModelLength: number): Stage {
  return {
    name: 'preflight',
    run(c) {
      const req = c.request as Record<string, unknown>;
      const endpoint = c.endpoint;
      // Gemini names the model in the path; the others in the body (Azure's may leave it to the deployment).
      if (endpoint.fallbackModelOf) c.deployment = endpoint.fallbackModelOf(c.http);
      if (endpoint.modelOf) c.model = endpoint.modelOf(c.http);
      else if (req['model'] === undefined && endpoint.fallbackModelOf) c.model = c.deployment;
      else if (typeof req['model'] !== 'string' || req['model'] === '') throw new GatewayError('invalid_request', 'model: required string');
      // The model name goes into the ledger entry: capped here, before the call is acted on (docs/ledger.md).
      if (c.model.length > maxModelLength) throw new GatewayError('invalid_request', `model: at most ${maxModelLength} characters`);
      // The policies whose scope this call matches judge it, in and out (the tenant's set itself when none is aimed).
      c.policySet = c.policySet!.narrow('proxy', c.http.agentId, c.model, undefined, undefined, c.deployment);
      if ('stream' in req && typeof req['stream'] !== 'boolean') throw new GatewayError('invalid_request', 'stream: must be a boolean');
      // A path that depends on the request (Azure's deployment) is checked here too, before anything is judged.
      if (endpoint.pathOf) c.upstreamPath = endpoint.pathOf(c.http);
      endpoint.validate?.(req, c);
      const sid = c.sessionHeader;
      if (sid.length > 256) throw new GatewayError('invalid_request', 'x-svc-session-id: at most 256 characters');
      c.sessionId = sid;
    },
  };
}
