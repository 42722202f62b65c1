import type { ScannerConfig } from '../config.js';
import type { BrowserHost } from './browser-host.js';
import type { ObserveDeps } from './observe-page.js';

/** An observation's settings from the configuration, around the service's warm browser. */
export function observeDepsOf(config: ScannerConfig, browsers: BrowserHost, signal?: AbortSignal): ObserveDeps {
  return {
    browsers,
    guard: browsers.guard,
    budgetMs: config.observeBudgetMs,
    settleMs: config.observeSettleMs,
    connectTimeoutMs: config.fetchTimeoutMs,
    maxConsoleErrors: config.observeMaxConsoleErrors,
    ...(signal === undefined ? {} : { signal }),
  };
}
