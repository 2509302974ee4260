// The independent implementation's validators (ServerChoices.validators, `per-tenant-etag`): each
// 200 gets an ETag made from its key's tenant and environment and its body, and a request whose
// If-None-Match lists it gets 304 Not Modified. Only a 200 is tagged, and only a request whose key
// was accepted (onRequest refuses every other before) gets one: conditionals after authentication,
// as RFC 9110 §13.2.1 orders them. Written apart from the reference's (reference-server/api/validators.ts).
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

export function answerConditionals(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const key = request.apiKey;
    if (reply.statusCode !== 200 || !key || typeof payload !== 'string') return payload;
    const digest = createHash('sha256').update(`${key.tenant}/${key.environment}/${payload}`).digest('hex');
    const etag = `"${digest.slice(0, 32)}"`;
    reply.header('ETag', etag);
    const field = request.headers['if-none-match'];
    const tags = (field ?? '').split(',').map((tag) => tag.trim().replace(/^W\//, ''));
    if (field?.trim() !== '*' && !tags.includes(etag)) return payload;
    reply.code(304);
    return '';
  });
}
