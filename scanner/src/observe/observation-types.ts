import type { RefusedRequest } from './guard-proxy.js';

/** What one rendered-page observation answers (docs/scanner.md, "Rendered-page observation"). Times in ms. */
export interface Observation {
  readonly url: string;
  /** Where the browser ended up after redirects (each one checked by the guard). */
  readonly finalUrl: string;
  /** Status of the main document's answer. */
  readonly status: number | null;
  readonly timings: {
    /** Time to first byte of the main document, from navigation start. */
    readonly ttfbMs: number | null;
    readonly fcpMs: number | null;
    readonly lcpMs: number | null;
    readonly domContentLoadedMs: number | null;
    readonly loadMs: number | null;
  };
  /** The largest session window of unexpected layout shifts (unitless). */
  readonly cls: number;
  readonly longTasks: { readonly count: number; readonly totalMs: number };
  /** What the largest contentful paint was: its tag, the image URL when it was one, its painted size in px². */
  readonly lcpElement: { readonly tag: string | null; readonly url: string | null; readonly size: number } | null;
  readonly requests: {
    readonly total: number;
    readonly failed: number;
    /** Bytes received (headers and body as transferred). */
    readonly bytes: number;
    /** Per Playwright resource type: document, stylesheet, image, media, font, script, fetch, xhr, websocket, other… */
    readonly byType: Readonly<Record<string, { readonly count: number; readonly bytes: number }>>;
  };
  /** The heaviest responses, largest first. */
  readonly largestResources: readonly { readonly url: string; readonly type: string; readonly bytes: number }[];
  /** Hosts of another site than the page's that the page requested, sorted. */
  readonly thirdPartyHosts: readonly string[];
  readonly consoleErrors: readonly string[];
  /** Requests the address guard refused (private, loopback, metadata destinations…). */
  readonly refusedRequests: readonly RefusedRequest[];
  readonly refusedCount: number;
  /** True when the 30 s budget ran out before the page settled: the figures are what was seen until then. */
  readonly budgetExceeded: boolean;
  readonly screenshot: { readonly mediaType: 'image/jpeg'; readonly width: number; readonly height: number; readonly base64: string } | null;
}
