import { z } from 'zod';

/** Wire shape of every non-2xx answer of the API. */
export const apiErrorBodySchema = z
  .object({
    // Some errors say more (a malformed filter: its `parameter` and `position`).
    error: z.looseObject({
      message: z.string(),
      code: z.string(),
    }),
  })
  .describe('The contract\'s error: {"error": {"message", "code"}}');
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>;

/** Error codes the service writes; clients must accept codes not listed here. */
export const errorCodes = {
  invalidInput: 'invalid_input',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  notFound: 'not_found',
  conflict: 'conflict',
  tooLarge: 'too_large',
  unsupportedMediaType: 'unsupported_media_type',
  rateLimited: 'rate_limited',
  internal: 'internal_error',
} as const;

const codeByStatus: Record<number, string> = {
  400: errorCodes.invalidInput,
  401: errorCodes.unauthorized,
  403: errorCodes.forbidden,
  404: errorCodes.notFound,
  409: errorCodes.conflict,
  413: errorCodes.tooLarge,
  415: errorCodes.unsupportedMediaType,
  429: errorCodes.rateLimited,
};

/** The contract's code for an HTTP status, or undefined for a status it does not name. */
export function errorCodeForStatus(status: number): string | undefined {
  return codeByStatus[status];
}
