import type { Egress, Logger } from '@aduana/shared';
import { GatewayError } from '../../errors.js';
import type { GatewayConfig } from '../../config.js';
import type { GatewayStore } from '../../storage/gateway-store.js';
import type { TenantRuntimes } from '../../policy/runtime/tenant-runtime.js';
import type { AgentRegistry } from '../../agents/agent-registry.js';
import type { RouteInfo, RouteOptions } from '../../http/server.js';
import type { RequestContext } from '../../http/request-context.js';
import { BundleApplier, type BundledRouting } from './bundle-applier.js';
import { BundleClient, type BundleClientStatus } from './bundle-client.js';
import { instanceId } from './instance-id.js';
import type { EventsLedger } from '../../ledger/index.js';
import { planChangedEntry } from '../../identity/tenants/plan-change.js';
import { LedgerShipper, type ShipperStatus } from '../shipping/ledger-shipper.js';
import { ShipCursorStore } from '../shipping/ship-cursor-store.js';
import type { DecisionRecord, DecisionStore } from '../../governance/decisions/decision-store.js';
import { ResolutionApplier } from './resolution-applier.js';
import { AgentReporter, type AgentReporterStatus } from './agent-reporter.js';
import { TelemetryShipper, type TelemetryShipperStatus } from './telemetry-shipper.js';
import type { MetricStore } from '../../telemetry/metric-store.js';
import type { TelemetryService } from '../../telemetry/telemetry-service.js';
import type { RequestLog } from '../../request-log/request-log.js';

/** What `/health` says of a sidecar's bundle. */
export interface SidecarHealth {
  control_plane: string;
  instance_id: string;
  bundle: {
    revision: number;
    applied_at: string | null;
    age_s: number | null;
    last_success: string | null;
    last_error: string | null;
    /** Bundles taken, and refused (malformed, or policies that do not compile), since start. */
    applied: number;
    refused: number;
  };
  /** The ledger's shipping to the control plane: what is not acknowledged yet, per chain. */
  shipping: ShipperStatus;
  /** Reports of the agents seen here, to the control plane. */
  agent_reports: AgentReporterStatus;
  /** Resolutions of held decisions made at the control plane and applied here, since start. */
  resolutions_applied: number;
  /** Telemetry (metric samples, logs, error events) shipped to the control plane. */
  telemetry: TelemetryShipperStatus;
}

/**
 * A gateway with CONTROL_PLANE_URL set (docs/fleet.md, "Sidecars"): its tenants, tokens, users and policies come from
 * the control plane's bundle, kept in its own LMDB and served from there while the control plane is away; it refuses
 * traffic until it has had a bundle, and refuses admin writes (they belong to the control plane).
 */
export class SidecarMode {
  private constructor(
    readonly instanceId: string,
    readonly applier: BundleApplier,
    readonly client: BundleClient,
    readonly shipper: LedgerShipper,
    readonly reporter: AgentReporter,
    readonly telemetry: TelemetryShipper,
    private readonly resolutions: ResolutionApplier,
    private readonly controlPlaneUrl: string,
  ) {}

  static async open(
    config: GatewayConfig,
    store: GatewayStore,
    runtimes: TenantRuntimes,
    agents: AgentRegistry,
    ledger: EventsLedger,
    logger: Logger,
    decisions: DecisionStore,
    recordResolution: (d: DecisionRecord) => Promise<void>,
    egress: Egress,
    requestLog: RequestLog,
    routing: BundledRouting,
  ): Promise<SidecarMode> {
    const dispatcher = egress.dispatcher;
    const id = await instanceId(store.fleet);
    const resolutions = new ResolutionApplier(id, decisions, recordResolution, logger);
    const applier = new BundleApplier(
      store,
      runtimes,
      agents,
      logger,
      (tenantId, list) => resolutions.apply(tenantId, list),
      // Each sidecar records a plan change in its own ledger as it takes it (the control plane's own chain has it too).
      async (tenantId, change, revision) => {
        await ledger.append(tenantId, [planChangedEntry(change, { bundle_revision: revision })]);
      },
      // The request log settings are the control plane's (chained there); samples are taken and kept here.
      (tenantId, settings) => requestLog.applyFromControlPlane(tenantId, settings),
      // Routes are the control plane's (chained there); the credentials they name are resolved here.
      routing,
    );
    const client = new BundleClient(
      { controlPlaneUrl: config.controlPlaneUrl, sidecarToken: config.sidecarToken, waitS: config.fleetBundleWaitS, retryBaseMs: config.fleetRetryBaseMs, retryMaxMs: config.fleetRetryMaxMs, egress },
      applier,
      logger,
    );
    // The local ledger is the outbox: the shipper keeps only how far the control plane acknowledged each chain.
    const shipper = new LedgerShipper({
      ledger,
      cursors: new ShipCursorStore(store.shipCursors),
      instanceId: id,
      controlPlaneUrl: config.controlPlaneUrl,
      sidecarToken: config.sidecarToken,
      batchMax: config.shipBatchMax,
      batchBytes: config.shipBatchBytes,
      intervalMs: config.shipIntervalMs,
      backoffBaseMs: config.shipBackoffBaseMs,
      backoffMaxMs: config.shipBackoffMaxMs,
      timeoutMs: config.shipTimeoutMs,
      lingerMs: config.shipLingerMs,
      dispatcher,
      onError: (err) => logger.warn({ err }, 'ledger shipping to the control plane failed; retrying'),
    });
    const reporter = new AgentReporter({
      agents,
      controlPlaneUrl: config.controlPlaneUrl,
      sidecarToken: config.sidecarToken,
      intervalMs: config.fleetAgentReportMs,
      batchMax: config.fleetAgentReportMax,
      backoffBaseMs: config.fleetRetryBaseMs,
      backoffMaxMs: config.fleetRetryMaxMs,
      timeoutMs: config.shipTimeoutMs,
      dispatcher,
      logger,
    });
    const telemetry = new TelemetryShipper({
      fleet: store.fleet,
      instanceId: id,
      controlPlaneUrl: config.controlPlaneUrl,
      sidecarToken: config.sidecarToken,
      intervalMs: config.fleetTelemetryShipMs,
      batchMax: config.fleetTelemetryBatchMax,
      bodyLimit: config.fleetTelemetryBodyLimit,
      queueMax: config.fleetTelemetryQueueMax,
      queueMaxBytes: config.fleetTelemetryQueueMaxBytes,
      backoffBaseMs: config.fleetRetryBaseMs,
      backoffMaxMs: config.fleetRetryMaxMs,
      timeoutMs: config.shipTimeoutMs,
      dispatcher,
      logger,
    });
    return new SidecarMode(id, applier, client, shipper, reporter, telemetry, resolutions, config.controlPlaneUrl);
  }

  /** Ships the telemetry stored from now on: every metric flush's samples, every log and error event. */
  shipTelemetry(metrics: MetricStore, telemetry: TelemetryService): void {
    metrics.observeFlush(this.telemetry.onMetrics);
    telemetry.shipTo(this.telemetry);
    // At close, what the stores still buffer is queued (and kept) before the queue is.
    this.telemetry.flushBeforeClose(() => Promise.all([metrics.flush(), telemetry.errors.flush()]));
  }

  start(): void {
    this.client.start();
    this.shipper.start();
    this.reporter.start();
    this.telemetry.start();
  }

  get status(): Readonly<BundleClientStatus> {
    return this.client.status;
  }

  /** Before the first bundle ever, every authenticated request is refused with 503 saying why. */
  requireBundle(): void {
    if (this.applier.current) return;
    const why = this.client.status.lastError;
    throw new GatewayError(
      'no_bundle',
      why
        ? `this sidecar has no bundle from its control plane (${this.controlPlaneUrl}) yet: ${why}`
        : `this sidecar has not received its first bundle from its control plane (${this.controlPlaneUrl}) yet`,
    );
  }

  /**
   * The HTTP servers' route guard: admin writes (the API's and the console's) answer 409 sidecar_read_only, naming the
   * control plane.
   */
  readonly routeGuard = (route: RouteInfo, options: RouteOptions): ((ctx: RequestContext) => void) | null => {
    if (options.scope !== 'admin:manage' || route.method === 'get') return null;
    const refusal = this.#refusal();
    return () => {
      throw new GatewayError('sidecar_read_only', refusal);
    };
  };

  // Agents' suspend and resume and held decisions' resolve are served there too (docs/fleet.md).
  #refusal(): string {
    return `this gateway is a sidecar: make this change at its control plane, ${this.controlPlaneUrl} (its API and console serve every admin change, agents' suspend and resume and held decisions' resolve included)`;
  }

  health(): SidecarHealth {
    const current = this.applier.current;
    const status = this.client.status;
    return {
      control_plane: this.controlPlaneUrl,
      instance_id: this.instanceId,
      bundle: {
        revision: current?.revision ?? 0,
        applied_at: current?.applied_at ?? null,
        age_s: current ? Math.max(0, Math.round((Date.now() - Date.parse(current.applied_at)) / 1000)) : null,
        last_success: status.lastSuccess,
        last_error: status.lastError,
        applied: this.applier.applied,
        refused: this.applier.refused,
      },
      shipping: this.shipper.status(),
      agent_reports: { ...this.reporter.status },
      resolutions_applied: this.resolutions.applied,
      telemetry: this.telemetry.status(),
    };
  }

  async close(): Promise<void> {
    await Promise.all([this.client.close(), this.shipper.close(), this.reporter.close(), this.telemetry.close()]);
  }
}
