import { z } from 'zod';
import { parseFilter, QuerySyntaxError, type FilterClause } from '../../contract/filter';
import { parseOrder, type OrderTerm } from '../../contract/order';
import { pageQuerySchema, type PageQuery } from '../../contract/paging';
import { InvalidInput } from './errors';

/** Query parameters every list and match answer takes (page, perPage, filter, order, search). */
export const listQuerySchema = pageQuerySchema.extend({
  filter: z.string().optional().describe("Clauses joined by commas, e.g. fileType(eq(stl)),name(like('bracket*'))"),
  order: z.string().optional().describe('Fields joined by commas, "-" before a field for descending, e.g. -createdAt,name'),
  search: z.string().max(200).optional(),
});

export interface ListQuery<F extends string, O extends string> extends PageQuery {
  filter: FilterClause<F>[];
  order: OrderTerm<O>[];
  search: string | undefined;
}

/**
 * filter/order of a list query already checked against listQuerySchema, parsed for the
 * endpoint's fields. A malformed filter or order is a 400 whose message and
 * `parameter`/`position` members point at the offending character.
 */
export function parseListQuery<F extends string, O extends string>(
  q: z.output<typeof listQuerySchema>,
  options: { filterFields: readonly F[]; allowMetadata: boolean; orderFields: readonly O[] },
): ListQuery<F, O> {
  try {
    return {
      page: q.page,
      perPage: q.perPage,
      filter: parseFilter(q.filter ?? '', { fields: options.filterFields, allowMetadata: options.allowMetadata }),
      order: parseOrder(q.order ?? '', { fields: options.orderFields }),
      search: q.search,
    };
  } catch (error) {
    if (error instanceof QuerySyntaxError) throw new InvalidInput(error.message, { parameter: error.parameter, position: error.position });
    throw error;
  }
}
