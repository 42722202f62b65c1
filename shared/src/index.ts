export { loadConfig, describeConfig, ConfigError, type ConfigKey, type ConfigSpec, type ConfigValues } from './config/load-config.js';
export { createLogger, createLoggers, type Logger, type LoggerOptionsIn } from './log/logger.js';
export { pinoRequestLog, templateRequestLog, type RequestLog, type RequestLogFields } from './log/request-log.js';
export {
  newTraceId,
  newSpanId,
  parseTraceparent,
  traceFrom,
  formatTraceparent,
  type TraceContext,
} from './trace/trace-context.js';
export { canonicalJson, sha256Hex } from './hashing/canonical-json.js';
export { secretBoxFrom, type SecretBox } from './crypto/secret-box.js';
export { generateToken, isWellFormedToken, hashToken, hashesEqual, tokenPrefix, type TokenKind } from './tokens/token-format.js';
export { growingLru } from './cache/growing-lru.js';
export { TokenBuckets, takeToken, type Bucket, type BucketOptions, type TakeResult } from './ratelimit/token-bucket.js';
export { openStore, type Database, type RootDatabase } from './storage/open-store.js';
export { ulid, newId, uuid, idState, adoptIdState } from './ids/new-id.js';
export { isoTime } from './time/iso-time.js';
export { backoffMs, type BackoffOptions } from './time/backoff.js';
export { NetGuard, defaultHostLookup, type NetGuardOptions, type CheckedTarget, type ResolvedAddress, type HostLookup } from './net/net-guard.js';
export { NetGuardError, isNetGuardError, type NetGuardErrorCode } from './net/net-guard-error.js';
export { classifyAddress, parseAllowList, EMPTY_ALLOW_LIST, type AllowList, type AddressVerdict } from './net/address-policy.js';
export { parseTargetUrl, bareHostname } from './net/target-url.js';
export { Pool, Agent, undiciErrors, request } from './net/undici-parts.js';
export { Egress, proxyUrl, type EgressProxySettings } from './net/egress.js';
export { stopOnSignal, runMain, helpOrUnknown } from './process/command-line.js';
export {
  parseCommand,
  selectCommand,
  command,
  runCommandGroup,
  usageError,
  commandHelp,
  commandList,
  synopsis,
  EXIT_STATUS,
  type CommandSpec,
  type OptionSpec,
  type ParsedCommand,
  type OptionValues,
  type PositionalValues,
  type CommandIo,
  type CommandHandler,
} from './process/command-spec.js';
