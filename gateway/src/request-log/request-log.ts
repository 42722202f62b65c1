import { isoTime, type Logger, type SecretBox } from '@aduana/shared';
import { GatewayError } from '../errors.js';
import { NoticeSlot } from '../platform/notice-slot.js';
import type { Actor, RecordAdminAction } from '../governance/admin-actions.js';
import type { ToolCallRecord, ToolCallSampler } from '../mcp/mcp-record.js';
import type { ProxyContext } from '../proxy/proxy-context.js';
import type { GatewayStore } from '../storage/gateway-store.js';
import { changedSettings, REQUEST_LOG_DEFAULT, settingsView, type RequestLogChange, type RequestLogSettingsSource, type StoredRequestLogSettings } from './request-log-settings.js';
import { sampleOf, toolCallSampleOf, type RequestSample } from './request-sample.js';

/** A tenant's request-log settings changed on the main thread (`onChange`): a request thread reads them again (`reload`). */
export const REQUEST_LOG_CHANGES = new NoticeSlot<string>('request-log');

/** A sample as stored: when it was taken (for retention) and its texts sealed under REQUEST_LOG_KEY. */
interface RequestSampleRecord {
  at: number;
  sealed: Buffer;
}

/**
 * What a decision page shows of a call's sample: its texts; none (`not_sampled` while the log is on, `off` while it is
 * off); `unreadable` (sealed under another key, or not for this decision); `elsewhere` (a control plane: samples stay
 * at the sidecar that made them, whose instance id `sidecar` names when the decision's chain is known).
 */
export type SampleLookup = { kind: 'sampled'; sample: RequestSample } | { kind: 'not_sampled' } | { kind: 'off' } | { kind: 'unreadable' } | { kind: 'elsewhere'; sidecar: string | null };

const DAY_MS = 86_400_000;

/** Binds a sealed record to its tenant and decision: copied under another key, it does not open. */
function associated(tenantId: string, decisionId: string): string {
  return `aduana.request-sample.v1\u0000${tenantId}\u0000${decisionId}`;
}

/**
 * The opt-in, sampled log of proxied calls' and MCP tool calls' redacted texts (docs/console.md, "Request log"): each
 * tenant's settings in LMDB, the enabled tenants' sample rates in one map (what the proxy and the MCP gateway read per
 * call), and the samples, each sealed with AES-256-GCM bound to its tenant and decision. Without a key
 * (REQUEST_LOG_KEY) nothing can be enabled.
 */
export class RequestLog implements ToolCallSampler, RequestLogSettingsSource {
  /** tenant id -> sample rate, for enabled tenants only: a call of any other tenant costs one lookup. */
  readonly #rates = new Map<string, number>();
  /** Told when a tenant's settings changed here: request threads are told (REQUEST_LOG_CHANGES). */
  onChange: ((tenantId: string) => void) | null = null;
  #updates: Promise<unknown> = Promise.resolve();
  /**
   * While a tenant's change is being written: its settings still in force. LMDB shows a committed write before its
   * promise resolves; shown from the store then, a GET would say "off" while calls were still sampled and request
   * threads not yet told.
   */
  readonly #writing = new Map<string, StoredRequestLogSettings>();

  constructor(
    private readonly store: Pick<GatewayStore, 'requestLogSettings' | 'requestSamples' | 'root'>,
    private readonly box: SecretBox | undefined,
    private readonly logger: Logger,
  ) {
    for (const { key, value } of store.requestLogSettings.getRange({})) {
      const s = value as StoredRequestLogSettings;
      // A tenant enabled before the key was removed stays off until the key is back (and its samples unreadable).
      if (s.enabled && box) this.#rates.set(key as string, s.sample_rate);
    }
  }

  /** Whether a key is configured (without one the log cannot be enabled). */
  get keyed(): boolean {
    return this.box !== undefined;
  }

  settings(tenantId: string): StoredRequestLogSettings {
    return this.#writing.get(tenantId) ?? this.#stored(tenantId);
  }

  #stored(tenantId: string): StoredRequestLogSettings {
    return (this.store.requestLogSettings.get(tenantId) as StoredRequestLogSettings | undefined) ?? REQUEST_LOG_DEFAULT;
  }

  /** Writes a tenant's settings; what GET shows changes when the new ones are in force here, with no await between. */
  async #write(tenantId: string, before: StoredRequestLogSettings, next: StoredRequestLogSettings): Promise<void> {
    this.#writing.set(tenantId, before);
    try {
      await this.store.requestLogSettings.put(tenantId, next);
    } finally {
      this.#writing.delete(tenantId);
    }
  }

  /**
   * Applies a validated change, then chains it in the tenant's ledger (`settings.request_log_updated`, digests of the
   * settings before and after). Enabling without a key is refused before anything changes. Disabling keeps the
   * samples already taken: retention removes them.
   */
  update(tenantId: string, change: RequestLogChange, actor: Actor, traceId: string, onAdminAction: RecordAdminAction): Promise<StoredRequestLogSettings> {
    // One change at a time: each one's `before` is the previous one's `after`, in the ledger as in the store.
    const run = this.#updates.then(() => this.#update(tenantId, change, actor, traceId, onAdminAction));
    this.#updates = run.catch(() => undefined);
    return run;
  }

  async #update(tenantId: string, change: RequestLogChange, actor: Actor, traceId: string, onAdminAction: RecordAdminAction): Promise<StoredRequestLogSettings> {
    const before = this.settings(tenantId);
    const next = changedSettings(before, change, actor.by, isoTime(Date.now()));
    if (next.enabled && !this.box) throw new GatewayError('request_log_key_missing');
    await this.#write(tenantId, before, next);
    this.#follow(tenantId, next);
    this.onChange?.(tenantId);
    await onAdminAction(tenantId, { actor, action: 'settings.request_log_updated', target: 'request_log', before: settingsView(before), after: settingsView(next) }, traceId);
    return next;
  }

  /**
   * A sidecar's settings as its control plane's bundle carries them (docs/fleet.md, "The bundle"): stored and in force
   * here, not chained (the control plane chained the change); null, a tenant the bundle no longer carries, turns its
   * log off and keeps its retention (its samples are still pruned). Writes only what differs.
   */
  applyFromControlPlane(tenantId: string, s: StoredRequestLogSettings | null): Promise<void> {
    const run = this.#updates.then(() => this.#apply(tenantId, s));
    this.#updates = run.catch(() => undefined);
    return run;
  }

  async #apply(tenantId: string, s: StoredRequestLogSettings | null): Promise<void> {
    const cur = this.store.requestLogSettings.get(tenantId) as StoredRequestLogSettings | undefined;
    if (s === null && !cur?.enabled) return;
    const next: StoredRequestLogSettings = s ?? { ...cur!, enabled: false };
    if (cur && cur.enabled === next.enabled && cur.sample_rate === next.sample_rate && cur.retention_days === next.retention_days && cur.updated_at === next.updated_at && cur.updated_by === next.updated_by) return;
    if (!cur && !next.enabled && next.updated_at === null) return;
    await this.#write(tenantId, cur ?? REQUEST_LOG_DEFAULT, next);
    this.#follow(tenantId, next);
    this.onChange?.(tenantId);
  }

  /** Takes a tenant's settings as stored (another thread of the process changed them). */
  reload(tenantId: string): void {
    this.#follow(tenantId, this.#stored(tenantId));
  }

  #follow(tenantId: string, s: StoredRequestLogSettings): void {
    // Without a key the settings are kept (GET shows them) but nothing is sampled, as at start-up.
    if (s.enabled && this.box) this.#rates.set(tenantId, s.sample_rate);
    else this.#rates.delete(tenantId);
  }

  /**
   * Once a proxied call was answered and its decision indexed: one map lookup, and for an enabled tenant one draw;
   * a call not drawn costs nothing more. A drawn one's texts are read from the call (no copy was kept before), sealed
   * and written off the request path (the LMDB write is asynchronous).
   */
  afterCall(c: ProxyContext): void {
    const rate = this.#rates.get(c.principal!.tenantId);
    if (rate === undefined || (rate < 1 && Math.random() >= rate)) return;
    this.#keep(c);
  }

  #keep(c: ProxyContext): void {
    if (c.decisionId === '') return;
    this.#seal(c.principal!.tenantId, c.decisionId, (at) => sampleOf(c, at));
  }

  /**
   * An MCP tools/call's draw, made when it is judged (its redacted arguments are referenced only when drawn): the same
   * map lookup and draw as a proxied call's.
   */
  draws(tenantId: string): boolean {
    const rate = this.#rates.get(tenantId);
    return rate !== undefined && (rate >= 1 || Math.random() < rate);
  }

  /** A drawn tools/call, once recorded and indexed: its draft serialised, sealed and written (mcp/mcp-record.ts). */
  afterToolCall(r: ToolCallRecord): void {
    this.#seal(r.tenantId, r.decisionId, (at) => toolCallSampleOf(r, at));
  }

  #seal(tenantId: string, decisionId: string, sample: (at: string) => RequestSample): void {
    const box = this.box;
    if (!box) return;
    try {
      const now = Date.now();
      const sealed = box.sealBytes(JSON.stringify(sample(isoTime(now))), associated(tenantId, decisionId));
      const record: RequestSampleRecord = { at: now, sealed };
      this.store.requestSamples.put([tenantId, decisionId], record).catch((err: unknown) => this.logger.error({ err, tenantId }, 'a request-log sample could not be stored'));
    } catch (err) {
      this.logger.error({ err, tenantId }, 'a request-log sample could not be sealed');
    }
  }

  /** A decision's sample, the caller's tenant's only (the key starts with the tenant id, and the seal is bound to it). */
  lookup(tenantId: string, decisionId: string): SampleLookup {
    const record = this.store.requestSamples.get([tenantId, decisionId]) as RequestSampleRecord | undefined;
    if (!record) return this.#rates.has(tenantId) ? { kind: 'not_sampled' } : { kind: 'off' };
    if (!this.box) return { kind: 'unreadable' };
    try {
      return { kind: 'sampled', sample: JSON.parse(this.box.openBytes(Buffer.from(record.sealed), associated(tenantId, decisionId)).toString('utf8')) as RequestSample };
    } catch {
      // Another key, or a record not sealed for this decision.
      return { kind: 'unreadable' };
    }
  }

  /**
   * Deletes up to `limit` samples older than their tenant's retention_days (enabled or not: disabling keeps samples
   * until retention removes them) and says how many went; a caller loops until fewer than `limit` go.
   */
  async pruneExpired(now: number, limit: number): Promise<number> {
    const expired: [string, string][] = [];
    for (const { key, value } of this.store.requestLogSettings.getRange({})) {
      const tenantId = key as string;
      const cutoff = now - (value as StoredRequestLogSettings).retention_days * DAY_MS;
      for (const sample of this.store.requestSamples.getRange({ start: [tenantId], end: [tenantId, '\uffff'] })) {
        // Decision ids are ULIDs: a tenant's samples are in the order they were taken, the oldest first.
        if ((sample.value as RequestSampleRecord).at >= cutoff) break;
        expired.push(sample.key as [string, string]);
        if (expired.length >= limit) break;
      }
      if (expired.length >= limit) break;
    }
    if (expired.length === 0) return 0;
    let pruned = 0;
    await this.store.root.transaction(() => {
      for (const key of expired) if (this.store.requestSamples.removeSync(key)) pruned++;
    });
    return pruned;
  }
}
