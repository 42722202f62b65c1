/**
 * The scanner's one error registry (docs/architecture.md "Errors"): every error the service answers, with its HTTP status and
 * the message clients see in `{error}` (docs/decisions.md, "Errors"). Routes throw ScannerError(code); the error handler
 * (plugins/error-handler.ts) is the only place that writes an error body.
 */
export const ERRORS = Object.freeze({
  invalid_request: { status: 400, message: 'Invalid request body.' },
  invalid_json: { status: 400, message: 'Request body is not valid JSON.' },
  invalid_url: { status: 400, message: 'url must be an absolute http(s) URL of at most 2048 characters, without credentials.' },
  blocked_destination: { status: 400, message: 'Destination refused: the URL resolves to a private, loopback or reserved address.' },
  invalid_path: { status: 400, message: 'Request path is not a valid URL path.' },
  self_audit: { status: 400, message: 'Self-audit refused: the URL points at this service.' },
  invalid_id: { status: 400, message: 'The id in the path must be a UUID.' },
  invalid_query: { status: 400, message: 'Invalid query parameters.' },
  invalid_webhook_url: { status: 400, message: 'Webhook url must be an https URL without credentials or a fragment.' },
  webhook_host_unresolved: { status: 400, message: "Webhook url's host name does not resolve from this server; it must resolve to a public address when the webhook is created." },
  too_many_monitors: { status: 400, message: 'The organisation has the most monitors allowed (recently deleted ones included).' },
  too_many_webhooks: { status: 400, message: 'The organisation has the most active webhooks allowed.' },
  unauthorized: { status: 401, message: 'API key missing, invalid or revoked.' },
  scan_not_found: { status: 404, message: 'Scan not found.' },
  monitor_not_found: { status: 404, message: 'Monitor not found.' },
  webhook_not_found: { status: 404, message: 'Webhook not found.' },
  not_found: { status: 404, message: 'Route not found.' },
  monitor_inactive: { status: 409, message: 'The monitor is inactive.' },
  monitor_busy: { status: 409, message: 'The monitor is already running.' },
  // Answered as bodyTooLargeMessage(limit); this text only when the limit is not known.
  body_too_large: { status: 413, message: 'Request body exceeds the size limit.' },
  unsupported_media_type: { status: 415, message: 'Request body must be application/json.' },
  rate_limited_ip: { status: 429, message: 'Too many assessments from this address; retry later.' },
  rate_limited_target: { status: 429, message: 'Too many assessments of this target; retry later.' },
  rate_limited_platform: { status: 429, message: 'The service is at capacity; retry later.' },
  too_many_in_flight: { status: 429, message: 'Too many assessments in progress; retry in a moment.' },
  quota_exceeded: { status: 429, message: 'The API key used up its assessment quota for today; retry later.' },
  quota_crawls: { status: 429, message: 'The API key used up its crawls for this hour; retry later.' },
  quota_renderings: { status: 429, message: 'The API key used up its renderings for this hour; retry later.' },
  quota_monitor_creations: { status: 429, message: 'The API key created too many monitors this hour; retry later.' },
  client_closed: { status: 499, message: 'The client closed the request before the answer.' },
  target_unreachable: { status: 502, message: 'Target unreachable.' },
  target_timeout: { status: 502, message: 'Target did not answer in time.' },
  browser_missing: { status: 502, message: 'Rendering unavailable: Chromium is not installed on this server; install it with `bash scripts/system-packages.sh`.' },
  browser_crashed: { status: 502, message: 'Rendering unavailable: the browser crashed or could not start; retry later.' },
  signing_unavailable: { status: 503, message: 'Webhook signing is unavailable: the service has no secret key.' },
  internal: { status: 500, message: 'Internal error.' },
} satisfies Record<string, { status: number; message: string }>);

export type ErrorCode = keyof typeof ERRORS;

/** body_too_large naming the limit the request was held to (SCANNER_BODY_LIMIT_BYTES unless a route sets its own). */
export function bodyTooLargeMessage(limitBytes: number): string {
  return `Request body exceeds the ${byteSize(limitBytes)} limit.`;
}

/** Exact, as the docs write sizes: whole MiB or KiB when it is one, else bytes. */
function byteSize(bytes: number): string {
  if (bytes > 0 && bytes % (1024 * 1024) === 0) return `${String(bytes / (1024 * 1024))} MiB`;
  if (bytes > 0 && bytes % 1024 === 0) return `${String(bytes / 1024)} KiB`;
  return `${String(bytes)} bytes`;
}

export interface ScannerErrorOptions extends ErrorOptions {
  /** The registry message with the configured value it names (bodyTooLargeMessage); the registry's text otherwise. */
  readonly message?: string;
}

export class ScannerError extends Error {
  override readonly name = 'ScannerError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    /** Whole seconds, for 429s: sent as Retry-After. */
    readonly retryAfterS?: number,
    options?: ScannerErrorOptions,
  ) {
    super(options?.message ?? ERRORS[code].message, options);
    this.status = ERRORS[code].status;
  }
}
