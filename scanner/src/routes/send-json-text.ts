import type { FastifyReply } from 'fastify';

/**
 * Answers JSON text already serialised (a recorded assessment: serialised once, stored and answered as the same
 * bytes). Fastify sends a string with a JSON content type as it is; the header is the one it sets for objects.
 */
export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}
