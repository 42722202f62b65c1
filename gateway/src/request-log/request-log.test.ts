import { describe, expect, it, vi } from 'vitest';
import { createLogger, secretBoxFrom } from '@aduana/shared';
import { tempGatewayStores } from '../../test/helpers/temp-gateway-store.js';
import { REQUEST_LOG_DEFAULT, type StoredRequestLogSettings } from './request-log-settings.js';
import { RequestLog } from './request-log.js';

const KEY = 'ab'.repeat(32);
const on: StoredRequestLogSettings = { ...REQUEST_LOG_DEFAULT, enabled: true, sample_rate: 1, updated_at: '2026-12-01T00:00:00.000Z', updated_by: 'admin' };
const off: StoredRequestLogSettings = { ...on, enabled: false, updated_at: '2026-12-02T00:00:00.000Z' };

const stores = tempGatewayStores('request-log-');

describe('the request log settings', () => {
  it('show a change only once it is in force: a committed write whose promise has not resolved yet still shows the settings before it', async () => {
    const store = stores.open();
    await store.requestLogSettings.put('t1', on);
    const log = new RequestLog(store, secretBoxFrom(KEY, 'requestLogKey', 'REQUEST_LOG_KEY'), createLogger('test', { level: 'silent' }));
    const told: string[] = [];
    log.onChange = (tenantId) => told.push(tenantId);

    // The write commits (other readers see it) but its promise waits: the window in which LMDB is ahead of the log.
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const db = store.requestLogSettings;
    const put = db.put.bind(db);
    vi.spyOn(db, 'put').mockImplementation((key, value) => put(key, value).then(async (ok) => (await held, ok)));

    const applying = log.applyFromControlPlane('t1', off);
    await vi.waitFor(() => expect((db.get('t1') as StoredRequestLogSettings).enabled).toBe(false));
    expect(log.settings('t1').enabled).toBe(true);
    expect(log.draws('t1')).toBe(true);
    expect(told).toEqual([]);

    release();
    await applying;
    expect(log.settings('t1')).toEqual(off);
    expect(log.draws('t1')).toBe(false);
    expect(told).toEqual(['t1']);
  });
});
