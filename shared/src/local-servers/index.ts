// Test and benchmark infrastructure: real servers from the machine's own packages, never used by the services.
export { startLocalPostgres, postgresBinDir, freeLoopbackPort, type LocalPostgres } from './postgres-server.js';
export { startLocalRedis, type LocalRedis } from './redis-server.js';
