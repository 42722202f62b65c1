import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLoggers } from './logger.js';
import { pinoRequestLog, templateRequestLog, type RequestLogFields } from './request-log.js';

function capture(): { lines: string[]; stream: { write(s: string): void } } {
  const lines: string[] = [];
  return { lines, stream: { write: (s: string) => void lines.push(s) } };
}

const cases: RequestLogFields[] = [
  { method: 'POST', path: '/v1/decide', status: 200, ms: 1.234, traceId: '4bf92f3577b34da6a3ce929d0e0e4736', tenant: 'acme', agent: 'agent-7' },
  { method: 'GET', path: '/health', status: 200, ms: 0.05, traceId: 'abc' },
  { method: 'POST', path: '/v1/chat/completions', status: 429, ms: 12, traceId: 't', tenant: 'acme' },
  { method: 'GET', path: '/v1/events/"quoted"\\back\nline\u0001\u007f', status: 400, ms: 0, traceId: 't', tenant: '', agent: 'zoë ✓ 𝄞' },
  { method: 'GET', path: `/${'x'.repeat(300)}`, status: 404, ms: 123456.789, traceId: 't'.repeat(60), agent: `${'a'.repeat(120)}"` },
];

describe('the request log line', () => {
  afterEach(() => void vi.useRealTimers());

  it('written by the template is byte for byte the line pino writes for the same fields', () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-11-26T00:49:07.123Z'));
    for (const name of ['aduana-gateway', 'a "quoted" service']) {
      const viaPino = capture();
      const viaTemplate = capture();
      const a = pinoRequestLog(createLoggers(name, { destination: viaPino.stream }).requestLog);
      const b = templateRequestLog(createLoggers(name, { destination: viaTemplate.stream }).requestLog);
      for (const f of cases) {
        a.write(f);
        b.write(f);
        b.flush();
      }
      expect(viaTemplate.lines).toEqual(viaPino.lines);
      expect(viaPino.lines).toHaveLength(cases.length);
      const first = JSON.parse(viaPino.lines[0]!) as Record<string, unknown>;
      expect(first).toMatchObject({ level: 30, time: '2026-11-26T00:49:07.123Z', service: name, name, method: 'POST', status: 200, tenant: 'acme', msg: 'request' });
    }
  });

  it('escapes a lone surrogate, where pino writes a short string\'s lone surrogate raw (UTF-8 then turns it into U+FFFD)', () => {
    const out = capture();
    const log = templateRequestLog(createLoggers('svc', { destination: out.stream }).requestLog);
    log.write({ ...cases[1]!, agent: 'lone \ud800 surrogate' });
    log.flush();
    expect(out.lines[0]).toContain('"agent":"lone \\ud800 surrogate"');
    expect((JSON.parse(out.lines[0]!) as { agent: string }).agent).toBe('lone \ud800 surrogate');
  });

  it('takes the time of each line, not of the first line of its millisecond only', () => {
    vi.useFakeTimers();
    const out = capture();
    const log = templateRequestLog(createLoggers('svc', { destination: out.stream }).requestLog);
    vi.setSystemTime(new Date('2026-11-26T00:00:00.000Z'));
    log.write(cases[1]!);
    log.write(cases[1]!);
    vi.setSystemTime(new Date('2026-11-26T00:00:00.001Z'));
    log.write(cases[1]!);
    log.flush();
    expect(out.lines.join('').trimEnd().split('\n').map((l) => (JSON.parse(l) as { time: string }).time)).toEqual(['2026-11-26T00:00:00.000Z', '2026-11-26T00:00:00.000Z', '2026-11-26T00:00:00.001Z']);
  });

  it('hands the lines of one event-loop turn to the destination as one write, once the turn ends', async () => {
    const out = capture();
    const log = templateRequestLog(createLoggers('svc', { destination: out.stream }).requestLog);
    log.write(cases[0]!);
    log.write(cases[1]!);
    expect(out.lines).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(out.lines).toHaveLength(1);
    expect(out.lines[0]!.trimEnd().split('\n').map((l) => (JSON.parse(l) as { path: string }).path)).toEqual(['/v1/decide', '/health']);
    log.write(cases[2]!);
    log.flush();
    log.flush();
    expect(out.lines).toHaveLength(2);
    expect(JSON.parse(out.lines[1]!)).toMatchObject({ status: 429 });
    await new Promise((r) => setImmediate(r));
    expect(out.lines).toHaveLength(2);
  });

  it('writes the lines it holds when the process exits in the same turn', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aduana-reqlog-'));
    try {
      const file = join(dir, 'out.log');
      const script = `
        import { openSync } from 'node:fs';
        import { pino } from 'pino';
        import { createLoggers } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, '../../dist/log/logger.js')).href)};
        import { templateRequestLog } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, '../../dist/log/request-log.js')).href)};
        const destination = pino.destination({ dest: openSync(process.argv[1], 'w'), sync: false, minLength: 4096 });
        const log = templateRequestLog(createLoggers('svc', { destination }).requestLog);
        log.write({ method: 'GET', path: '/last-words', status: 200, ms: 1, traceId: 't' });
        process.exit(0);`;
      execFileSync(process.execPath, ['--input-type=module', '-e', script, file], { cwd: join(import.meta.dirname, '../..') });
      expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ path: '/last-words', msg: 'request' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is off below the info level', () => {
    const out = capture();
    const { requestLog } = createLoggers('svc', { destination: out.stream, level: 'warn' });
    expect(templateRequestLog(requestLog).enabled).toBe(false);
    expect(pinoRequestLog(requestLog).enabled).toBe(false);
  });
});
