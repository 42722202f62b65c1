import { uuid } from '@aduana/shared';
import { ScannerError } from '../errors.js';
import type { DeliveryRecord, ScannerStore, WebhookRecord } from '../storage/scanner-store.js';

/** A webhook as the API shows it: never its secret, sealed or not. */
export interface WebhookView {
  readonly id: string;
  readonly url: string;
  readonly minScoreDelta: number;
  readonly active: boolean;
  readonly createdAt: string;
}

export function webhookView(w: WebhookRecord): WebhookView {
  return { id: w.id, url: w.url, minScoreDelta: w.minScoreDelta, active: w.active, createdAt: w.createdAt };
}

const ID_END = '\uffff';

export function orgWebhooks(store: ScannerStore, orgId: string): WebhookRecord[] {
  const out: WebhookRecord[] = [];
  for (const { value } of store.webhooks.getRange({ start: [orgId, ''], end: [orgId, ID_END] })) out.push(value);
  return out;
}

/** Stores a webhook, unless the organisation already has `maxActive` active ones (400, nothing stored). */
export async function createWebhook(store: ScannerStore, record: WebhookRecord, maxActive: number): Promise<void> {
  let full = false;
  await store.root.transaction(() => {
    if (orgWebhooks(store, record.orgId).filter((w) => w.active).length >= maxActive) {
      full = true;
      return;
    }
    void store.webhooks.put([record.orgId, record.id], record);
  });
  if (full) throw new ScannerError('too_many_webhooks');
}

/** Deactivates (never removes) the organisation's webhook; 404 when it has none by that id. */
export async function deactivateWebhook(store: ScannerStore, orgId: string, id: string): Promise<void> {
  let found = false;
  await store.root.transaction(() => {
    const w = store.webhooks.get([orgId, id]);
    if (w === undefined) return;
    found = true;
    if (w.active) void store.webhooks.put([orgId, id], { ...w, active: false });
  });
  if (!found) throw new ScannerError('webhook_not_found');
}

export function newAttemptId(): string {
  return uuid();
}

export async function recordAttempt(store: ScannerStore, attempt: DeliveryRecord): Promise<void> {
  await store.deliveries.put([attempt.webhookId, Date.parse(attempt.timestamp), attempt.id], attempt);
}

/** The webhook's newest attempts first. */
export function listDeliveries(store: ScannerStore, webhookId: string, limit: number): DeliveryRecord[] {
  const out: DeliveryRecord[] = [];
  for (const { value } of store.deliveries.getRange({ start: [webhookId, Number.MAX_SAFE_INTEGER], end: [webhookId, -1], reverse: true, limit })) out.push(value);
  return out;
}
