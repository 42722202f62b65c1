export { startGateway, type RunningGateway, type GatewayOptions } from './gateway.js';
export { loadGatewayConfig, GATEWAY_CONFIG, type GatewayConfig } from './config.js';
export { ERRORS, GatewayError, toEnvelope, type ErrorCode, type ErrorEnvelope } from './errors.js';
export { compilePolicySet, type PolicySet } from './policy/compile-policy-set.js';
export { TenantState } from './policy/tenant-state.js';
export { PACKS, type PackName } from './policy/packs.js';
export type { PolicyRecord, PolicyType, Verdict } from './policy/policy-record.js';
export { PolicyValidator } from './policy/validate-policy.js';
export { actionText, type DecideRequest } from './governance/decisions/decide-request.js';
