import { z } from 'zod';

/** `pageData` of every list and match response (published API). */
export const pageDataSchema = z.object({
  total: z.number().int().nonnegative(),
  perPage: z.number().int().positive(),
  currentPage: z.number().int().positive(),
  lastPage: z.number().int().positive(),
  startIndex: z.number().int().nonnegative(),
  endIndex: z.number().int().nonnegative(),
});
export type PageData = z.infer<typeof pageDataSchema>;

export const pageQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  perPage: z.coerce.number().int().min(1).max(100).default(20),
});
export type PageQuery = z.infer<typeof pageQuerySchema>;

/** Builds pageData for a page of a result set of `total` rows. */
export function pageDataFor(total: number, { page, perPage }: PageQuery): PageData {
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const startIndex = Math.min(total, (page - 1) * perPage);
  const endIndex = Math.min(total, startIndex + perPage);
  return { total, perPage, currentPage: page, lastPage, startIndex, endIndex };
}
