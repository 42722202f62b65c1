import { describe, expect, it } from 'vitest';
import { proxyContext } from '../../../test/helpers/proxy-context.js';
import { watchAbortStage } from './watch-abort.js';

// What a client leaving does to a call, once the stage watches for it: the HTTP layer calls `onAbort`.

describe('watch-abort stage', () => {
  it('records a running call as client_aborted and cancels its upstream request', () => {
    const c = proxyContext('chat');
    let cancelled = 0;
    watchAbortStage().run(c);
    c.cancelUpstream = () => cancelled++;
    c.http.onAbort!();
    expect(c.outcome).toBe('client_aborted');
    expect(cancelled).toBe(1);
  });

  it('keeps the outcome of a call that already ended otherwise (a block stays a block)', () => {
    const c = proxyContext('chat');
    watchAbortStage().run(c);
    c.outcome = 'blocked';
    c.http.onAbort!();
    expect(c.outcome).toBe('blocked');
  });

  it('is safe before anything was sent upstream', () => {
    const c = proxyContext('chat');
    expect(c.http.onAbort).toBeNull();
    watchAbortStage().run(c);
    expect(() => c.http.onAbort!()).not.toThrow();
    expect(c.outcome).toBe('client_aborted');
  });
});
