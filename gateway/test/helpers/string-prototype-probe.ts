// Child process of string-prototype.test.ts (run with --allow-natives-syntax): loads the gateway's modules as
// `aduana gateway` does, then ioredis, and prints whether String.prototype still has fast properties after each.
const fast = (): boolean => (0, eval)('(p) => %HasFastProperties(p)')(String.prototype) as boolean;
await import('../../src/gateway.js');
const afterGateway = fast();
await import('ioredis');
process.stdout.write(JSON.stringify({ afterGateway, afterIoredis: fast() }));
