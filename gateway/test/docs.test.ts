import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../src/errors.js';
import { governedStages, type PipelineDeps } from '../src/proxy/pipeline.js';
import { CallRecorder } from '../src/proxy/call-record.js';

const root = new URL('../../', import.meta.url);

describe('documentation stays in step with the code', () => {
  it('the error registry: unique (status, message) pairs, types from the documented set', () => {
    const types = new Set(['invalid_request', 'authentication_error', 'permission_denied', 'svc_policy_violation', 'not_found', 'payload_too_large', 'rate_limit_exceeded', 'internal_error', 'upstream_unavailable', 'upstream_error']);
    const seen = new Set<string>();
    for (const [code, e] of Object.entries(ERRORS)) {
      expect(types.has(e.type), `${code}: ${e.type}`).toBe(true);
      const key = `${e.status} ${e.message}`;
      expect(seen.has(key), `duplicate ${key}`).toBe(false);
      seen.add(key);
    }
  });

  it('the README keeps exactly the two setup lines', () => {
    const readme = readFileSync(new URL('README.md', root), 'utf8');
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });

  it("docs/architecture.md names the proxy's stages in the pipeline's order", () => {
    const doc = readFileSync(new URL('docs/architecture.md', root), 'utf8');
    const block = /A test holds this list against the pipeline's:\n\n```text\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(block, 'the stage list in docs/architecture.md').toBeDefined();
    const written = (block as string).split(/→|\s+/).filter((w) => w !== '');
    const stages = (sharedLimits: boolean) =>
      governedStages({ sharedLimits, runtimes: { sets: {}, limits: {}, admission: {} } } as unknown as PipelineDeps, new CallRecorder({} as never, {} as never)).map((s) => s.name);
    // `[await-admission]`: there with shared limits only.
    expect(written.map((w) => w.replace(/^\[(.*)\]$/, '$1'))).toEqual(stages(true));
    expect(written.filter((w) => !w.startsWith('['))).toEqual(stages(false));
  });
});
