import { z } from 'zod';
import { InvalidInput } from './errors';

/** Parses request input with a contract schema; a failure is a 400 naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' | 'params'): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join('.') : where;
  throw new InvalidInput(`${field}: ${issue?.message ?? 'invalid'}`);
}

/**
 * A list in a query parameter, sent repeated (`?ids=a&ids=b`) or comma-joined (`?ids=a,b`) as
 * the published API's clients do: the distinct non-empty values, or undefined when absent.
 */
export const listParam = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .describe('Repeated (?a=1&a=2) or comma-joined (?a=1,2)')
  .transform((v) => (v === undefined ? undefined : [...new Set((Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean))]));
