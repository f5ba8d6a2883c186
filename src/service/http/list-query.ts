import { z } from 'zod';
import { parseFilter, QuerySyntaxError, type FilterClause } from '../../contract/filter';
import { parseOrder, type OrderTerm } from '../../contract/order';
import { pageQuerySchema, type PageQuery } from '../../contract/paging';
import { InvalidInput } from './errors';
import { parseInput } from './validation';

const listQuerySchema = pageQuerySchema.extend({
  filter: z.string().optional(),
  order: z.string().optional(),
  search: z.string().max(200).optional(),
});

export interface ListQuery<F extends string, O extends string> extends PageQuery {
  filter: FilterClause<F>[];
  order: OrderTerm<O>[];
  search: string | undefined;
}

/**
 * page/perPage/filter/order/search of a list endpoint (api-contract.md, Pagination, filtering,
 * ordering). A malformed filter or order is a 400 whose message and `parameter`/`position`
 * members point at the offending character.
 */
export function parseListQuery<F extends string, O extends string>(
  query: unknown,
  options: { filterFields: readonly F[]; allowMetadata: boolean; orderFields: readonly O[] },
): ListQuery<F, O> {
  const q = parseInput(listQuerySchema, query, 'query');
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
