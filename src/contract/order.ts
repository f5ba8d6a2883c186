/**
 * The `order` query parameter of the published API: comma-joined fields, `-` prefix for descending, e.g.
 * `-createdAt,name`. Whitespace is allowed around every token. Positions are
 * 0-based UTF-16 indexes, as for `filter`.
 */
import { QuerySyntaxError, describeChar } from './filter';

/** Fields every list endpoint may order by. */
export const listOrderFields = ['name', 'createdAt', 'state'] as const;
export type ListOrderField = (typeof listOrderFields)[number];

/** Fields match endpoints may order by (their default is best score first). */
export const matchOrderFields = [...listOrderFields, 'matchPercentage', 'forwardMatchPercentage', 'reverseMatchPercentage'] as const;
export type MatchOrderField = (typeof matchOrderFields)[number];

export type OrderDirection = 'asc' | 'desc';

export interface OrderTerm<F extends string = string> {
  field: F;
  direction: OrderDirection;
}

export interface OrderOptions<F extends string> {
  fields: readonly F[];
}

export class OrderSyntaxError extends QuerySyntaxError {
  constructor(message: string, position: number) {
    super('order', message, position);
    this.name = 'OrderSyntaxError';
  }
}

const WHITESPACE = /[ \t\r\n]/;
// A leading '-' is the direction, so a name may contain '-' but not start with it.
const NAME_START = /[A-Za-z0-9_.]/;
const NAME_CHAR = /[A-Za-z0-9_.-]/;

class OrderParser<F extends string> {
  private index = 0;
  private readonly allowed: ReadonlySet<string>;

  constructor(
    private readonly text: string,
    private readonly options: OrderOptions<F>,
  ) {
    this.allowed = new Set(options.fields);
  }

  parse(): OrderTerm<F>[] {
    this.skipWhitespace();
    if (this.index === this.text.length) return [];
    const terms: OrderTerm<F>[] = [];
    const seen = new Map<string, number>();
    for (;;) {
      const term = this.term(seen);
      terms.push(term);
      this.skipWhitespace();
      const char = this.text[this.index];
      if (char === undefined) return terms;
      if (char !== ',') throw this.unexpected("',' or end of input");
      this.index += 1;
    }
  }

  private term(seen: Map<string, number>): OrderTerm<F> {
    this.skipWhitespace();
    let direction: OrderDirection = 'asc';
    if (this.text[this.index] === '-') {
      direction = 'desc';
      this.index += 1;
      this.skipWhitespace();
    }
    const start = this.index;
    if (!NAME_START.test(this.text[start] ?? '')) throw this.unexpected('a field');
    let end = start + 1;
    while (end < this.text.length && NAME_CHAR.test(this.text[end] ?? '')) end += 1;
    this.index = end;
    const name = this.text.slice(start, end);
    if (!this.allowed.has(name)) {
      throw new OrderSyntaxError(
        `order: unknown field '${name}' at character ${start} (allowed: ${this.options.fields.join(', ')})`,
        start,
      );
    }
    const first = seen.get(name);
    if (first !== undefined) {
      throw new OrderSyntaxError(`order: duplicate field '${name}' at character ${start} (already at character ${first})`, start);
    }
    seen.set(name, start);
    return { field: name as F, direction };
  }

  private skipWhitespace(): void {
    while (this.index < this.text.length && WHITESPACE.test(this.text[this.index] ?? '')) this.index += 1;
  }

  private unexpected(expected: string): OrderSyntaxError {
    const pos = this.index;
    const codePoint = this.text.codePointAt(pos);
    const found = codePoint === undefined ? 'end of input' : describeChar(String.fromCodePoint(codePoint));
    return new OrderSyntaxError(`order: unexpected ${found} at character ${pos}: expected ${expected}`, pos);
  }
}

/**
 * Parses an `order` parameter. An empty (or blank) text means "the endpoint's
 * default order". Throws `OrderSyntaxError` pointing at the first offending
 * character; a field named twice is refused because its second direction
 * could never apply.
 */
export function parseOrder<F extends string>(text: string, options: OrderOptions<F>): OrderTerm<F>[] {
  return new OrderParser(text, options).parse();
}

/** Canonical text of an order; `parseOrder` reads it back to equal terms. */
export function formatOrder(terms: readonly OrderTerm[]): string {
  return terms.map(({ field, direction }) => (direction === 'desc' ? `-${field}` : field)).join(',');
}
