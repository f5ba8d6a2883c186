import type { z } from 'zod';
import { InvalidInput } from './errors';

/** Parses request input with a contract schema; a failure is a 400 naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' | 'params'): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join('.') : where;
  throw new InvalidInput(`${field}: ${issue?.message ?? 'invalid'}`);
}
