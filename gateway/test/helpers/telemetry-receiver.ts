import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseEnvelope } from '@sentry/core';

/** One OTLP log record as the OTLP JSON mapping carries it, flattened for assertions. */
export interface ReceivedLog {
  body: string;
  severityText: string;
  attributes: Record<string, unknown>;
}

export interface ReceivedMetricPoint {
  name: string;
  attributes: Record<string, unknown>;
  /** A sum's or gauge's value (OTLP JSON gives an integer as `asInt`, a string or a number); undefined for a histogram. */
  value: number | undefined;
}

export interface ReceivedError {
  message: string;
  level: string;
  tags: Record<string, string>;
  fingerprint: string[];
}

type Mode = 'ok' | 'fail' | 'reset';

interface OtlpKeyValue {
  key: string;
  value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
}

function attributes(list: OtlpKeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list ?? []) out[kv.key] = kv.value.stringValue ?? kv.value.intValue ?? kv.value.doubleValue ?? kv.value.boolValue;
  return out;
}

/**
 * A loopback stand-in for an OpenTelemetry collector (OTLP/HTTP JSON on /v1/logs and /v1/metrics, decoded with the
 * OTLP JSON mapping) and a Sentry-compatible tracker (envelopes on /api/{project}/envelope/, parsed with @sentry/core's
 * parseEnvelope). `mode` makes it answer 500 or drop connections, as a provider that is down.
 */
export class TelemetryReceiver {
  readonly logs: ReceivedLog[] = [];
  readonly metrics: ReceivedMetricPoint[] = [];
  readonly errors: ReceivedError[] = [];
  readonly rawBodies: string[] = [];
  /** Headers of every OTLP request received. */
  readonly otlpHeaders: Record<string, string | string[] | undefined>[] = [];
  mode: Mode = 'ok';
  #server: Server | null = null;
  url = '';

  async start(): Promise<this> {
    this.#server = createServer((req, res) => {
      void this.#body(req).then((raw) => {
        if (this.mode === 'reset') {
          req.socket.destroy();
          return;
        }
        if (this.mode === 'fail') {
          res.writeHead(500).end('down');
          return;
        }
        this.rawBodies.push(raw.toString('utf8'));
        const path = (req.url ?? '').split('?')[0];
        if (path === '/v1/logs' || path === '/v1/metrics') this.otlpHeaders.push(req.headers);
        if (path === '/v1/logs') this.#logs(raw);
        else if (path === '/v1/metrics') this.#metrics(raw);
        else if (/^\/api\/\d+\/envelope\/$/.test(path ?? '')) this.#envelope(raw);
        else {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => this.#server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  /** A DSN pointing at this receiver (project 42). */
  get dsn(): string {
    return `${this.url.replace('http://', 'http://publickey@')}/42`;
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise((r) => this.#server?.close(r));
  }

  #body(req: IncomingMessage): Promise<Buffer> {
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks)));
    });
  }

  #logs(raw: Buffer): void {
    const req = JSON.parse(raw.toString('utf8')) as { resourceLogs: { scopeLogs: { logRecords: { body: { stringValue: string }; severityText: string; attributes: OtlpKeyValue[] }[] }[] }[] };
    for (const rl of req.resourceLogs) for (const sl of rl.scopeLogs) for (const r of sl.logRecords) this.logs.push({ body: r.body.stringValue, severityText: r.severityText, attributes: attributes(r.attributes) });
  }

  #metrics(raw: Buffer): void {
    type Points = { dataPoints: { attributes: OtlpKeyValue[]; asInt?: string | number; asDouble?: number }[] };
    const req = JSON.parse(raw.toString('utf8')) as { resourceMetrics: { scopeMetrics: { metrics: ({ name: string } & { sum?: Points; histogram?: Points; gauge?: Points })[] }[] }[] };
    for (const rm of req.resourceMetrics) {
      for (const sm of rm.scopeMetrics) {
        for (const m of sm.metrics) {
          const points = (m.sum ?? m.histogram ?? m.gauge)?.dataPoints ?? [];
          for (const p of points) {
            const value = p.asInt !== undefined ? Number(p.asInt) : p.asDouble;
            this.metrics.push({ name: m.name, attributes: attributes(p.attributes), value });
          }
        }
      }
    }
  }

  #envelope(raw: Buffer): void {
    const [, items] = parseEnvelope(new Uint8Array(raw));
    for (const [header, payload] of items) {
      if (header.type !== 'event') continue;
      const e = payload as { message?: string; level?: string; tags?: Record<string, string>; fingerprint?: string[] };
      this.errors.push({ message: e.message ?? '', level: e.level ?? '', tags: e.tags ?? {}, fingerprint: e.fingerprint ?? [] });
    }
  }
}
