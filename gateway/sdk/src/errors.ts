/** A call the gateway refused or could not answer: its error envelope's fields, when it sent one. */
export class AduanaError extends Error {
  constructor(
    message: string,
    /** HTTP status (0 when no answer came). */
    readonly status: number,
    /** The envelope's type (invalid_request, permission_denied, …), or 'network_error'. */
    readonly type: string,
    /** The rule behind a policy refusal ('' otherwise). */
    readonly rule: string,
    readonly traceId: string,
  ) {
    super(message);
    this.name = 'AduanaError';
  }
}
