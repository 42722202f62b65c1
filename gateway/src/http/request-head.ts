import type { HttpRequest } from 'uWebSockets.js';
import { GatewayError } from '../errors.js';
import { AGENT_ID, AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE } from './header-bytes.js';
import type { RequestContext } from './request-context.js';

/** Longest accepted path parameter (after decoding): ids are short, and a longer one could not be a store key. */
const MAX_PARAM_LENGTH = 512;
const DIGITS = /^\d{1,15}$/;

/**
 * Copies what later stages need from the request head into `ctx` (uWS's HttpRequest is only valid during the
 * synchronous part of the handler). It never throws: this runs before the guarded dispatch, where an exception would
 * escape into uWS and end the process. Anything malformed becomes `ctx.rejection`, which the dispatch answers with the
 * error envelope before authenticating or reading a body.
 */
export function readRequestHead(ctx: RequestContext, req: HttpRequest, paramCount: number, headerNames: readonly string[]): void {
  try {
    ctx.url = req.getUrl();
    ctx.rawQuery = req.getQuery() ?? '';
    for (let i = 0; i < paramCount; i++) ctx.params.push(decodeParam(ctx, req.getParameter(i) ?? ''));
    ctx.authorization = req.getHeader(AUTHORIZATION);
    ctx.contentType = req.getHeader(CONTENT_TYPE);
    ctx.contentLength = contentLengthOf(ctx, req);
    ctx.agentId = req.getHeader(AGENT_ID);
    if (headerNames.length > 0) {
      // Only routes that declared extra headers pay for them (one small array); the rest share NO_HEADERS.
      const values: string[] = [];
      for (let i = 0; i < headerNames.length; i++) values.push(req.getHeader(headerNames[i] as string));
      ctx.headerNames = headerNames;
      ctx.headerValues = values;
    }
  } catch {
    ctx.rejection ??= new GatewayError('invalid_request', 'malformed request');
  }
}

function decodeParam(ctx: RequestContext, raw: string): string {
  let value = raw;
  // Fast path: most ids carry no escapes.
  if (raw.includes('%')) {
    try {
      value = decodeURIComponent(raw);
    } catch {
      ctx.rejection ??= new GatewayError('invalid_request', 'path: malformed percent-encoding');
      return '';
    }
  }
  if (value.length > MAX_PARAM_LENGTH) {
    ctx.rejection ??= new GatewayError('invalid_request', `path: a segment is longer than ${MAX_PARAM_LENGTH} characters`);
    return '';
  }
  return value;
}

// One module-level counter and callback rather than a closure per request (the walk is synchronous).
let contentLengthHeaders = 0;
function countContentLength(key: string): void {
  if (key === 'content-length') contentLengthHeaders++;
}

/**
 * The declared body length, -1 when none is declared. uWS refuses a non-numeric or negative value itself, and getHeader
 * sees only the first of repeated headers: a request that repeats Content-Length is refused here (its framing is
 * ambiguous, so the connection is closed after the answer). Headers are walked only when a length is declared.
 */
function contentLengthOf(ctx: RequestContext, req: HttpRequest): number {
  const cl = req.getHeader(CONTENT_LENGTH);
  if (cl === '') return -1;
  contentLengthHeaders = 0;
  req.forEach(countContentLength);
  if (contentLengthHeaders > 1 || !DIGITS.test(cl.trim())) {
    ctx.rejection ??= new GatewayError('invalid_request', 'Content-Length: exactly one decimal value');
    ctx.closeConnection = true;
    return -1;
  }
  return Number(cl.trim());
}
