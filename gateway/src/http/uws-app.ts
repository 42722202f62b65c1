import * as uws from 'uWebSockets.js';
import { us_socket_local_port, type HttpRequest, type HttpResponse, type ListenOptions, type TemplatedApp, type us_listen_socket } from 'uWebSockets.js';

export type Method = 'get' | 'post' | 'put' | 'delete' | 'patch';

type UwsHandler = (res: HttpResponse, req: HttpRequest) => void;
/** LIBUS_LISTEN_EXCLUSIVE_PORT: uWS exports the value, its types only the enum that names it. */
const EXCLUSIVE_PORT = (uws as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT: ListenOptions }).LIBUS_LISTEN_EXCLUSIVE_PORT;
/** uWS's listen with a host and options, which it takes though its types declare options only without a host. */
type ListenExclusive = (host: string, port: number, options: ListenOptions, cb: (socket: us_listen_socket | false) => void) => TemplatedApp;
const METHOD_REGISTRARS: Record<Method, (app: TemplatedApp, pattern: string, h: UwsHandler) => void> = {
  get: (app, p, h) => app.get(p, h),
  post: (app, p, h) => app.post(p, h),
  put: (app, p, h) => app.put(p, h),
  delete: (app, p, h) => app.del(p, h),
  patch: (app, p, h) => app.patch(p, h),
};

/** Registers a uWS handler for one method and pattern. */
export function registerUws(app: TemplatedApp, method: Method, pattern: string, handler: UwsHandler): void {
  METHOD_REGISTRARS[method](app, pattern, handler);
}

/**
 * Listens on `host:port` alone: uWS shares a named port with any other listener (SO_REUSEPORT) unless told
 * otherwise, which let a second gateway start silently beside the first. uWS gives no reason for a refusal.
 * Resolves with the socket and the port it got.
 */
export function listenAlone(app: TemplatedApp, host: string, port: number, serviceName: string): Promise<{ socket: us_listen_socket; port: number }> {
  return new Promise((resolve, reject) => {
    (app.listen as unknown as ListenExclusive).call(app, host, port, EXCLUSIVE_PORT, (socket) => {
      if (!socket) return reject(new Error(`${serviceName}: cannot listen on ${host}:${port}: the port is in use (or the address is not this machine's)`));
      resolve({ socket, port: us_socket_local_port(socket as unknown as Parameters<typeof us_socket_local_port>[0]) });
    });
  });
}
