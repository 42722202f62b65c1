import { access, constants } from 'node:fs/promises';
import { chromium, type Browser } from 'playwright-core';
import type { NetGuard } from '@aduana/shared';
import { ScannerError } from '../errors.js';
import { GuardProxy } from './guard-proxy.js';

export interface BrowserHostOptions {
  /** Debian's Chromium by default (`bash scripts/system-packages.sh` installs it). */
  readonly executablePath: string;
  readonly launchTimeoutMs: number;
  /** Guards the browser's own traffic (anything outside an observation's context, which has its own proxy). */
  readonly guard: NetGuard;
  readonly connectTimeoutMs: number;
}

/** Chromium skips proxies for loopback by default; this rule sends loopback through the proxy too. */
export const LOOPBACK_THROUGH_PROXY = '<-loopback>';

/**
 * Chromium flags: no GPU, no QUIC (UDP would leave the proxy), WebRTC kept off UDP, nothing the browser does on its
 * own (updates, sync, safe browsing, DNS prefetch); and every host name resolves to nothing, so only the proxy (an IP
 * literal) can be reached even if a request tried to bypass it.
 */
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-domain-reliability',
  '--disable-client-side-phishing-detection',
  '--dns-prefetch-disable',
  '--disable-features=NetworkPrediction,InterestFeedContentSuggestions,MediaRouter,OptimizationHints',
  '--force-webrtc-ip-handling-policy',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  '--mute-audio',
];

/**
 * One Chromium kept warm and shared by the observations (each gets its own context). Launched on first use, so the
 * scanner starts without Chromium; launched again after a crash; closed with the service.
 */
export class BrowserHost {
  readonly #options: BrowserHostOptions;
  #browser: Promise<Browser> | undefined;
  #proxy: GuardProxy | undefined;
  #closed = false;

  constructor(options: BrowserHostOptions) {
    this.#options = options;
  }

  /** Throws ScannerError `browser_missing` when Chromium is not installed, `browser_crashed` when it fails to start. */
  async browser(): Promise<Browser> {
    if (this.#closed) throw new ScannerError('browser_crashed');
    this.#browser ??= this.#launch();
    try {
      return await this.#browser;
    } catch (error) {
      this.#browser = undefined;
      throw error;
    }
  }

  /** The guard every request of the browser goes through (observations use it for their own proxies). */
  get guard(): NetGuard {
    return this.#options.guard;
  }

  /** Whether a browser is running now (for the health of the service, not a reason to launch one). */
  get running(): boolean {
    return this.#browser !== undefined;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const pending = this.#browser;
    this.#browser = undefined;
    if (pending !== undefined) await pending.then((b) => b.close()).catch(() => undefined);
    await this.#proxy?.close();
    this.#proxy = undefined;
  }

  async #launch(): Promise<Browser> {
    try {
      await access(this.#options.executablePath, constants.X_OK);
    } catch (error) {
      throw new ScannerError('browser_missing', undefined, { cause: error });
    }
    this.#proxy ??= await GuardProxy.start({ guard: this.#options.guard, connectTimeoutMs: this.#options.connectTimeoutMs, maxRefusalsKept: 0 });
    let browser: Browser;
    try {
      browser = await chromium.launch({
        executablePath: this.#options.executablePath,
        args: ARGS,
        proxy: { server: this.#proxy.url, bypass: LOOPBACK_THROUGH_PROXY, ...this.#proxy.credential },
        timeout: this.#options.launchTimeoutMs,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch (error) {
      throw new ScannerError('browser_crashed', undefined, { cause: error });
    }
    browser.once('disconnected', () => {
      // A crash: the next observation launches a fresh one.
      if (this.#browser !== undefined && !this.#closed) this.#browser = undefined;
    });
    return browser;
  }
}
