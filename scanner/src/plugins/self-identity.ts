import type { AddressInfo } from 'node:net';
import { domainToASCII } from 'node:url';
import { listSetting, type ScannerConfig } from '../config.js';
import type { SelfIdentity } from '../routes/target.js';
import { sharedPlugin } from './shared-plugin.js';

declare module 'fastify' {
  interface FastifyInstance {
    readonly selfIdentity: SelfIdentity;
  }
}

/** Decorates the app with what makes a target "this service": PUBLIC_HOSTNAMES and, once listening, its own address. */
export const selfIdentityPlugin = sharedPlugin<{ config: ScannerConfig }>('self-identity', async (app, { config }) => {
  // Compared with URL host names, which are ASCII (punycode) and lower-case.
  const hostnames = listSetting(config.publicHostnames).map((h) => domainToASCII(h.toLowerCase()) || h.toLowerCase());
  app.decorate('selfIdentity', {
    hostnames,
    listeners: () => {
      const address = app.server.address();
      return address !== null && typeof address === 'object' ? [{ address: (address as AddressInfo).address, port: (address as AddressInfo).port }] : [];
    },
  });
});
