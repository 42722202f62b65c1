import { describe, expect, it } from 'vitest';
import { GOOD_HEADERS, GOOD_HTML } from './fixtures/pages.js';
import { goodSnapshot, page } from './fixtures/snapshots.js';
import { runOne } from './run-one.js';

const replaced = (from: string | RegExp, to: string) => goodSnapshot({ page: page(GOOD_HTML.replace(from, to), GOOD_HEADERS) });

describe('privacy checks', () => {
  it('trackers: none passes; script src and inline snippets are named', () => {
    expect(runOne('privacy.third-party-trackers', goodSnapshot()).status).toBe('pass');
    const r = runOne('privacy.third-party-trackers', replaced('</body>', `<script async src="https://www.googletagmanager.com/gtag/js?id=G-1"></script><script>fbq('init', '123');</script></body>`));
    expect(r.finding?.severity).toBe('Low');
    expect(r.finding?.evidence).toContain('Google Tag Manager: <script src="https://www.googletagmanager.com/gtag/js?id=G-1">');
    expect(r.finding?.evidence).toContain('Meta Pixel');
  });

  it('trackers: more than three is Medium', () => {
    const many = ['https://www.google-analytics.com/a.js', 'https://static.hotjar.com/c.js', 'https://www.clarity.ms/tag/x', 'https://connect.facebook.net/en_US/fbevents.js'];
    const r = runOne('privacy.third-party-trackers', replaced('</body>', `${many.map((s) => `<script src="${s}"></script>`).join('')}</body>`));
    expect(r.finding?.severity).toBe('Medium');
    expect(r.finding?.title).toBe('4 third-party tracker(s) load with the page');
  });

  it('privacy policy link: found by text or address; absent is Medium', () => {
    expect(runOne('privacy.privacy-policy-link', goodSnapshot()).evidence).toContain('/privacidade');
    expect(runOne('privacy.privacy-policy-link', replaced('<a href="/privacidade">Política de privacidade</a>', '<a href="/legal/privacy-notice">Legal</a>')).status).toBe('pass');
    const r = runOne('privacy.privacy-policy-link', replaced('<a href="/privacidade">Política de privacidade</a>', ''));
    expect(r.finding?.severity).toBe('Medium');
  });
});
