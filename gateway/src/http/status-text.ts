/**
 * uWS wants the full status line ("200 OK"); precomputed so no string is built per response, and as bytes: uWS reads
 * a Buffer in place, where a string is converted to UTF-8 on every call.
 */
const TEXT: Record<number, string> = {
  200: '200 OK',
  201: '201 Created',
  204: '204 No Content',
  302: '302 Found',
  304: '304 Not Modified',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  403: '403 Forbidden',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  409: '409 Conflict',
  413: '413 Payload Too Large',
  415: '415 Unsupported Media Type',
  422: '422 Unprocessable Entity',
  429: '429 Too Many Requests',
  500: '500 Internal Server Error',
  502: '502 Bad Gateway',
  503: '503 Service Unavailable',
  504: '504 Gateway Timeout',
};

const LINES: Record<number, Buffer> = Object.fromEntries(Object.entries(TEXT).map(([code, line]) => [code, Buffer.from(line, 'latin1')]));

export function statusLine(status: number): Buffer | string {
  return LINES[status] ?? `${status} Status`;
}
