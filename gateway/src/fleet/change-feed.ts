/**
 * The revision of everything a bundle carries, and a way to wait for the next one (the bundle endpoint's long-poll).
 * PostgreSQL: a counter bumped by triggers and announced with NOTIFY; tests may use an in-process one.
 */
export interface ChangeFeed {
  /** The current revision (0 before any change). */
  revision(): number;
  /** Resolves with the revision once it is greater than `after`, or with the current one after `timeoutMs`. */
  waitForChange(after: number, timeoutMs: number, signal?: AbortSignal): Promise<number>;
  close(): Promise<void>;
}
