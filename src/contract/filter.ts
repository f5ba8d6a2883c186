/**
 * The `filter` query parameter of the published API: parser, canonical formatter, builders and an in-memory evaluator.
 *
 * Grammar (whitespace allowed around every token):
 *
 *   filter  := "" | clause ("," clause)*
 *   clause  := field "(" op ")"
 *   op      := ("eq"|"ne"|"lt"|"lte"|"gt"|"gte"|"like") "(" value ")"
 *            | "in" "(" value ("," value)* ")"
 *            | "between" "(" value "," value ")"
 *            | "not" "(" op ")"
 *   value   := number | word | 'quoted string'
 *
 * Positions are 0-based indexes into the JavaScript string (UTF-16 code
 * units), because that is what a browser client needs to highlight the
 * offending character in an input box.
 */

export const filterLimits = {
  maxLength: 4000,
  maxInValues: 1000,
  maxDepth: 8,
} as const;

/** Fields a model list or match endpoint may filter on (besides `metadata.<id>`). */
export const modelFilterFields = ['id', 'name', 'folderId', 'state', 'fileType', 'isAssembly', 'createdAt'] as const;
export type ModelFilterField = (typeof modelFilterFields)[number];

/** Fields `GET /v2/folders` may filter on. */
export const folderFilterFields = ['id', 'name', 'parentFolderId'] as const;
export type FolderFilterField = (typeof folderFilterFields)[number];

export interface MetadataField {
  kind: 'metadata';
  keyId: number;
}

export type FilterField<F extends string = string> = F | MetadataField;

/**
 * A literal. `number` keeps its source text so that formatting reproduces it
 * exactly (`1.50`, `007`, integers beyond 2^53); bare words and quoted strings
 * differ only in spelling, so both are `text`.
 */
export type FilterValue = { kind: 'number'; value: number; raw: string } | { kind: 'text'; value: string };

export type ComparisonOperator = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte';

export type FilterOp =
  | { kind: ComparisonOperator; value: FilterValue }
  | { kind: 'in'; values: FilterValue[] }
  | { kind: 'between'; low: FilterValue; high: FilterValue }
  | { kind: 'like'; pattern: string }
  | { kind: 'not'; operand: FilterOp };

export type FilterOperator = FilterOp['kind'];

export interface FilterClause<F extends string = string> {
  field: FilterField<F>;
  op: FilterOp;
}

export interface FilterOptions<F extends string> {
  fields: readonly F[];
  allowMetadata: boolean;
}

/** Base of both query-expression errors, so one handler can turn either into a 400. */
export class QuerySyntaxError extends Error {
  constructor(
    readonly parameter: 'filter' | 'order',
    message: string,
    /** 0-based index of the offending character in the parameter's text. */
    readonly position: number,
  ) {
    super(message);
    this.name = 'QuerySyntaxError';
  }
}

export class FilterSyntaxError extends QuerySyntaxError {
  constructor(message: string, position: number) {
    super('filter', message, position);
    this.name = 'FilterSyntaxError';
  }
}

const operators: readonly FilterOperator[] = ['eq', 'ne', 'in', 'lt', 'lte', 'gt', 'gte', 'between', 'like', 'not'];

const WORD_CHAR = /[A-Za-z0-9_.-]/;
const WORD = /^[A-Za-z0-9_.-]+$/;
const NUMBER = /^-?\d+(?:\.\d+)?$/;
const WHITESPACE = /[ \t\r\n]/;
const METADATA_PREFIX = 'metadata.';
const METADATA_KEY = /^\d{1,15}$/;

type Token =
  | { type: '(' | ')' | ','; pos: number }
  | { type: 'eof'; pos: number }
  | { type: 'word'; pos: number; text: string }
  | { type: 'string'; pos: number; value: string }
  | { type: 'invalid'; pos: number; char: string };

/** Names a character for an error message; control characters are invisible, so they get their code point. */
export function describeChar(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x20 || code === 0x7f) return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return `'${char}'`;
}

function describeToken(token: Token): string {
  switch (token.type) {
    case 'eof':
      return 'end of input';
    case 'word':
      return token.text.length > 24 ? `'${token.text.slice(0, 24)}…'` : `'${token.text}'`;
    case 'string':
      return 'quoted string';
    case 'invalid':
      return describeChar(token.char);
    default:
      return `'${token.type}'`;
  }
}

/**
 * Lexes on demand rather than up front, so that the first error in reading
 * order is the one reported (an unknown field before a later unterminated
 * string).
 */
class Lexer {
  private index = 0;
  private peeked: Token | undefined;

  constructor(private readonly text: string) {}

  peek(): Token {
    this.peeked ??= this.lex();
    return this.peeked;
  }

  next(): Token {
    const token = this.peek();
    this.peeked = undefined;
    return token;
  }

  private lex(): Token {
    const { text } = this;
    while (this.index < text.length && WHITESPACE.test(text[this.index] ?? '')) this.index += 1;
    const pos = this.index;
    const char = text[pos];
    if (char === undefined) return { type: 'eof', pos };
    if (char === '(' || char === ')' || char === ',') {
      this.index += 1;
      return { type: char, pos };
    }
    if (char === "'") return this.lexString(pos);
    if (WORD_CHAR.test(char)) {
      let end = pos + 1;
      while (end < text.length && WORD_CHAR.test(text[end] ?? '')) end += 1;
      this.index = end;
      return { type: 'word', pos, text: text.slice(pos, end) };
    }
    const codePoint = String.fromCodePoint(text.codePointAt(pos) ?? 0);
    this.index += codePoint.length;
    return { type: 'invalid', pos, char: codePoint };
  }

  private lexString(pos: number): Token {
    const { text } = this;
    let value = '';
    let i = pos + 1;
    for (;;) {
      const close = text.indexOf("'", i);
      if (close === -1) {
        throw new FilterSyntaxError(
          `filter: unterminated string at character ${pos}: no closing quote (write '' for a quote inside a string)`,
          pos,
        );
      }
      value += text.slice(i, close);
      if (text[close + 1] === "'") {
        value += "'";
        i = close + 2;
      } else {
        this.index = close + 1;
        return { type: 'string', pos, value };
      }
    }
  }
}

class FilterParser<F extends string> {
  private readonly lexer: Lexer;
  private readonly allowed: ReadonlySet<string>;

  constructor(
    text: string,
    private readonly options: FilterOptions<F>,
  ) {
    this.lexer = new Lexer(text);
    this.allowed = new Set(options.fields);
  }

  parse(): FilterClause<F>[] {
    if (this.lexer.peek().type === 'eof') return [];
    const clauses = [this.clause()];
    while (this.lexer.peek().type === ',') {
      this.lexer.next();
      clauses.push(this.clause());
    }
    this.expect('eof', "',' or end of input");
    return clauses;
  }

  private clause(): FilterClause<F> {
    const token = this.lexer.next();
    if (token.type !== 'word') throw unexpected(token, 'a field');
    const field = this.field(token.text, token.pos);
    this.expect('(', "'('");
    const op = this.op(0);
    this.expect(')', "')'");
    return { field, op };
  }

  private field(name: string, pos: number): FilterField<F> {
    if (this.options.allowMetadata && name.startsWith(METADATA_PREFIX)) {
      const key = name.slice(METADATA_PREFIX.length);
      if (!METADATA_KEY.test(key)) {
        const keyPos = pos + METADATA_PREFIX.length;
        throw new FilterSyntaxError(
          `filter: invalid metadata key '${key}' at character ${keyPos}: expected an integer metadataKeyId`,
          keyPos,
        );
      }
      return { kind: 'metadata', keyId: Number(key) };
    }
    if (this.allowed.has(name)) return name as F;
    const allowed = [...this.options.fields, ...(this.options.allowMetadata ? ['metadata.<metadataKeyId>'] : [])];
    throw new FilterSyntaxError(`filter: unknown field '${name}' at character ${pos} (allowed: ${allowed.join(', ')})`, pos);
  }

  /** `depth` counts the `not`s around this operator. */
  private op(depth: number): FilterOp {
    const token = this.lexer.next();
    if (token.type !== 'word') throw unexpected(token, 'an operator');
    const name = token.text;
    if (!isOperator(name)) {
      throw new FilterSyntaxError(
        `filter: unknown operator '${name}' at character ${token.pos} (allowed: ${operators.join(', ')})`,
        token.pos,
      );
    }
    this.expect('(', "'('");
    let op: FilterOp;
    if (name === 'not') {
      if (depth + 1 > filterLimits.maxDepth) {
        throw new FilterSyntaxError(
          `filter: 'not' nested deeper than ${filterLimits.maxDepth} levels at character ${token.pos}`,
          token.pos,
        );
      }
      op = { kind: 'not', operand: this.op(depth + 1) };
      this.expect(')', "')'");
    } else if (name === 'in') {
      op = { kind: 'in', values: this.inValues() };
    } else if (name === 'between') {
      const hint = 'between takes two values';
      const low = this.value(hint);
      this.expect(',', "','", { when: ')', hint });
      const high = this.value(hint);
      this.expect(')', "')'", { when: ',', hint });
      op = { kind: 'between', low, high };
    } else {
      const value = this.value();
      this.expect(')', "')'", { when: ',', hint: `${name} takes one value` });
      op = name === 'like' ? { kind: 'like', pattern: textOf(value) } : { kind: name, value };
    }
    return op;
  }

  private inValues(): FilterValue[] {
    const values = [this.value('in needs at least one value')];
    for (;;) {
      const token = this.lexer.next();
      if (token.type === ')') return values;
      if (token.type !== ',') throw unexpected(token, "',' or ')'");
      if (values.length === filterLimits.maxInValues) {
        const pos = this.lexer.peek().pos;
        throw new FilterSyntaxError(`filter: too many values in 'in' at character ${pos}: at most ${filterLimits.maxInValues}`, pos);
      }
      values.push(this.value());
    }
  }

  /** `hint` explains a missing value, i.e. a ')' where one was due. */
  private value(hint?: string): FilterValue {
    const token = this.lexer.next();
    if (token.type === 'string') return { kind: 'text', value: token.value };
    if (token.type === 'word') return wordValue(token.text);
    throw unexpected(token, hint !== undefined && token.type === ')' ? `a value (${hint})` : 'a value');
  }

  /** `arity` adds a hint when the token found shows a wrong number of values. */
  private expect(type: Token['type'], expected: string, arity?: { when: Token['type']; hint: string }): void {
    const token = this.lexer.next();
    if (token.type === type) return;
    throw unexpected(token, arity?.when === token.type ? `${expected} (${arity.hint})` : expected);
  }
}

function unexpected(token: Token, expected: string): FilterSyntaxError {
  return new FilterSyntaxError(`filter: unexpected ${describeToken(token)} at character ${token.pos}: expected ${expected}`, token.pos);
}

function isOperator(name: string): name is FilterOperator {
  return (operators as readonly string[]).includes(name);
}

function wordValue(text: string): FilterValue {
  if (NUMBER.test(text)) {
    const value = Number(text);
    // Hundreds of digits overflow to Infinity; such a word is only usable as text.
    if (Number.isFinite(value)) return { kind: 'number', value, raw: text };
  }
  return { kind: 'text', value: text };
}

/**
 * Parses a `filter` parameter. An empty (or blank) text means "no filter".
 * Throws `FilterSyntaxError` pointing at the first offending character.
 */
export function parseFilter<F extends string>(text: string, options: FilterOptions<F>): FilterClause<F>[] {
  if (text.length > filterLimits.maxLength) {
    throw new FilterSyntaxError(
      `filter: too long at character ${filterLimits.maxLength}: at most ${filterLimits.maxLength} characters`,
      filterLimits.maxLength,
    );
  }
  return new FilterParser(text, options).parse();
}

// ---------------------------------------------------------------------------
// Formatting and building

/** A value's text as a string field would see it. */
function textOf(value: FilterValue): string {
  return value.kind === 'number' ? value.raw : value.value;
}

function quote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * Bare when it would lex back as the same text; numeric-looking text is quoted
 * so that it stays text.
 */
export function formatFilterValue(value: FilterValue): string {
  if (value.kind === 'number') {
    if (!NUMBER.test(value.raw)) throw new RangeError(`filter: '${value.raw}' is not a number literal`);
    return value.raw;
  }
  return WORD.test(value.value) && !NUMBER.test(value.value) ? value.value : quote(value.value);
}

function formatField(field: FilterField): string {
  if (typeof field !== 'string') {
    if (!Number.isSafeInteger(field.keyId) || field.keyId < 0) {
      throw new RangeError(`filter: metadata key id ${field.keyId} is not a non-negative integer`);
    }
    return `${METADATA_PREFIX}${field.keyId}`;
  }
  if (!WORD.test(field)) throw new RangeError(`filter: '${field}' is not a valid field name`);
  return field;
}

function formatOp(op: FilterOp, depth: number): string {
  switch (op.kind) {
    case 'not':
      if (depth + 1 > filterLimits.maxDepth) {
        throw new RangeError(`filter: 'not' nested deeper than ${filterLimits.maxDepth} levels`);
      }
      return `not(${formatOp(op.operand, depth + 1)})`;
    case 'in':
      if (op.values.length === 0) throw new RangeError('filter: in needs at least one value');
      if (op.values.length > filterLimits.maxInValues) {
        throw new RangeError(`filter: in takes at most ${filterLimits.maxInValues} values`);
      }
      return `in(${op.values.map(formatFilterValue).join(',')})`;
    case 'between':
      return `between(${formatFilterValue(op.low)},${formatFilterValue(op.high)})`;
    case 'like':
      return `like(${quote(op.pattern)})`;
    default:
      return `${op.kind}(${formatFilterValue(op.value)})`;
  }
}

/**
 * Canonical text of a filter: no whitespace, values bare where possible. The
 * parser reads it back to an equal AST. Throws `RangeError` for an AST the
 * parser would refuse (empty `in`, nesting too deep), so a client fails before
 * sending it. The length limit is not checked here: it is the server's to
 * enforce, and a caller batching ids can compare against `filterLimits`.
 */
export function formatFilter(clauses: readonly FilterClause[]): string {
  return clauses.map((clause) => `${formatField(clause.field)}(${formatOp(clause.op, 0)})`).join(',');
}

export type FilterInput = string | number | boolean | Date;

/** Converts a JavaScript value to a filter literal. */
export function filterValue(input: FilterInput): FilterValue {
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw new RangeError(`filter: ${input} is not a finite number`);
    const raw = String(input);
    // String() switches to exponent notation for very large or small numbers;
    // the grammar has none, so such a number travels as text and is coerced back.
    return NUMBER.test(raw) ? { kind: 'number', value: Number(raw), raw } : { kind: 'text', value: raw };
  }
  if (typeof input === 'boolean') return { kind: 'text', value: String(input) };
  if (input instanceof Date) return { kind: 'text', value: input.toISOString() };
  return { kind: 'text', value: input };
}

/**
 * Field names are inferred from the argument itself rather than from
 * `FilterField<F>`, because TypeScript widens an uninferred `F` to `string`
 * when given a metadata field, and the clause then no longer fits a
 * `FilterClause<ModelFilterField>`.
 */
type FieldNameOf<T> = Extract<T, string>;

function clause<T extends FilterField>(field: T, op: FilterOp): FilterClause<FieldNameOf<T>> {
  return { field, op } as FilterClause<FieldNameOf<T>>;
}

/** Builders for the AST; `formatFilter` turns their result into text. */
export const filterBuilder = {
  metadata: (keyId: number): MetadataField => ({ kind: 'metadata', keyId }),
  eq: <T extends FilterField>(field: T, value: FilterInput) => clause(field, { kind: 'eq', value: filterValue(value) }),
  ne: <T extends FilterField>(field: T, value: FilterInput) => clause(field, { kind: 'ne', value: filterValue(value) }),
  lt: <T extends FilterField>(field: T, value: FilterInput) => clause(field, { kind: 'lt', value: filterValue(value) }),
  lte: <T extends FilterField>(field: T, value: FilterInput) => clause(field, { kind: 'lte', value: filterValue(value) }),
  gt: <T extends FilterField>(field: T, value: FilterInput) => clause(field, { kind: 'gt', value: filterValue(value) }),
  gte: <T extends FilterField>(field: T, value: FilterInput) => clause(field, { kind: 'gte', value: filterValue(value) }),
  in: <T extends FilterField>(field: T, values: readonly FilterInput[]) => {
    if (values.length === 0) throw new RangeError('filter: in needs at least one value');
    return clause(field, { kind: 'in', values: values.map(filterValue) });
  },
  between: <T extends FilterField>(field: T, low: FilterInput, high: FilterInput) =>
    clause(field, { kind: 'between', low: filterValue(low), high: filterValue(high) }),
  like: <T extends FilterField>(field: T, pattern: string) => clause(field, { kind: 'like', pattern }),
  not: <F extends string>({ field, op }: FilterClause<F>) => clause(field, { kind: 'not', operand: op }),
};

// ---------------------------------------------------------------------------
// In-memory evaluation

/**
 * A record as the evaluator sees it: plain fields by name, and metadata in
 * the Model's wire shape (`[{metadataKeyId, value}]`).
 */
export type FilterRecord = Readonly<Record<string, unknown>>;

export interface EvaluateOptions {
  /** Overrides how a field's value is read from a record. */
  resolve?: (record: FilterRecord, field: FilterField) => unknown;
}

function resolveField(record: FilterRecord, field: FilterField): unknown {
  if (typeof field === 'string') return record[field];
  const metadata = record['metadata'];
  if (!Array.isArray(metadata)) return undefined;
  for (const entry of metadata as unknown[]) {
    if (typeof entry === 'object' && entry !== null && 'metadataKeyId' in entry && entry.metadataKeyId === field.keyId) {
      return 'value' in entry ? entry.value : undefined;
    }
  }
  return undefined;
}

const NUMERIC_TEXT = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function toNumber(value: FilterValue): number | undefined {
  if (value.kind === 'number') return value.value;
  if (!NUMERIC_TEXT.test(value.value)) return undefined;
  const n = Number(value.value);
  return Number.isFinite(n) ? n : undefined;
}

/** Date-times without an offset are read as UTC, so results never depend on the machine's zone. */
function toTime(text: string): number | undefined {
  const match = ISO_DATE.exec(text);
  if (match === null) return undefined;
  const zoned = text.includes('T') && match[1] === undefined ? `${text}Z` : text;
  const time = Date.parse(zoned);
  return Number.isNaN(time) ? undefined : time;
}

function sign(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Compares a record's value with a literal, typed by the record's value.
 * `undefined` means "not comparable" (missing value, wrong type), which makes
 * every positive operator false.
 */
function compare(actual: unknown, expected: FilterValue): number | undefined {
  if (typeof actual === 'number') {
    const n = toNumber(expected);
    return n === undefined || Number.isNaN(actual) ? undefined : sign(actual, n);
  }
  if (typeof actual === 'boolean') {
    const text = textOf(expected).toLowerCase();
    if (text !== 'true' && text !== 'false') return undefined;
    return sign(Number(actual), Number(text === 'true'));
  }
  if (actual instanceof Date) {
    const time = toTime(textOf(expected));
    return time === undefined || Number.isNaN(actual.getTime()) ? undefined : sign(actual.getTime(), time);
  }
  if (typeof actual === 'string') {
    const text = textOf(expected);
    // ISO strings with different precision or offsets do not sort as text.
    const actualTime = toTime(actual);
    const expectedTime = actualTime === undefined ? undefined : toTime(text);
    if (actualTime !== undefined && expectedTime !== undefined) return sign(actualTime, expectedTime);
    return actual < text ? -1 : actual > text ? 1 : 0;
  }
  return undefined;
}

/** `*` matches any run of characters. Iterative, so no pattern can backtrack exponentially. */
function globMatch(text: string, pattern: string): boolean {
  let t = 0;
  let p = 0;
  let star = -1;
  let mark = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] === '*') {
      star = p;
      p += 1;
      mark = t;
    } else if (p < pattern.length && pattern[p] === text[t]) {
      p += 1;
      t += 1;
    } else if (star !== -1) {
      p = star + 1;
      mark += 1;
      t = mark;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p += 1;
  return p === pattern.length;
}

function like(actual: unknown, pattern: string): boolean {
  const text = typeof actual === 'string' ? actual : typeof actual === 'number' ? String(actual) : undefined;
  return text !== undefined && globMatch(text.toLowerCase(), pattern.toLowerCase());
}

function holds(op: FilterOp, actual: unknown): boolean {
  switch (op.kind) {
    case 'not':
      return !holds(op.operand, actual);
    case 'ne':
      // The exact complement of eq, so `ne(x)` and `not(eq(x))` agree on records without the field.
      return compare(actual, op.value) !== 0;
    case 'in':
      return op.values.some((value) => compare(actual, value) === 0);
    case 'between': {
      const low = compare(actual, op.low);
      const high = compare(actual, op.high);
      return low !== undefined && high !== undefined && low >= 0 && high <= 0;
    }
    case 'like':
      return like(actual, op.pattern);
    default: {
      const c = compare(actual, op.value);
      if (c === undefined) return false;
      switch (op.kind) {
        case 'eq':
          return c === 0;
        case 'lt':
          return c < 0;
        case 'lte':
          return c <= 0;
        case 'gt':
          return c > 0;
        case 'gte':
          return c >= 0;
      }
    }
  }
}

/**
 * Whether a record satisfies every clause. Comparisons follow the record's
 * value type: numbers numerically, booleans against `true`/`false`, ISO dates
 * (strings or `Date`s) chronologically, other strings case-sensitively by
 * code unit; `like` is case-insensitive. A missing or mistyped value fails
 * every operator except `ne` and `not`, which are plain complements.
 */
export function evaluateFilter(clauses: readonly FilterClause[], record: FilterRecord, options: EvaluateOptions = {}): boolean {
  const resolve = options.resolve ?? resolveField;
  return clauses.every((c) => holds(c.op, resolve(record, c.field)));
}
