// Child process of string-prototype.test.ts (run with --allow-natives-syntax): loads the gateway's modules as
// `aduana gateway` does, then ioredis, and prints whether String.prototype still has fast properties after each.
const fast = (): boolean => (0, eval)('(p) => %HasFastProperties(p)')(String.prototype) as boolean;
await import('../../src/gateway.js');
const afterGateway = fast();
await import('ioredis');
const afterIoredis = fast();
// What a gateway with REDIS_URL loads: the shared limits' Redis connection, which repairs the prototype.
await import('../../src/fleet/limits/shared-limits.js');
process.stdout.write(JSON.stringify({ afterGateway, afterIoredis, afterSharedLimits: fast() }));
