import { z } from 'zod';

/** Wire shape of every non-2xx answer of the API (api-contract.md, Errors). */
export const apiErrorBodySchema = z.object({
  error: z.object({
    message: z.string(),
    code: z.string(),
  }),
});
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
