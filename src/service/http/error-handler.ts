import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorCodeForStatus, errorCodes, type ApiErrorBody } from '../../contract/errors';
import { HttpError, NotFound } from './errors';

interface WireError {
  status: number;
  body: ApiErrorBody;
  headers: Record<string, string>;
}

/** Maps anything thrown in a route to the contract's `{error: {message, code}}` (api-contract.md, Errors). */
export function toWireError(error: unknown): WireError {
  if (error instanceof HttpError) {
    return { status: error.status, body: { error: { ...error.details, message: error.message, code: error.code } }, headers: error.headers };
  }
  const fastifyError = error as Partial<FastifyError>;
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const message =
      status === 413 ? 'The request body is too large.'
      : status === 415 ? 'Unsupported content type; send application/json.'
      : (fastifyError.message ?? 'Invalid request.');
    return { status, body: { error: { message, code: errorCodeForStatus(status) ?? errorCodes.invalidInput } }, headers: {} };
  }
  return { status: 500, body: { error: { message: 'Internal server error.', code: errorCodes.internal } }, headers: {} };
}

export function registerErrorHandling(app: FastifyInstance, notFound: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) {
  app.setErrorHandler((error, request, reply) => {
    const wire = toWireError(error);
    if (wire.status >= 500) request.log.error({ err: error }, 'request failed');
    return reply.status(wire.status).headers(wire.headers).send(wire.body);
  });
  app.setNotFoundHandler(notFound);
}

/** 404 in the contract shape, for API paths and anything that is not the SPA. */
export function apiNotFound(method: string, url: string): WireError {
  return toWireError(new NotFound(`No route ${method} ${url.split('?', 1)[0]}.`));
}
