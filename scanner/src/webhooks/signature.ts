import { createHmac } from 'node:crypto';

/**
 * The delivery signature (docs/scanner.md, "Verifying a delivery"): `v1=` + hex HMAC-SHA-256 keyed with the
 * signing secret over `${timestamp}.${body}`, the timestamp being the X-SVC-Timestamp header (Unix seconds).
 */
export function signDelivery(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${String(timestamp)}.${body}`).digest('hex')}`;
}
