/**
 * Header names and values the HTTP layer hands uWS on every request, as bytes made once: uWS reads a Buffer in place,
 * where a string argument is converted to UTF-8 on every call.
 */
const bytes = (s: string): Buffer => Buffer.from(s, 'latin1');

export const AUTHORIZATION = bytes('authorization');
export const CONTENT_TYPE = bytes('content-type');
export const CONTENT_LENGTH = bytes('content-length');
export const AGENT_ID = bytes('x-svc-agent-id');
export const TRACEPARENT = bytes('traceparent');
export const TRACE_ID = bytes('x-svc-trace-id');
export const JSON_TYPE = bytes('application/json');
