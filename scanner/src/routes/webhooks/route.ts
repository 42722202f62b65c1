import { isNetGuardError, uuid } from '@aduana/shared';
import type { FastifyPluginAsync } from 'fastify';
import type { ScannerConfig } from '../../config.js';
import { ScannerError } from '../../errors.js';
import { keyOf, requireKey } from '../../keys/key-auth.js';
import { newSigningSecret } from '../../webhooks/signing-secret.js';
import { createWebhook, deactivateWebhook, listDeliveries, orgWebhooks, webhookView } from '../../webhooks/webhook-store.js';
import { ID_PARAMS_SCHEMA, LIMIT_QUERY_SCHEMA, listLimit, normaliseId, type IdParams, type LimitQuery } from '../key-params.js';
import { refuseSelf } from '../target.js';
import { WEBHOOK_CREATE_SCHEMA, type WebhookCreate } from './schema.js';

/** Delivery lists: 1 to 100 attempts, 50 by default. */
const DELIVERIES_DEFAULT = 50;
const DELIVERIES_MAX = 100;

/** KEY: /api/v1/webhooks (docs/scanner.md, "Webhooks"). */
export const webhookRoutes: FastifyPluginAsync<{ config: ScannerConfig }> = async (app, { config }) => {
  app.addHook('onRequest', requireKey(app.store));

  app.get('/api/v1/webhooks', async (request) => ({ items: orgWebhooks(app.store, keyOf(request).orgId).map(webhookView) }));

  app.post<{ Body: WebhookCreate }>('/api/v1/webhooks', { schema: { body: WEBHOOK_CREATE_SCHEMA } }, async (request, reply) => {
    const { orgId } = keyOf(request);
    const box = app.secretBox;
    if (box === undefined) throw new ScannerError('signing_unavailable');
    let url: URL;
    try {
      url = new URL(request.body.url);
    } catch {
      throw new ScannerError('invalid_webhook_url');
    }
    if (url.protocol !== 'https:' || url.username !== '' || url.password !== '' || url.hash !== '') throw new ScannerError('invalid_webhook_url');
    refuseSelf(url, app.selfIdentity);
    // The address guard assessments use: a name that does not resolve, or resolves anywhere private, is refused, each
    // with its own reason (offline, the README's example host does not resolve: that is not "not a public URL").
    try {
      await app.webhookGuard.check(url);
    } catch (err) {
      const code = !isNetGuardError(err) ? 'invalid_webhook_url' : err.code === 'dns' ? 'webhook_host_unresolved' : err.code === 'blocked' ? 'blocked_destination' : 'invalid_webhook_url';
      throw new ScannerError(code, undefined, { cause: err });
    }
    const id = uuid();
    const signingSecret = newSigningSecret();
    const record = { id, orgId, url: url.href, minScoreDelta: request.body.minScoreDelta ?? 5, active: true, createdAt: new Date().toISOString(), sealedSecret: box.seal(signingSecret, id) };
    await createWebhook(app.store, record, config.maxWebhooksPerOrg);
    // The secret is shown here once; only its sealed form is kept.
    return reply.code(201).send({ ...webhookView(record), signingSecret });
  });

  app.delete<{ Params: IdParams }>('/api/v1/webhooks/:id', { schema: { params: ID_PARAMS_SCHEMA } }, async (request, reply) => {
    await deactivateWebhook(app.store, keyOf(request).orgId, normaliseId(request.params.id));
    return reply.code(204).send();
  });

  app.get<{ Params: IdParams; Querystring: LimitQuery }>(
    '/api/v1/webhooks/:id/deliveries',
    { schema: { params: ID_PARAMS_SCHEMA, querystring: LIMIT_QUERY_SCHEMA } },
    async (request) => {
      const id = normaliseId(request.params.id);
      const limit = listLimit(request.query, DELIVERIES_DEFAULT, DELIVERIES_MAX);
      if (app.store.webhooks.get([keyOf(request).orgId, id]) === undefined) throw new ScannerError('webhook_not_found');
      return { items: listDeliveries(app.store, id, limit) };
    },
  );
};
