import { parseTargetUrl, type NetGuard } from '@aduana/shared';
import type { BrowserContext, Page, Request, Response } from 'playwright-core';
import { ScannerError } from '../errors.js';
import type { BrowserHost } from './browser-host.js';
import { LOOPBACK_THROUGH_PROXY } from './browser-host.js';
import { GuardProxy, REFUSED_HEADER } from './guard-proxy.js';
import type { Observation } from './observation-types.js';
import { PAGE_PROBE_SCRIPT, READ_METRICS_SCRIPT } from './page-probe-script.js';
import { thirdPartyHosts } from './third-party.js';

export interface ObserveDeps {
  readonly browsers: BrowserHost;
  /** Every request of the page goes through a proxy that checks it with this guard. */
  readonly guard: NetGuard;
  /** The whole observation, navigation to screenshot (docs/scanner.md: 30 s). */
  readonly budgetMs: number;
  /** After `load`, how long to wait for the network to go quiet before reading the metrics. */
  readonly settleMs: number;
  readonly connectTimeoutMs: number;
  readonly maxConsoleErrors: number;
  readonly signal?: AbortSignal;
}

const VIEWPORT = { width: 1366, height: 768 };
const LARGEST_KEPT = 10;
const CONSOLE_TEXT_CHARS = 300;
// Time kept back from the budget for reading the metrics and the screenshot.
const RESERVE_MS = 4_000;
// Quiet time after the network settles, for late layout shifts and the final LCP candidate.
const AFTER_IDLE_MS = 500;

interface ProbeValues {
  ttfb: number | null;
  fcp: number | null;
  domContentLoaded: number | null;
  load: number | null;
  lcp: number | null;
  lcpElement: { tag: string | null; url: string | null; size: number } | null;
  cls: number;
  longTaskMs: number;
  longTasks: number;
}

interface Transfer {
  readonly url: string;
  readonly type: string;
  readonly bytes: number;
  readonly failed: boolean;
}

/**
 * Renders one page in a fresh context of the warm browser (docs/scanner.md, "Rendered-page observation"): no login,
 * no interaction, no form; service workers blocked; every request through a GuardProxy of its own. Throws
 * ScannerError: `browser_missing` / `browser_crashed` (502), `blocked_destination` when the guard refused the page
 * itself, `target_unreachable` / `target_timeout` (502) when it did not load.
 */
export async function observePage(url: string, deps: ObserveDeps): Promise<Observation> {
  // Only http(s), no credentials: anything else (file:, chrome:, data:) never reaches the browser.
  try {
    parseTargetUrl(url);
  } catch (error) {
    throw new ScannerError('invalid_url', undefined, { cause: error });
  }
  const deadline = Date.now() + deps.budgetMs;
  const browser = await deps.browsers.browser();
  const proxy = await GuardProxy.start({ guard: deps.guard, connectTimeoutMs: deps.connectTimeoutMs, maxRefusalsKept: 50 });
  let context: BrowserContext | undefined;
  let crashed = false;
  const onDisconnect = (): void => {
    crashed = true;
  };
  browser.once('disconnected', onDisconnect);
  // The hard stop: past the budget (plus a grace for closing) the context is closed, which ends every wait below.
  let stoppedByUs = false;
  const stop = (): void => {
    stoppedByUs = true;
    void context?.close().catch(() => undefined);
  };
  const killer = setTimeout(stop, deps.budgetMs + 2_000);
  const onAbort = stop;
  deps.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    let page: Page;
    try {
      context = await browser.newContext({
        proxy: { server: proxy.url, bypass: LOOPBACK_THROUGH_PROXY, ...proxy.credential },
        serviceWorkers: 'block',
        viewport: VIEWPORT,
        acceptDownloads: false,
        permissions: [],
      });
      await context.addInitScript({ content: PAGE_PROBE_SCRIPT });
      page = await context.newPage();
    } catch (error) {
      // The browser went away while the context or its page was being made (a crash, or our budget stop).
      if (deps.signal?.aborted === true) throw deps.signal.reason;
      throw new ScannerError(stoppedByUs && !crashed ? 'target_timeout' : 'browser_crashed', undefined, { cause: error });
    }
    const transfers: Promise<Transfer>[] = [];
    context.on('requestfinished', (request) => transfers.push(transferOf(request, false)));
    context.on('requestfailed', (request) => transfers.push(transferOf(request, true)));
    const consoleErrors = collectConsoleErrors(page, deps.maxConsoleErrors);
    // A renderer that dies is a crash too, not an unreachable target.
    page.once('crash', onDisconnect);
    // The main document's last answer (after redirects), kept even when the load event never comes.
    let mainResponse: Response | null = null;
    page.on('response', (r) => {
      if (r.request().isNavigationRequest() && r.frame() === page.mainFrame()) mainResponse = r;
    });

    let response: Response | null = null;
    let budgetExceeded = false;
    try {
      response = await page.goto(url, { waitUntil: 'load', timeout: Math.max(1_000, deadline - Date.now() - RESERVE_MS) });
      mainResponse = response ?? mainResponse;
    } catch (error) {
      if (deps.signal?.aborted === true) throw deps.signal.reason;
      // The browser or the page went away under us (not our budget stop): a crash, whichever event arrived first.
      if (crashed || !browser.isConnected() || (isTargetClosed(error) && !stoppedByUs)) throw new ScannerError('browser_crashed', undefined, { cause: error });
      if (stoppedByUs) throw new ScannerError('target_timeout', undefined, { cause: error });
      if (proxy.refused.some((r) => sameDestination(r.destination, url))) throw new ScannerError('blocked_destination', undefined, { cause: error });
      if (!isTimeout(error)) throw new ScannerError('target_unreachable', undefined, { cause: error });
      budgetExceeded = true;
      if (mainResponse === null) throw new ScannerError('target_timeout', undefined, { cause: error });
      response = mainResponse;
    }
    // The page, or a redirect of it, was refused by the proxy: nothing of the target was rendered.
    if (response !== null && (await response.headerValue(REFUSED_HEADER)) !== null) throw new ScannerError('blocked_destination');
    if (!budgetExceeded) {
      const settle = Math.min(deps.settleMs, deadline - Date.now() - RESERVE_MS);
      if (settle > 0) await page.waitForLoadState('networkidle', { timeout: settle }).catch(() => undefined);
      const quiet = Math.min(AFTER_IDLE_MS, deadline - Date.now() - RESERVE_MS);
      if (quiet > 0) await page.waitForTimeout(quiet);
    }
    const probe = (await page.evaluate(READ_METRICS_SCRIPT).catch(() => null)) as ProbeValues | null;
    const shot = await page
      .screenshot({ type: 'jpeg', quality: 60, timeout: Math.max(500, deadline - Date.now()) })
      .catch(() => null);
    const done = await settled(transfers, Math.max(200, deadline - Date.now()));
    if (crashed) throw new ScannerError('browser_crashed');
    return summarise(url, page.url(), response, probe, done, consoleErrors, proxy, budgetExceeded || Date.now() > deadline, shot);
  } finally {
    clearTimeout(killer);
    deps.signal?.removeEventListener('abort', onAbort);
    browser.off('disconnected', onDisconnect);
    await context?.close().catch(() => undefined);
    await proxy.close();
  }
}

function summarise(
  url: string,
  finalUrl: string,
  response: Response | null,
  probe: ProbeValues | null,
  transfers: readonly Transfer[],
  consoleErrors: readonly string[],
  proxy: GuardProxy,
  budgetExceeded: boolean,
  shot: Buffer | null,
): Observation {
  const byType: Record<string, { count: number; bytes: number }> = {};
  let bytes = 0;
  let failed = 0;
  for (const t of transfers) {
    const entry = (byType[t.type] ??= { count: 0, bytes: 0 });
    entry.count++;
    entry.bytes += t.bytes;
    bytes += t.bytes;
    if (t.failed) failed++;
  }
  const largest = [...transfers]
    .filter((t) => !t.failed)
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, LARGEST_KEPT)
    .map(({ url: u, type, bytes: b }) => ({ url: u, type, bytes: b }));
  const round = (n: number | null | undefined): number | null => (typeof n === 'number' && Number.isFinite(n) ? Math.round(n) : null);
  return {
    url,
    finalUrl,
    status: response?.status() ?? null,
    timings: {
      ttfbMs: round(probe?.ttfb),
      fcpMs: round(probe?.fcp),
      lcpMs: round(probe?.lcp),
      domContentLoadedMs: round(probe?.domContentLoaded),
      loadMs: round(probe?.load),
    },
    cls: Math.round((probe?.cls ?? 0) * 10_000) / 10_000,
    longTasks: { count: probe?.longTasks ?? 0, totalMs: round(probe?.longTaskMs) ?? 0 },
    lcpElement: probe?.lcpElement ?? null,
    requests: { total: transfers.length, failed, bytes, byType },
    largestResources: largest,
    thirdPartyHosts: thirdPartyHosts(finalUrl, transfers.map((t) => t.url)),
    consoleErrors,
    refusedRequests: proxy.refused,
    refusedCount: proxy.refusedCount,
    budgetExceeded,
    screenshot: shot === null ? null : { mediaType: 'image/jpeg', ...VIEWPORT, base64: shot.toString('base64') },
  };
}

async function transferOf(request: Request, failed: boolean): Promise<Transfer> {
  let bytes = 0;
  if (!failed) {
    const sizes = await request.sizes().catch(() => null);
    if (sizes !== null) bytes = Math.max(0, sizes.responseBodySize) + Math.max(0, sizes.responseHeadersSize);
  }
  return { url: request.url(), type: request.resourceType(), bytes, failed };
}

function collectConsoleErrors(page: Page, max: number): string[] {
  const errors: string[] = [];
  const keep = (text: string): void => {
    if (errors.length < max) errors.push(text.length > CONSOLE_TEXT_CHARS ? `${text.slice(0, CONSOLE_TEXT_CHARS - 1)}…` : text);
  };
  page.on('console', (message) => {
    if (message.type() === 'error') keep(message.text());
  });
  page.on('pageerror', (error) => keep(`${error.name}: ${error.message}`));
  return errors;
}

/** The transfers that finished within `ms`; later ones are left out rather than waited for. */
async function settled(transfers: readonly Promise<Transfer>[], ms: number): Promise<Transfer[]> {
  const done: Transfer[] = [];
  const all = Promise.all(transfers.map((t) => t.then((v) => void done.push(v))));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([all, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
  return done;
}

function isTargetClosed(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TargetClosedError' || /has been closed|crashed/i.test(error.message));
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

function sameDestination(refused: string, url: string): boolean {
  try {
    const u = new URL(url);
    return refused === u.href || refused === u.host || refused === `${u.hostname}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return false;
  }
}
