import type { ScannerConfig } from '../config.js';
import { ScannerError } from '../errors.js';
import { sharedPlugin } from './shared-plugin.js';

declare module 'fastify' {
  interface FastifyInstance {
    readonly inFlight: InFlight;
  }
}

/** Assessments being collected or judged now: each holds its page (up to the body cap) and its parsed tree. */
export interface InFlight {
  /** Takes a slot and gives back its release (idempotent), or throws 429 too_many_in_flight when all are taken. */
  acquire(): () => void;
}

/** An assessment takes a few seconds at most: a client refused for capacity may try again a second later. */
const RETRY_AFTER_S = 1;

export function createInFlight(max: number): InFlight {
  let running = 0;
  return {
    acquire() {
      if (running >= max) throw new ScannerError('too_many_in_flight', RETRY_AFTER_S);
      running++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        running--;
      };
    },
  };
}

/** Decorates the app with `inFlight`, sized by SCANNER_MAX_IN_FLIGHT. */
export const inFlightPlugin = sharedPlugin<{ config: ScannerConfig }>('in-flight', async (app, { config }) => {
  app.decorate('inFlight', createInFlight(config.maxInFlight));
});
