import { poll } from '../../../shared/test/helpers/poll.js';
import { call } from './start-test-gateway.js';

/** A proxied call's ledger entry, as `GET /v1/events` shows it. */
export interface ProxyEntry {
  event_type: string;
  payload: Record<string, unknown> & { usage?: { prompt_tokens: number } };
}

/**
 * The tenant's ledger entry of the proxied call that reported `promptTokens` input tokens: entries are committed just
 * after the answer, so it is polled for.
 */
export function entryWithPromptTokens(url: string, token: string, promptTokens: number): Promise<ProxyEntry> {
  return poll(
    async () => {
      const r = await call(url, 'GET', '/v1/events?limit=50&order=desc', { token });
      return (r.body.events as ProxyEntry[]).find((e) => e.payload.usage?.prompt_tokens === promptTokens);
    },
    { what: `the ledger entry of a call with ${promptTokens} input tokens` },
  ) as Promise<ProxyEntry>;
}
