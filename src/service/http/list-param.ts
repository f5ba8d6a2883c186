import { z } from 'zod';

/**
 * A list in a query parameter, sent repeated (`?ids=a&ids=b`) or comma-joined (`?ids=a,b`) as
 * the published API's clients do: the distinct non-empty values, or undefined when absent.
 */
export const listParam = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .describe('Repeated (?a=1&a=2) or comma-joined (?a=1,2)')
  .transform((v) =>
    v === undefined
      ? undefined
      : [
          ...new Set(
            (Array.isArray(v) ? v : [v])
              .flatMap((s) => s.split(','))
              .map((s) => s.trim())
              .filter(Boolean),
          ),
        ],
  );
