/**
 * WebhookCreate (docs/scanner.md, "Webhooks"): no extra properties; minScoreDelta 0 to 100, default 5. The URL's
 * https scheme and public destination are checked by the route (400 invalid_webhook_url), not here.
 */
export const WEBHOOK_CREATE_SCHEMA = Object.freeze({
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: { type: 'string', maxLength: 2048 },
    minScoreDelta: { type: 'number', minimum: 0, maximum: 100, default: 5 },
  },
});

export interface WebhookCreate {
  url: string;
  minScoreDelta?: number;
}
