import { describe, expect, it } from 'vitest';
import { Histogram, Registry } from 'prom-client';
import { BucketHistogram } from './bucket-histogram.js';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
// Bounds themselves (le is inclusive), between them, zero, past the last bound.
const VALUES = [0, 0.0005, 0.0004, 0.0007, 0.001, 0.003, 0.005, 0.0051, 0.2, 1, 2.6, 29.9, 30, 31, 1000, 0.00001];

describe('BucketHistogram', () => {
  it("answers the exposition prom-client's Histogram gives for the same observations, with and without a label", async () => {
    const theirs = new Registry();
    const ours = new Registry();
    const labelled = new Histogram({ name: 'x_seconds', help: 'h', labelNames: ['server'], buckets: BUCKETS, registers: [theirs] });
    const single = new Histogram({ name: 'y_seconds', help: 'h', buckets: BUCKETS.slice(0, 5), registers: [theirs] });
    const ourLabelled = new BucketHistogram({ name: 'x_seconds', help: 'h', labelName: 'server', buckets: BUCKETS, registry: ours });
    const ourSingle = new BucketHistogram({ name: 'y_seconds', help: 'h', buckets: BUCKETS.slice(0, 5), registry: ours }).series();
    VALUES.forEach((v, i) => {
      const server = i % 3 === 0 ? 'auth' : 'api';
      labelled.labels(server).observe(v);
      ourLabelled.series(server).observe(v);
      single.observe(v);
      ourSingle.observe(v);
    });
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain('x_seconds_bucket{le="+Inf",server="api"} 10');
    expect(text).toContain('y_seconds_count 16');
  });

  it('shows a single series before its first observation, as a histogram without labels does', async () => {
    const theirs = new Registry();
    const ours = new Registry();
    new Histogram({ name: 'z_seconds', help: 'h', buckets: [1, 2], registers: [theirs] });
    new BucketHistogram({ name: 'z_seconds', help: 'h', buckets: [1, 2], registry: ours }).series();
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('ignores what is not a duration and refuses buckets that do not ascend', async () => {
    const reg = new Registry();
    const s = new BucketHistogram({ name: 'w_seconds', help: 'h', buckets: [1], registry: reg }).series();
    s.observe(Number.NaN);
    s.observe(-1);
    s.observe(0.5);
    expect([s.count, s.sum, [...s.counts]]).toEqual([1, 0.5, [1, 0]]);
    expect(() => new BucketHistogram({ name: 'v_seconds', help: 'h', buckets: [1, 1], registry: reg })).toThrow(/ascend/);
  });
});
