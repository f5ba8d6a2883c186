import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { errorCodeForStatus, errorCodes, type ApiErrorBody } from '../../contract/errors';
import { HttpError, InvalidInput, NotFound } from './errors';

interface WireError {
  status: number;
  body: ApiErrorBody;
  headers: Record<string, string>;
}

/** Where a request part is named in a message: the field's path (`models[0].filePath`), or the part. */
function fieldName(instancePath: string, part: string | undefined): string {
  const segments = instancePath.split('/').filter(Boolean);
  if (segments.length === 0) return part === 'querystring' ? 'query' : (part ?? 'body');
  return segments.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

/** Maps anything thrown in a route to the contract's `{error: {message, code}}`. */
export function toWireError(error: unknown): WireError {
  if (hasZodFastifySchemaValidationErrors(error)) {
    // The request did not match its route's schema: a 400 naming the first field that is wrong.
    const [issue] = error.validation;
    return toWireError(
      new InvalidInput(`${fieldName(issue?.instancePath ?? '', error.validationContext)}: ${issue?.message ?? 'invalid'}`),
    );
  }
  if (error instanceof HttpError) {
    return {
      status: error.status,
      body: { error: { ...error.details, message: error.message, code: error.code } },
      headers: error.headers,
    };
  }
  const fastifyError = error as Partial<FastifyError>;
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const message =
      status === 413
        ? 'The request body is too large.'
        : status === 415
          ? 'Unsupported content type; send application/json.'
          : (fastifyError.message ?? 'Invalid request.');
    return { status, body: { error: { message, code: errorCodeForStatus(status) ?? errorCodes.invalidInput } }, headers: {} };
  }
  return { status: 500, body: { error: { message: 'Internal server error.', code: errorCodes.internal } }, headers: {} };
}

export function registerErrorHandling(app: FastifyInstance, notFound: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) {
  app.setErrorHandler((error, request, reply) => {
    const wire = toWireError(error);
    if (error instanceof Error && isResponseSerializationError(error)) {
      // An answer that does not match its contract schema is our bug, never the client's.
      request.log.error(
        { err: error, issues: error.cause.issues, method: error.method, url: error.url },
        'answer does not match its schema',
      );
    } else if (wire.status >= 500) {
      request.log.error({ err: error }, 'request failed');
    }
    return reply.status(wire.status).headers(wire.headers).send(wire.body);
  });
  app.setNotFoundHandler(notFound);
}

/** 404 in the contract shape, for API paths and anything that is not the SPA. */
export function apiNotFound(method: string, url: string): WireError {
  return toWireError(new NotFound(`No route ${method} ${url.split('?', 1)[0]}.`));
}
