import { createScannerApp, type ScannerAppOptions } from './app.js';
import { loadScannerConfig, type ScannerConfig } from './config.js';

export interface RunningScanner {
  /** e.g. http://127.0.0.1:8082 */
  readonly url: string;
  /** The API key made by this start on an empty data directory (print it once); undefined otherwise. */
  readonly bootstrapKey: string | undefined;
  close(): Promise<void>;
}

/**
 * Starts the scanner on HOST:SCANNER_PORT (the CLI's `aduana scanner` calls this with no argument). Config comes from
 * the environment when not given; a bad value throws ConfigError naming the key, before anything listens.
 */
export async function startScanner(config: ScannerConfig = loadScannerConfig(), options: ScannerAppOptions = {}): Promise<RunningScanner> {
  const app = createScannerApp(config, options);
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = address !== null && typeof address === 'object' ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    bootstrapKey: app.bootstrapKey,
    // Idempotent: a second close (signal handler plus shutdown hook) waits for the first.
    close: () => (closing ??= app.close().then(() => undefined)),
  };
}
