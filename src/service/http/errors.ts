import { errorCodes } from '../../contract/errors';

type ErrorCode = (typeof errorCodes)[keyof typeof errorCodes];

/** An error that knows its HTTP status and contract code; the error handler writes it as is. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    /** Extra members of the wire `error` object (e.g. where a filter went wrong). */
    readonly details: Record<string, string | number> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidInput extends HttpError {
  constructor(message: string, details: Record<string, string | number> = {}) {
    super(400, errorCodes.invalidInput, message, {}, details);
  }
}

export class Unauthorized extends HttpError {
  constructor(message = 'A valid bearer token is required.', bearerError: 'invalid_token' | undefined = undefined) {
    const challenge = bearerError
      ? `Bearer realm="api", error="${bearerError}", error_description="${message.replace(/["\\]/g, '')}"`
      : 'Bearer realm="api"';
    super(401, errorCodes.unauthorized, message, { 'www-authenticate': challenge });
  }
}

export class Forbidden extends HttpError {
  constructor(message = 'Not allowed.') {
    super(403, errorCodes.forbidden, message);
  }
}

export class NotFound extends HttpError {
  constructor(message = 'Not found.') {
    super(404, errorCodes.notFound, message);
  }
}

export class Conflict extends HttpError {
  constructor(message: string) {
    super(409, errorCodes.conflict, message);
  }
}

export class TooLarge extends HttpError {
  constructor(message = 'The request body is too large.') {
    super(413, errorCodes.tooLarge, message);
  }
}

export class RateLimited extends HttpError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, errorCodes.rateLimited, message, { 'retry-after': String(retryAfterSeconds) });
  }
}

export class UnsupportedMediaType extends HttpError {
  constructor(message = 'Unsupported content type.') {
    super(415, errorCodes.unsupportedMediaType, message);
  }
}
