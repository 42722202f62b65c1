import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { CONSOLE_CSS } from './assets/console-css.js';
import { CONSOLE_JS } from './assets/console-js.js';
import { LOCAL_TIME_JS } from './assets/local-time-js.js';

export interface Asset {
  body: Buffer;
  type: string;
}

/**
 * The console's static files, read once at start and served by the service itself (no CDN, nothing fetched at run
 * time): its stylesheet and script, and uPlot from the installed package.
 */
export function loadConsoleAssets(): ReadonlyMap<string, Asset> {
  const require = createRequire(import.meta.url);
  const uplotJs = readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'));
  const uplotCss = readFileSync(require.resolve('uplot/dist/uPlot.min.css'));
  return new Map<string, Asset>([
    ['console.css', { body: Buffer.from(CONSOLE_CSS), type: 'text/css; charset=utf-8' }],
    ['console.js', { body: Buffer.from(CONSOLE_JS), type: 'text/javascript; charset=utf-8' }],
    ['local-time.js', { body: Buffer.from(LOCAL_TIME_JS), type: 'text/javascript; charset=utf-8' }],
    ['uplot.js', { body: uplotJs, type: 'text/javascript; charset=utf-8' }],
    ['uplot.css', { body: uplotCss, type: 'text/css; charset=utf-8' }],
  ]);
}
