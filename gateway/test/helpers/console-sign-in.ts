import type { Browser, BrowserContextOptions, Page } from 'playwright-core';

/**
 * Signs a person in to the console through its login form, in a new browser context, and returns the page on the
 * overview. Page errors and console errors are appended to `problems`, for the test to assert there were none.
 */
export async function signInToConsole(
  browser: Browser,
  authUrl: string,
  email: string,
  password: string,
  problems: string[],
  context: BrowserContextOptions = {},
): Promise<Page> {
  const page = await (await browser.newContext(context)).newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  await page.goto(`${authUrl}/console/login`);
  await page.fill('input[name=email]', email);
  await page.fill('input[name=password]', password);
  await Promise.all([page.waitForURL(`${authUrl}/console`), page.click('button[type=submit]')]);
  return page;
}
