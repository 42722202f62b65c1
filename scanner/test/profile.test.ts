import { describe, expect, it } from 'vitest';
import { assess } from '../src/assessment/assess.js';
import { Derived } from '../src/checks/derived.js';
import { detectProfile } from '../src/profile/detect-profile.js';
import { COMMERCE_HTML, GOOD_HEADERS, GOOD_HTML } from './fixtures/pages.js';
import { apiSnapshot, goodSnapshot, page } from './fixtures/snapshots.js';

describe('profile auto-detection (docs/decisions.md)', () => {
  it('api when the page answers JSON or problem+json', () => {
    expect(detectProfile(apiSnapshot(), new Derived()).profile).toBe('api');
    const problem = goodSnapshot({ page: page('{"type":"about:blank"}', { 'content-type': 'application/problem+json' }) });
    expect(detectProfile(problem, new Derived()).profile).toBe('api');
  });

  it('api when an OpenAPI document is found, even with an HTML page', () => {
    const snap = { ...goodSnapshot(), openapi: apiSnapshot().openapi! };
    expect(detectProfile(snap, new Derived())).toEqual({ profile: 'api', signals: ['OpenAPI document at https://cafe.example/openapi.json'] });
  });

  it('commerce on schema.org Product/Offer, a cart link or a payment-provider script', () => {
    const detected = detectProfile(goodSnapshot({ page: page(COMMERCE_HTML, GOOD_HEADERS) }), new Derived());
    expect(detected.profile).toBe('commerce');
    expect(detected.signals).toEqual(['schema.org Product/Offer in JSON-LD', 'cart/checkout link /carrinho']);
    const stripe = goodSnapshot({ page: page(GOOD_HTML.replace('</body>', '<script src="https://js.stripe.com/v3/"></script></body>'), GOOD_HEADERS) });
    expect(detectProfile(stripe, new Derived()).signals).toEqual(['payment-provider script https://js.stripe.com/v3/']);
  });

  it('content otherwise', () => {
    expect(detectProfile(goodSnapshot(), new Derived()).profile).toBe('content');
  });
});

describe('commerceRisk', () => {
  it('is null unless the resolved profile is commerce', () => {
    expect(assess(goodSnapshot(), { requestId: 'r' }).assessment.commerceRisk).toBeNull();
    expect(assess(goodSnapshot(), { requestId: 'r', profile: 'api' }).assessment.commerceRisk).toBeNull();
  });

  it('is low for a well-run shop and lists why it is a shop', () => {
    const { assessment } = assess(goodSnapshot({ page: page(COMMERCE_HTML, GOOD_HEADERS) }), { requestId: 'r' });
    expect(assessment.profile).toBe('commerce');
    expect(assessment.commerceRisk).toEqual({ level: 'low', signals: ['commerce detected: schema.org Product/Offer in JSON-LD', 'commerce detected: cart/checkout link /carrinho'] });
  });

  it('is high for a shop served over plain HTTP', () => {
    const snap = goodSnapshot({ page: page(COMMERCE_HTML, GOOD_HEADERS, { finalUrl: 'http://cafe.example/' }) });
    const risk = assess(snap, { requestId: 'r', profile: 'commerce' }).assessment.commerceRisk;
    expect(risk?.level).toBe('high');
    expect(risk?.signals).toContain('checkout pages not served over HTTPS');
  });

  it('says what is true of HSTS: absent, or present but short', () => {
    const { 'strict-transport-security': _hsts, ...noHsts } = GOOD_HEADERS;
    const absent = assess(goodSnapshot({ page: page(COMMERCE_HTML, noHsts) }), { requestId: 'r', profile: 'commerce' }).assessment.commerceRisk;
    expect(absent?.signals).toContain('no HSTS: first visits can be downgraded to HTTP');
    const short = assess(goodSnapshot({ page: page(COMMERCE_HTML, { ...GOOD_HEADERS, 'strict-transport-security': 'max-age=300' }) }), { requestId: 'r', profile: 'commerce' }).assessment.commerceRisk;
    const signal = short?.signals.find((x) => x.includes('HSTS')) ?? '';
    expect(signal).not.toMatch(/no HSTS/);
    expect(signal).toMatch(/^HSTS present but short/);
    expect(signal).toContain('max-age=300');
  });
});
