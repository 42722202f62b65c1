/** A running heartbeat loop; `stop()` ends it and waits for a beat in flight. */
export interface HeartbeatLoop {
  stop(): Promise<void>;
  /** Beats sent and failed so far. */
  readonly sent: number;
  readonly failed: number;
}

/**
 * Sends `beat` now and then every `intervalMs` (never two at once: the next waits for the previous). A failed beat is
 * reported to `onError` and the loop goes on; the timer does not keep the process alive.
 */
export function startHeartbeatLoop(beat: () => Promise<unknown>, intervalMs: number, onError: (err: unknown) => void): HeartbeatLoop {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let inFlight: Promise<void> = Promise.resolve();
  const counts = { sent: 0, failed: 0 };

  const run = (): void => {
    timer = null;
    if (stopped) return;
    inFlight = beat().then(
      () => {
        counts.sent++;
      },
      (err: unknown) => {
        counts.failed++;
        onError(err);
      },
    ).finally(() => {
      if (!stopped) {
        timer = setTimeout(run, intervalMs);
        timer.unref?.();
      }
    });
  };
  run();

  return {
    get sent() {
      return counts.sent;
    },
    get failed() {
      return counts.failed;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await inFlight;
    },
  };
}
