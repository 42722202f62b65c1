import type { Profile } from '../checks/check.js';
import type { Derived } from '../checks/derived.js';
import { JudgingLimitError } from '../checks/judging-limits.js';
import { jsonObject } from '../parse/json-body.js';
import type { Snapshot } from '../snapshot/snapshot.js';

/** Script hosts of payment providers: their presence marks a shop. */
export const PAYMENT_SCRIPT = /(^|\.)(js\.stripe\.com|paypal\.com|paypalobjects\.com|mercadopago\.com(\.br)?|mercadolibre\.com|pagseguro\.uol\.com\.br|pagar\.me|adyen\.com|braintreegateway\.com|klarna\.com|checkout\.com|squareup\.com|shopify\.com|cdn\.shopify\.com|vtex\.com(\.br)?|vtexassets\.com)$/i;
const COMMERCE_PATH = /\/(cart|checkout|carrinho|basket|bag|sacola|finalizar-compra)(\/|$|\?)/i;
const API_TYPES = new Set(['application/json', 'application/problem+json', 'application/vnd.api+json', 'application/hal+json']);

export interface ProfileEvidence {
  readonly profile: Profile;
  /** Why: the signals that decided it (commerce signals also feed commerceRisk). */
  readonly signals: readonly string[];
}

function openapiFound(snapshot: Snapshot): boolean {
  const doc = snapshot.openapi ? jsonObject(snapshot.openapi) : undefined;
  return doc !== undefined && typeof (doc['openapi'] ?? doc['swagger']) === 'string';
}

/**
 * docs/decisions.md, profile `auto`: api when the answer is JSON / problem+json or an OpenAPI document is found; commerce
 * when schema.org Product/Offer, cart/checkout paths or payment-provider scripts are found; otherwise content.
 */
export function detectProfile(snapshot: Snapshot, derived: Derived): ProfileEvidence {
  const page = snapshot.page;
  if (API_TYPES.has(page.contentType) || page.contentType.endsWith('+json')) {
    return { profile: 'api', signals: [`the page answers ${page.contentType}`] };
  }
  if (openapiFound(snapshot)) return { profile: 'api', signals: [`OpenAPI document at ${snapshot.openapi?.url ?? ''}`] };
  const signals = commerceSignals(snapshot, derived);
  return signals.length > 0 ? { profile: 'commerce', signals } : { profile: 'content', signals: [] };
}

export function commerceSignals(snapshot: Snapshot, derived: Derived): string[] {
  try {
    return markupSignals(snapshot, derived);
  } catch (err) {
    // A page over the judging limits has no markup to read: no commerce signal from it.
    if (err instanceof JudgingLimitError) return [];
    throw err;
  }
}

function markupSignals(snapshot: Snapshot, derived: Derived): string[] {
  const page = snapshot.page;
  if (!derived.isHtml(page)) return [];
  const signals: string[] = [];
  const types = derived.jsonLd(page).flatMap((b) => b.types);
  const products = types.filter((t) => t === 'Product' || t === 'Offer' || t === 'AggregateOffer');
  if (products.length > 0) signals.push(`schema.org ${[...new Set(products)].join('/')} in JSON-LD`);
  const cart = [...derived.tag(page, 'a').map((el) => el.attribs['href'] ?? ''), ...derived.tag(page, 'form').map((el) => el.attribs['action'] ?? '')].find((href) =>
    COMMERCE_PATH.test(href),
  );
  if (cart) signals.push(`cart/checkout link ${cart}`);
  const payment = derived
    .tag(page, 'script')
    .map((el) => el.attribs['src'] ?? '')
    .find((src) => {
      if (src === '') return false;
      try {
        return PAYMENT_SCRIPT.test(new URL(src, page.finalUrl).hostname);
      } catch {
        return false;
      }
    });
  if (payment) signals.push(`payment-provider script ${payment}`);
  return signals;
}
