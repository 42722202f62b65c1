/** The liveness paths every port answers: ours, and Kubernetes' habit (the scanner answers both too). */
export const HEALTH_PATHS: readonly string[] = ['/health', '/healthz'];
