import { describe, expect, it } from 'vitest';
import { createScannerApp, startScanner } from '../../src/index.js';
import { testScannerConfig } from '../helpers/test-config.js';

const CHROMIUM = process.env.SCANNER_CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('the service and its browser', () => {
  it('starts and answers without Chromium; an observation would then be browser_missing', async () => {
    const scanner = await startScanner(testScannerConfig({}, { port: 0, logLevel: 'silent', chromiumPath: '/nonexistent/chromium' }));
    try {
      const res = await fetch(`${scanner.url}/healthz`);
      expect(res.status).toBe(200);
    } finally {
      await scanner.close();
    }
    const app = createScannerApp(testScannerConfig({}, { logLevel: 'silent', chromiumPath: '/nonexistent/chromium' }));
    await app.ready();
    expect(app.browsers.running).toBe(false);
    await expect(app.browsers.browser()).rejects.toMatchObject({ code: 'browser_missing', status: 502 });
    await app.close();
  });

  it('launches nothing until asked, keeps one browser, and closes it with the service', async () => {
    const app = createScannerApp(testScannerConfig({}, { logLevel: 'silent', chromiumPath: CHROMIUM }));
    await app.ready();
    expect(app.browsers.running).toBe(false);
    const browser = await app.browsers.browser();
    expect(browser.isConnected()).toBe(true);
    expect(await app.browsers.browser()).toBe(browser);
    await app.close();
    expect(browser.isConnected()).toBe(false);
  });
});
