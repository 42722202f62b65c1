import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { isNetGuardError } from '@aduana/shared';
import { CollectError } from '../collect/index.js';
import { bodyTooLargeMessage, ScannerError, type ErrorCode } from '../errors.js';
import { sharedPlugin } from './shared-plugin.js';

/**
 * Maps anything thrown to a registry code: the single translation from errors to the wire (docs/decisions.md, "Errors": `{error}`).
 * `bodyLimitBytes` is the limit the request was held to, named in a 413's message.
 */
export function toScannerError(err: unknown, bodyLimitBytes?: number): ScannerError {
  if (err instanceof ScannerError) return err;
  if (isNetGuardError(err)) {
    // An unresolvable name is an unreachable target; anything the guard refuses is the caller's URL.
    const code: ErrorCode = err.code === 'invalid_url' ? 'invalid_url' : err.code === 'blocked' ? 'blocked_destination' : 'target_unreachable';
    return new ScannerError(code, undefined, { cause: err });
  }
  if (err instanceof CollectError) return new ScannerError(err.code === 'timeout' ? 'target_timeout' : 'target_unreachable', undefined, { cause: err });
  const fe = err as Partial<FastifyError>;
  if (fe.validation && fe.validationContext === 'querystring') return new ScannerError('invalid_query', undefined, { cause: err });
  if (fe.validation && fe.validationContext === 'params') return new ScannerError('invalid_id', undefined, { cause: err });
  if (fe.validation) {
    const aboutUrl = fe.validation.some((v) => v.instancePath === '/url' || v.params?.['missingProperty'] === 'url');
    return new ScannerError(aboutUrl ? 'invalid_url' : 'invalid_request', undefined, { cause: err });
  }
  // A path that does not percent-decode (/%ZZ): Fastify's router refuses it before any route.
  if (fe.code === 'FST_ERR_BAD_URL') return new ScannerError('invalid_path', undefined, { cause: err });
  if (fe.statusCode === 413) {
    return new ScannerError('body_too_large', undefined, { cause: err, ...(bodyLimitBytes === undefined ? {} : { message: bodyTooLargeMessage(bodyLimitBytes) }) });
  }
  if (fe.statusCode === 415) return new ScannerError('unsupported_media_type', undefined, { cause: err });
  if (fe.code?.startsWith('FST_ERR_CTP_')) return new ScannerError('invalid_json', undefined, { cause: err });
  if (fe.statusCode === 400) return new ScannerError('invalid_request', undefined, { cause: err });
  return new ScannerError('internal', undefined, { cause: err });
}

/** Writes the registry's error body for anything thrown; also Fastify's `frameworkErrors` hook (see app.ts). */
export function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  return send(reply, toScannerError(err));
}

function send(reply: FastifyReply, error: ScannerError): FastifyReply {
  if (error.retryAfterS !== undefined) reply.header('retry-after', String(error.retryAfterS));
  // The error's message is its registry text, or that text with the configured value it names.
  return reply.code(error.status).type('application/json; charset=utf-8').send({ error: error.message });
}

/** Installed on the root instance, so every route plugin inherits it; no route writes its own error JSON. */
export const errorHandlerPlugin = sharedPlugin('error-handler', async (app: FastifyInstance) => {
  app.setErrorHandler((err, request, reply) => {
    const error = toScannerError(err, request.routeOptions.bodyLimit);
    if (error.code === 'internal') request.log.error({ err }, 'unhandled error');
    // The cause's code, not its message: messages carry the target URL, whose query may hold someone's token.
    else request.log.debug({ code: error.code, cause: (err as { code?: unknown }).code }, 'request refused');
    return send(reply, error);
  });
  app.setNotFoundHandler((_request, reply) => send(reply, new ScannerError('not_found')));
});
