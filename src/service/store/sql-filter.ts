import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { FilterClause, FilterOp, FilterValue } from '../../contract/filter';
import type { OrderTerm } from '../../contract/order';

/**
 * Translates the contract's filter AST (src/contract/filter.ts) into SQL expressions with bound
 * parameters, following the same semantics as its in-memory evaluator: comparisons typed by the
 * column; a missing (NULL) or mistyped value fails every operator except `ne` and `not`, which are
 * exact complements (so `ne(x)` matches a model without metadata key x). Operators come from a
 * fixed table; every value is a parameter.
 */

export type SqlFieldType = 'int' | 'text' | 'uuid' | 'bool' | 'time';

export interface SqlField {
  type: SqlFieldType;
  /** Qualified column, e.g. "models.folder_id". */
  column: string;
  nullable?: boolean;
  /** `eq(null)` / `in(…, null)` match NULL (used for a root folder's parentFolderId). */
  nullLiteral?: boolean;
}

export interface SqlFilterSchema<F extends string> {
  fields: Record<F, SqlField>;
  /** How `metadata.<keyId>` reads a value: an EXISTS over the metadata table with `predicate` on the value column. */
  metadata?: (keyId: number, predicate: (value: SqlField) => Expression<SqlBool>) => Expression<SqlBool>;
}

type Pred = RawBuilder<SqlBool>;
const TRUE: Pred = sql<SqlBool>`true`;
const FALSE: Pred = sql<SqlBool>`false`;

const comparison = { eq: '=', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;
type Comparison = keyof typeof comparison;

const NUMERIC_TEXT = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INT4_MAX = 2_147_483_647;

function textOf(value: FilterValue): string {
  return value.kind === 'number' ? value.raw : value.value;
}

function numberOf(value: FilterValue): number | undefined {
  if (value.kind === 'number') return value.value;
  if (!NUMERIC_TEXT.test(value.value)) return undefined;
  const n = Number(value.value);
  return Number.isFinite(n) ? n : undefined;
}

/** As the evaluator reads dates: ISO 8601, without an offset = UTC. */
function timeOf(value: FilterValue): Date | undefined {
  const text = textOf(value);
  const match = ISO_DATE.exec(text);
  if (match === null) return undefined;
  const time = Date.parse(text.includes('T') && match[1] === undefined ? `${text}Z` : text);
  return Number.isNaN(time) ? undefined : new Date(time);
}

function isNullLiteral(value: FilterValue): boolean {
  return value.kind === 'text' && value.value.toLowerCase() === 'null';
}

/** The column as compared: timestamps at the millisecond precision the API shows. */
function columnExpr(field: SqlField): RawBuilder<unknown> {
  const ref = sql.ref(field.column);
  return field.type === 'time' ? sql`date_trunc('milliseconds', ${ref})` : sql`${ref}`;
}

/** A bound literal typed for the column, or undefined when the value cannot be compared with it. */
function literalFor(field: SqlField, value: FilterValue, op: Comparison): RawBuilder<unknown> | undefined {
  switch (field.type) {
    case 'int': {
      const n = numberOf(value);
      if (n === undefined) return undefined;
      return Number.isInteger(n) && Math.abs(n) <= INT4_MAX ? sql`${n}` : sql`cast(${String(n)} as numeric)`;
    }
    case 'text':
      return sql`${textOf(value)}`;
    case 'uuid': {
      const text = textOf(value);
      if (op === 'eq') return UUID.test(text) ? sql`${text.toLowerCase()}` : undefined;
      return sql`${text}`;
    }
    case 'bool': {
      const text = textOf(value).toLowerCase();
      return text === 'true' || text === 'false' ? sql`${text === 'true'}` : undefined;
    }
    case 'time': {
      const time = timeOf(value);
      return time ? sql`${time.toISOString()}::timestamptz` : undefined;
    }
  }
}

function compare(field: SqlField, op: Comparison, value: FilterValue): Pred {
  const literal = literalFor(field, value, op);
  if (literal === undefined) return FALSE;
  const column = columnExpr(field);
  const operator = sql.raw(comparison[op]);
  // uuids order as text; other text compares by code unit, as the evaluator does
  if (field.type === 'uuid' && op !== 'eq') return sql<SqlBool>`${column}::text collate "C" ${operator} ${literal}`;
  if (field.type === 'text' && op !== 'eq') return sql<SqlBool>`${column} collate "C" ${operator} ${literal}`;
  return sql<SqlBool>`${column} ${operator} ${literal}`;
}

/** `*` is the wildcard; every LIKE metacharacter of the pattern itself is escaped. */
export function likePattern(pattern: string): string {
  return pattern.replace(/[\\%_]/g, (c) => `\\${c}`).replaceAll('*', '%');
}

function like(field: SqlField, pattern: string): Pred {
  if (field.type === 'bool' || field.type === 'time') return FALSE; // the evaluator likes strings and numbers only
  const column = field.type === 'text' ? columnExpr(field) : sql`${columnExpr(field)}::text`;
  return sql<SqlBool>`${column} ilike ${likePattern(pattern)} escape '\\'`;
}

function inList(field: SqlField, values: FilterValue[]): Pred {
  const literals = values.map((v) => literalFor(field, v, 'eq')).filter((l): l is RawBuilder<unknown> => l !== undefined);
  if (literals.length === 0) return FALSE;
  // One `in` list keeps the primary-key (or other) index usable: polling asks for 100 ids at once.
  return sql<SqlBool>`${columnExpr(field)} in (${sql.join(literals)})`;
}

/** Holds for a present value; NULLs are dealt with by the caller. */
function positiveOn(field: SqlField, op: Exclude<FilterOp, { kind: 'not' | 'ne' }>): Pred {
  switch (op.kind) {
    case 'in':
      return inList(field, op.values);
    case 'between': {
      const low = compare(field, 'gte', op.low);
      const high = compare(field, 'lte', op.high);
      return low === FALSE || high === FALSE ? FALSE : sql<SqlBool>`(${low} and ${high})`;
    }
    case 'like':
      return like(field, op.pattern);
    default:
      return compare(field, op.kind as Comparison, op.value);
  }
}

function positive<F extends string>(
  target: FilterClause<F>['field'],
  op: Exclude<FilterOp, { kind: 'not' | 'ne' }>,
  schema: SqlFilterSchema<F>,
): Pred {
  if (typeof target !== 'string') {
    if (!schema.metadata) return FALSE;
    return sql<SqlBool>`${schema.metadata(target.keyId, (value) => positiveOn(value, op))}`;
  }
  const field = schema.fields[target];
  if (!field.nullable) return positiveOn(field, op);
  const ref = sql.ref(field.column);
  const matchesNull =
    field.nullLiteral && ((op.kind === 'eq' && isNullLiteral(op.value)) || (op.kind === 'in' && op.values.some(isNullLiteral)));
  const present = sql<SqlBool>`(${ref} is not null and ${positiveOn(field, op)})`;
  return matchesNull ? sql<SqlBool>`(${ref} is null or ${present})` : present;
}

function compileOp<F extends string>(target: FilterClause<F>['field'], op: FilterOp, schema: SqlFilterSchema<F>): Pred {
  switch (op.kind) {
    case 'not':
      return sql<SqlBool>`(not ${compileOp(target, op.operand, schema)})`;
    case 'ne':
      return sql<SqlBool>`(not ${compileOp(target, { kind: 'eq', value: op.value }, schema)})`;
    default:
      return positive(target, op, schema);
  }
}

/** All clauses must hold; undefined when there are none. */
export function compileFilter<F extends string>(
  clauses: readonly FilterClause<F>[],
  schema: SqlFilterSchema<F>,
): Expression<SqlBool> | undefined {
  if (clauses.length === 0) return undefined;
  const parts = clauses.map((c) => compileOp(c.field, c.op, schema));
  return parts.length === 1 ? parts[0] : sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
}

/** ORDER BY terms followed by the id, so that equal keys page stably. */
export function compileOrder<F extends string>(
  terms: readonly OrderTerm<F>[],
  columns: Record<F, string>,
  idColumn: string,
  fallback: readonly OrderTerm<F>[],
): RawBuilder<unknown> {
  const used = terms.length > 0 ? terms : fallback;
  const parts = used.map((t) => sql`${sql.ref(columns[t.field])} ${sql.raw(t.direction === 'desc' ? 'desc' : 'asc')}`);
  parts.push(sql`${sql.ref(idColumn)} asc`);
  return sql.join(parts);
}

export { TRUE as sqlTrue };
