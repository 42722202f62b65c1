import { chromium, type Browser } from 'playwright-core';

/**
 * The console tests' headless Chromium: the system's (installed by scripts/system-packages.sh), without the sandbox a
 * container lacks, and with nothing that would reach the internet (no QUIC, background networking, updates or sync).
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
