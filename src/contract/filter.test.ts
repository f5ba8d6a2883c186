import { describe, expect, it } from 'vitest';
import {
  FilterSyntaxError,
  QuerySyntaxError,
  evaluateFilter,
  filterBuilder as f,
  filterLimits,
  filterValue,
  folderFilterFields,
  formatFilter,
  modelFilterFields,
  parseFilter,
} from './filter';
import type { FilterClause, FilterOp, FilterValue } from './filter';

const models = { fields: modelFilterFields, allowMetadata: true };
const folders = { fields: folderFilterFields, allowMetadata: false };

const num = (raw: string): FilterValue => ({ kind: 'number', value: Number(raw), raw });
const text = (value: string): FilterValue => ({ kind: 'text', value });

const parse = (input: string) => parseFilter(input, models);

function syntaxError(input: string, options: Parameters<typeof parseFilter>[1] = models): FilterSyntaxError {
  try {
    parseFilter(input, options);
  } catch (error) {
    if (error instanceof FilterSyntaxError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(input.slice(0, 80))} to be refused`);
}

/** Deterministic so a failure reproduces; a tiny LCG is enough for test data. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('parseFilter', () => {
  it("reads the contract's example", () => {
    expect(parse("folderId(eq(12)),metadata.3(eq('Brass')),state(in(finished,finished-incomplete))")).toEqual([
      { field: 'folderId', op: { kind: 'eq', value: num('12') } },
      { field: { kind: 'metadata', keyId: 3 }, op: { kind: 'eq', value: text('Brass') } },
      { field: 'state', op: { kind: 'in', values: [text('finished'), text('finished-incomplete')] } },
    ]);
  });

  it.each<[string, FilterOp]>([
    ['eq(1)', { kind: 'eq', value: num('1') }],
    ['ne(x)', { kind: 'ne', value: text('x') }],
    ['lt(-2)', { kind: 'lt', value: num('-2') }],
    ['lte(2.5)', { kind: 'lte', value: num('2.5') }],
    ['gt(-0.25)', { kind: 'gt', value: num('-0.25') }],
    ["gte('2024-01-01T00:00:00Z')", { kind: 'gte', value: text('2024-01-01T00:00:00Z') }],
    ['in(a)', { kind: 'in', values: [text('a')] }],
    ["in(1,b,'c d')", { kind: 'in', values: [num('1'), text('b'), text('c d')] }],
    ['between(1,10)', { kind: 'between', low: num('1'), high: num('10') }],
    ["like('brack*')", { kind: 'like', pattern: 'brack*' }],
    ['like(exact)', { kind: 'like', pattern: 'exact' }],
    ['not(eq(1))', { kind: 'not', operand: { kind: 'eq', value: num('1') } }],
    ["not(in(a,'b'))", { kind: 'not', operand: { kind: 'in', values: [text('a'), text('b')] } }],
    ["not(not(like('*x')))", { kind: 'not', operand: { kind: 'not', operand: { kind: 'like', pattern: '*x' } } }],
  ])('reads %s', (source, op) => {
    expect(parse(`name(${source})`)).toEqual([{ field: 'name', op }]);
  });

  it('tells numbers from bare words', () => {
    const op = parse('id(in(12,-3,0.5,007,1.50,-,1e5,.5,2024-01-01,a-b_c.d,0f8fad5b-d9cb-469f-a165-70867728950e))')[0]?.op;
    expect(op).toEqual({
      kind: 'in',
      values: [
        num('12'),
        num('-3'),
        num('0.5'),
        { kind: 'number', value: 7, raw: '007' },
        { kind: 'number', value: 1.5, raw: '1.50' },
        text('-'),
        text('1e5'),
        text('.5'),
        text('2024-01-01'),
        text('a-b_c.d'),
        text('0f8fad5b-d9cb-469f-a165-70867728950e'),
      ],
    });
  });

  it("unescapes '' inside quoted strings", () => {
    expect(parse("name(in('it''s','','''','a,b(c)'))")[0]?.op).toEqual({
      kind: 'in',
      values: [text("it's"), text(''), text("'"), text('a,b(c)')],
    });
  });

  it('tolerates whitespace around every token', () => {
    expect(parse(" \t name ( not ( in ( a , 'b c' ) ) ) ,\n folderId ( between ( 1 , 2 ) ) \r\n")).toEqual([
      { field: 'name', op: { kind: 'not', operand: { kind: 'in', values: [text('a'), text('b c')] } } },
      { field: 'folderId', op: { kind: 'between', low: num('1'), high: num('2') } },
    ]);
  });

  it('reads an empty or blank filter as no clauses', () => {
    expect(parse('')).toEqual([]);
    expect(parse('  \n')).toEqual([]);
  });

  it('keeps repeated fields as separate clauses', () => {
    expect(parse('createdAt(gte(2024-01-01)),createdAt(lt(2025-01-01))')).toHaveLength(2);
  });

  it('reads metadata fields as key ids', () => {
    expect(parse("metadata.42(like('steel*')),metadata.007(eq(1))").map((c) => c.field)).toEqual([
      { kind: 'metadata', keyId: 42 },
      { kind: 'metadata', keyId: 7 },
    ]);
  });

  it('takes the allowed fields as a parameter', () => {
    expect(parseFilter('parentFolderId(eq(3)),name(eq(a))', folders).map((c) => c.field)).toEqual(['parentFolderId', 'name']);
  });

  it('allows exactly the nesting and in() limits', () => {
    const nested = `name(${'not('.repeat(filterLimits.maxDepth)}eq(1)${')'.repeat(filterLimits.maxDepth)})`;
    expect(parse(nested)).toHaveLength(1);
    const many = `id(in(${Array.from({ length: filterLimits.maxInValues }, (_, i) => String(i)).join(',')}))`;
    expect((parse(many)[0]?.op as { values: unknown[] }).values).toHaveLength(1000);
    const longest = `name(eq('${'a'.repeat(filterLimits.maxLength - 12)}'))`;
    expect(longest).toHaveLength(4000);
    expect(parse(longest)).toHaveLength(1);
  });
});

describe('parseFilter errors', () => {
  it.each<[string, number, string]>([
    ['isAssembly(eq())', 14, "filter: unexpected ')' at character 14: expected a value"],
    [
      'colour(eq(red))',
      0,
      "filter: unknown field 'colour' at character 0 (allowed: id, name, folderId, state, fileType, isAssembly, createdAt, metadata.<metadataKeyId>)",
    ],
    [
      'id(eq(1)),Name(eq(x))',
      10,
      "filter: unknown field 'Name' at character 10 (allowed: id, name, folderId, state, fileType, isAssembly, createdAt, metadata.<metadataKeyId>)",
    ],
    ['metadata.x(eq(1))', 9, "filter: invalid metadata key 'x' at character 9: expected an integer metadataKeyId"],
    ['metadata.(eq(1))', 9, "filter: invalid metadata key '' at character 9: expected an integer metadataKeyId"],
    ['metadata.1.2(eq(1))', 9, "filter: invalid metadata key '1.2' at character 9: expected an integer metadataKeyId"],
    ['metadata.-1(eq(1))', 9, "filter: invalid metadata key '-1' at character 9: expected an integer metadataKeyId"],
    ['id(equals(1))', 3, "filter: unknown operator 'equals' at character 3 (allowed: eq, ne, in, lt, lte, gt, gte, between, like, not)"],
    ['id(EQ(1))', 3, "filter: unknown operator 'EQ' at character 3 (allowed: eq, ne, in, lt, lte, gt, gte, between, like, not)"],
    ['id eq(1)', 3, "filter: unexpected 'eq' at character 3: expected '('"],
    ['id()', 3, "filter: unexpected ')' at character 3: expected an operator"],
    ['id(eq 1)', 6, "filter: unexpected '1' at character 6: expected '('"],
    ['id(eq(1,2))', 7, "filter: unexpected ',' at character 7: expected ')' (eq takes one value)"],
    ["name(like('a*','b'))", 14, "filter: unexpected ',' at character 14: expected ')' (like takes one value)"],
    ['id(between(1))', 12, "filter: unexpected ')' at character 12: expected ',' (between takes two values)"],
    ['id(between())', 11, "filter: unexpected ')' at character 11: expected a value (between takes two values)"],
    ['id(between(1,))', 13, "filter: unexpected ')' at character 13: expected a value (between takes two values)"],
    ['id(between(1,2,3))', 14, "filter: unexpected ',' at character 14: expected ')' (between takes two values)"],
    ['id(in())', 6, "filter: unexpected ')' at character 6: expected a value (in needs at least one value)"],
    ['id(in(a,))', 8, "filter: unexpected ')' at character 8: expected a value"],
    ['id(in(a b))', 8, "filter: unexpected 'b' at character 8: expected ',' or ')'"],
    ['id(not())', 7, "filter: unexpected ')' at character 7: expected an operator"],
    ["id(not('eq'))", 7, 'filter: unexpected quoted string at character 7: expected an operator'],
    ['id(not(eq))', 9, "filter: unexpected ')' at character 9: expected '('"],
    ['id(not(eq(1))', 13, "filter: unexpected end of input at character 13: expected ')'"],
    ["name(eq('abc))", 8, "filter: unterminated string at character 8: no closing quote (write '' for a quote inside a string)"],
    ["name(eq('it''s))", 8, "filter: unterminated string at character 8: no closing quote (write '' for a quote inside a string)"],
    ['id(eq(1)) x', 10, "filter: unexpected 'x' at character 10: expected ',' or end of input"],
    ['id(eq(1)))', 9, "filter: unexpected ')' at character 9: expected ',' or end of input"],
    ['id(eq(1))name(eq(a))', 9, "filter: unexpected 'name' at character 9: expected ',' or end of input"],
    ['id(eq(1)),', 10, 'filter: unexpected end of input at character 10: expected a field'],
    [',id(eq(1))', 0, "filter: unexpected ',' at character 0: expected a field"],
    ['id(eq(1)),,name(eq(a))', 10, "filter: unexpected ',' at character 10: expected a field"],
    ["'id'(eq(1))", 0, 'filter: unexpected quoted string at character 0: expected a field'],
    ['id(eq(1)', 8, "filter: unexpected end of input at character 8: expected ')'"],
    ['id(', 3, 'filter: unexpected end of input at character 3: expected an operator'],
    ['name(eq(a&b))', 9, "filter: unexpected '&' at character 9: expected ')'"],
    ['name(eq(&))', 8, "filter: unexpected '&' at character 8: expected a value"],
    ['name(eq(é))', 8, "filter: unexpected 'é' at character 8: expected a value"],
    ['name(eq("x"))', 8, `filter: unexpected '"' at character 8: expected a value`],
    ['name(eq(\u0007))', 8, 'filter: unexpected U+0007 at character 8: expected a value'],
    ['  id  (  eq  (  )', 16, "filter: unexpected ')' at character 16: expected a value"],
  ])('refuses %j at %i', (input, position, message) => {
    const error = syntaxError(input);
    expect(error.message).toBe(message);
    expect(error.position).toBe(position);
  });

  it('reports the first error in reading order', () => {
    // The unknown field comes before the unterminated string.
    expect(syntaxError("colour(eq('abc").position).toBe(0);
  });

  it('is a QuerySyntaxError for the filter parameter', () => {
    const error = syntaxError('id(');
    expect(error).toBeInstanceOf(QuerySyntaxError);
    expect(error).toBeInstanceOf(Error);
    expect(error.parameter).toBe('filter');
    expect(error.name).toBe('FilterSyntaxError');
  });

  it('refuses fields outside the given set, listing the allowed ones', () => {
    const error = syntaxError('folderId(eq(1))', folders);
    expect(error.message).toBe("filter: unknown field 'folderId' at character 0 (allowed: id, name, parentFolderId)");
    expect(syntaxError('id(eq(1)),metadata.3(eq(1))', folders).message).toBe(
      "filter: unknown field 'metadata.3' at character 10 (allowed: id, name, parentFolderId)",
    );
  });

  it('refuses input longer than 4000 characters', () => {
    const input = `name(eq('${'a'.repeat(filterLimits.maxLength - 11)}'))`;
    expect(input).toHaveLength(4001);
    const error = syntaxError(input);
    expect(error.position).toBe(4000);
    expect(error.message).toBe('filter: too long at character 4000: at most 4000 characters');
  });

  it('refuses more than 1000 values in in()', () => {
    // One-character values: value i starts at 6 + 2i, so the 1001st at 2006.
    const input = `id(in(${Array.from({ length: 1001 }, () => '1').join(',')}))`;
    const error = syntaxError(input);
    expect(error.position).toBe(2006);
    expect(error.message).toBe("filter: too many values in 'in' at character 2006: at most 1000");
  });

  it('refuses not() nested deeper than 8', () => {
    // The ninth 'not' starts at 3 + 4 * 8.
    const input = `id(${'not('.repeat(9)}eq(1)${')'.repeat(10)}`;
    const error = syntaxError(input);
    expect(error.position).toBe(35);
    expect(error.message).toBe("filter: 'not' nested deeper than 8 levels at character 35");
  });
});

describe('formatFilter and builders', () => {
  it('formats canonically and parses back', () => {
    const source = " folderId( eq(12) ) , metadata.3(eq('Brass')),state(in(finished, finished-incomplete))";
    const canonical = 'folderId(eq(12)),metadata.3(eq(Brass)),state(in(finished,finished-incomplete))';
    expect(formatFilter(parse(source))).toBe(canonical);
    expect(parse(canonical)).toEqual(parse(source));
  });

  it('keeps number literals exactly as written', () => {
    expect(formatFilter(parse('id(in(007,1.50,-0,12345678901234567890123))'))).toBe('id(in(007,1.50,-0,12345678901234567890123))');
  });

  it('quotes text that would otherwise change meaning', () => {
    expect(formatFilter(parse("name(in('12','-3.5','a b','','x''y','1e5',abc))"))).toBe("name(in('12','-3.5','a b','','x''y',1e5,abc))");
  });

  it('builds the web app filters', () => {
    const ids = ['0f8fad5b-d9cb-469f-a165-70867728950e', '7c9e6679-7425-40de-944b-e07fc1f90ae7'];
    expect(formatFilter([f.in('id', ['a', 'b', 'c'])])).toBe('id(in(a,b,c))');
    expect(formatFilter([f.in('id', ids)])).toBe(`id(in(${ids.join(',')}))`);
    expect(formatFilter([f.eq('folderId', 12), f.eq(f.metadata(3), 'Brass'), f.in('state', ['finished', 'finished-incomplete'])])).toBe(
      'folderId(eq(12)),metadata.3(eq(Brass)),state(in(finished,finished-incomplete))',
    );
    expect(formatFilter([f.not(f.like('name', '*bolt*')), f.eq('isAssembly', true)])).toBe(
      "name(not(like('*bolt*'))),isAssembly(eq(true))",
    );
    expect(formatFilter([f.between('createdAt', new Date(Date.UTC(2024, 0, 1)), '2024-02-01')])).toBe(
      "createdAt(between('2024-01-01T00:00:00.000Z',2024-02-01))",
    );
    expect(
      formatFilter([f.ne('name', "O'Brien"), f.lt('folderId', -1.5), f.lte('id', '12'), f.gt('folderId', 0), f.gte('folderId', 1)]),
    ).toBe("name(ne('O''Brien')),folderId(lt(-1.5)),id(lte('12')),folderId(gt(0)),folderId(gte(1))");
  });

  it('round-trips every builder through the parser', () => {
    const clauses: FilterClause<(typeof modelFilterFields)[number]>[] = [
      f.eq('name', 'x'),
      f.ne('name', 3),
      f.lt('folderId', 1e21),
      f.lte('folderId', -0),
      f.gt('folderId', 0.1 + 0.2),
      f.gte('createdAt', new Date(0)),
      f.in('state', ['a', "b'", 'c,d']),
      f.between('folderId', -1, 1),
      f.like(f.metadata(9), "*it's*"),
      f.not(f.not(f.eq('isAssembly', false))),
    ];
    expect(parse(formatFilter(clauses))).toEqual(clauses);
  });

  it('sends numbers the grammar cannot spell as text that still compares numerically', () => {
    expect(filterValue(1e21)).toEqual(text('1e+21'));
    expect(filterValue(1e-7)).toEqual(text('1e-7'));
    expect(evaluateFilter(parse(formatFilter([f.eq('folderId', 1e21)])), { folderId: 1e21 })).toBe(true);
    expect(() => filterValue(Number.NaN)).toThrow(RangeError);
    expect(() => filterValue(Infinity)).toThrow(RangeError);
  });

  it('refuses to format what the parser would refuse', () => {
    expect(() => f.in('id', [])).toThrow(RangeError);
    expect(() => formatFilter([{ field: 'id', op: { kind: 'in', values: [] } }])).toThrow(RangeError);
    const tooMany = Array.from({ length: 1001 }, (_, i) => i);
    expect(() => formatFilter([f.in('id', tooMany)])).toThrow(RangeError);
    let deep = f.eq('id', 1);
    for (let i = 0; i < 9; i += 1) deep = f.not(deep);
    expect(() => formatFilter([deep])).toThrow(RangeError);
    expect(() => formatFilter([{ field: 'a b', op: { kind: 'eq', value: text('x') } }])).toThrow(RangeError);
    expect(() => formatFilter([f.eq(f.metadata(1.5), 'x')])).toThrow(RangeError);
    expect(() => formatFilter([{ field: 'id', op: { kind: 'eq', value: { kind: 'number', value: 1, raw: '1e0' } } }])).toThrow(RangeError);
  });

  const tricky = [
    '',
    ' ',
    "'",
    "''",
    "'''",
    "it's",
    'a,b',
    '(',
    ')',
    '(x)',
    'eq(1)',
    'a),b(eq(1',
    '*',
    'a*b*',
    '\\',
    '"',
    '日本語',
    'emoji 😀 here',
    'e\u0301',
    '\u0000',
    '\n\t\r',
    ' leading and trailing ',
    '12',
    '-3.5',
    '007',
    'true',
    'metadata.3',
    'finished-incomplete',
    '%_?',
  ];

  it.each(tricky)('round-trips the value %j through every operator', (value) => {
    const clauses = [
      f.eq('name', value),
      f.ne('name', value),
      f.in('name', [value, value, 'plain']),
      f.between('name', value, value),
      f.like('name', value),
      f.not(f.lt('name', value)),
    ];
    const formatted = formatFilter(clauses);
    expect(parse(formatted)).toEqual(clauses);
    expect(formatFilter(parse(formatted))).toBe(formatted);
    expect(evaluateFilter([f.eq('name', value)], { name: value })).toBe(true);
  });

  it('round-trips random strings over a hostile alphabet', () => {
    const alphabet = [...'\',()*- _.aZ09\\"é😀\t', 'in(', 'not(', "''"];
    const next = random(42);
    for (let run = 0; run < 500; run += 1) {
      const length = Math.floor(next() * 12);
      let value = '';
      for (let i = 0; i < length; i += 1) value += alphabet[Math.floor(next() * alphabet.length)] ?? '';
      const clauses = [f.eq('name', value), f.in(f.metadata(run), [value, value])];
      const formatted = formatFilter(clauses);
      expect(parse(formatted), formatted).toEqual(clauses);
      expect(evaluateFilter(clauses, { name: value, metadata: [{ metadataKeyId: run, value }] })).toBe(true);
    }
  });

  it('round-trips random numbers', () => {
    const next = random(7);
    for (let run = 0; run < 500; run += 1) {
      const n = (next() - 0.5) * 10 ** Math.floor(next() * 12) * (run % 2 === 0 ? 1 : 0.001);
      const clauses = [f.eq('folderId', n)];
      expect(parse(formatFilter(clauses))).toEqual(clauses);
      expect(evaluateFilter(clauses, { folderId: n })).toBe(true);
    }
  });
});

describe('evaluateFilter', () => {
  const model = {
    id: '0f8fad5b-d9cb-469f-a165-70867728950e',
    name: 'Bracket Left',
    folderId: 12,
    state: 'finished',
    fileType: 'step',
    isAssembly: false,
    createdAt: '2024-03-01T10:00:00.000Z',
    metadata: [
      { metadataKeyId: 3, value: 'Brass' },
      { metadataKeyId: 4, value: 250 },
    ],
  };
  const holds = (filter: string, record: Record<string, unknown> = model) => evaluateFilter(parse(filter), record);

  it("matches the contract's example", () => {
    const example = "folderId(eq(12)),metadata.3(eq('Brass')),state(in(finished,finished-incomplete))";
    expect(holds(example)).toBe(true);
    expect(holds(example, { ...model, state: 'finished-incomplete' })).toBe(true);
    expect(holds(example, { ...model, state: 'failed' })).toBe(false);
    expect(holds(example, { ...model, folderId: 13 })).toBe(false);
    expect(holds(example, { ...model, metadata: [{ metadataKeyId: 3, value: 'brass' }] })).toBe(false);
  });

  it('requires every clause', () => {
    expect(holds('')).toBe(true);
    expect(holds('name(eq(x)),folderId(eq(12))')).toBe(false);
    expect(holds('folderId(eq(12)),name(eq(x))')).toBe(false);
  });

  it('compares numbers numerically', () => {
    expect(holds('folderId(gt(9))')).toBe(true);
    expect(holds('folderId(lt(100))')).toBe(true);
    expect(holds('folderId(eq(12.0))')).toBe(true);
    expect(holds("folderId(eq('12'))")).toBe(true);
    expect(holds('folderId(in(1,12,30))')).toBe(true);
    expect(holds('folderId(between(12,12))')).toBe(true);
    expect(holds('folderId(between(13,20))')).toBe(false);
    expect(holds('folderId(between(20,1))')).toBe(false);
    expect(holds('folderId(lte(11.99))')).toBe(false);
    expect(holds('folderId(gte(-12))')).toBe(true);
    expect(holds('metadata.4(gt(99))')).toBe(true);
    expect(holds('folderId(eq(twelve))')).toBe(false);
    expect(holds('folderId(ne(twelve))')).toBe(true);
  });

  it('compares strings case-sensitively by code unit', () => {
    expect(holds("name(eq('Bracket Left'))")).toBe(true);
    expect(holds("name(eq('bracket left'))")).toBe(false);
    expect(holds("name(ne('bracket left'))")).toBe(true);
    expect(holds('name(lt(C))')).toBe(true);
    expect(holds('name(lt(a))')).toBe(true);
    expect(holds('name(gt(Bracket))')).toBe(true);
    expect(holds('name(between(A,C))')).toBe(true);
    expect(holds('fileType(in(stl,STEP))')).toBe(false);
    // A string field compares with the literal's spelling, not its numeric value.
    expect(holds('name(eq(007))', { name: '007' })).toBe(true);
    expect(holds('name(eq(7))', { name: '007' })).toBe(false);
  });

  it('matches like case-insensitively with * as the only wildcard', () => {
    expect(holds("name(like('brack*'))")).toBe(true);
    expect(holds("name(like('*LEFT'))")).toBe(true);
    expect(holds("name(like('*ck*le*'))")).toBe(true);
    expect(holds("name(like('b*t*t'))")).toBe(true);
    expect(holds("name(like('*'))")).toBe(true);
    expect(holds("name(like('**'))")).toBe(true);
    expect(holds("name(like('bracket left'))")).toBe(true);
    expect(holds("name(like('bracket'))")).toBe(false);
    expect(holds("name(like('*right'))")).toBe(false);
    expect(holds("name(like('b*x*t'))")).toBe(false);
    expect(holds("name(like('br_cket*'))")).toBe(false);
    expect(holds("name(like('br%'))")).toBe(false);
    expect(holds("name(like('br?cket left'))")).toBe(false);
    expect(holds("name(like('ÄB*'))", { name: 'äbc' })).toBe(true);
    expect(holds("name(like('')) ", { name: '' })).toBe(true);
    expect(holds("name(like('*'))", { name: null })).toBe(false);
    expect(holds("name(not(like('*left')))")).toBe(false);
  });

  it('stays fast on patterns that make backtracking regexes explode', () => {
    const started = performance.now();
    expect(holds(`name(like('${'*a'.repeat(30)}*b'))`, { name: 'a'.repeat(3000) })).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('reads booleans from true/false', () => {
    expect(holds('isAssembly(eq(false))')).toBe(true);
    expect(holds('isAssembly(eq(true))')).toBe(false);
    expect(holds("isAssembly(eq('FALSE'))")).toBe(true);
    expect(holds('isAssembly(ne(true))')).toBe(true);
    expect(holds('isAssembly(in(true,false))')).toBe(true);
    expect(holds('isAssembly(eq(0))')).toBe(false);
    expect(holds('isAssembly(eq(yes))')).toBe(false);
  });

  it('compares ISO dates chronologically', () => {
    expect(holds('createdAt(gte(2024-03-01))')).toBe(true);
    expect(holds('createdAt(lt(2024-03-01))')).toBe(false);
    expect(holds("createdAt(lt('2024-03-01T10:00:00.001Z'))")).toBe(true);
    expect(holds("createdAt(eq('2024-03-01T10:00:00Z'))")).toBe(true);
    // 11:00+02:00 is 09:00Z: earlier, though it sorts later as text.
    expect(holds("createdAt(gt('2024-03-01T11:00:00+02:00'))")).toBe(true);
    // No offset means UTC, whatever the machine's zone.
    expect(holds("createdAt(eq('2024-03-01T10:00'))")).toBe(true);
    expect(holds("createdAt(between(2024-01-01,'2024-12-31T23:59:59Z'))")).toBe(true);
    expect(holds('createdAt(gt(2024-03-02))', { createdAt: new Date('2024-03-03T00:00:00Z') })).toBe(true);
    expect(holds('createdAt(eq(yesterday))', { createdAt: new Date('2024-03-03T00:00:00Z') })).toBe(false);
  });

  it('treats a missing value as failing every operator but ne and not', () => {
    expect(holds('metadata.9(eq(x))')).toBe(false);
    expect(holds('metadata.9(in(x))')).toBe(false);
    expect(holds("metadata.9(like('*'))")).toBe(false);
    expect(holds('metadata.9(between(a,z))')).toBe(false);
    expect(holds('metadata.9(ne(x))')).toBe(true);
    expect(holds('metadata.9(not(eq(x)))')).toBe(true);
    expect(holds('metadata.9(not(not(eq(x))))')).toBe(false);
    expect(holds('metadata.3(eq(Brass))', { name: 'no metadata' })).toBe(false);
    expect(holds('name(eq(x))', { name: { nested: true } })).toBe(false);
  });

  it('negates through nested not', () => {
    expect(holds('state(not(in(failed,unsupported)))')).toBe(true);
    expect(holds('state(not(not(eq(finished))))')).toBe(true);
    expect(holds('state(not(not(not(eq(finished)))))')).toBe(false);
    expect(holds(`state(${'not('.repeat(8)}eq(finished)${')'.repeat(8)})`)).toBe(true);
  });

  it('reads fields through a custom resolver', () => {
    const resolve = (record: Record<string, unknown>, field: FilterClause['field']) =>
      typeof field === 'string' ? record[field] : (record['meta'] as Record<number, unknown>)[field.keyId];
    expect(evaluateFilter(parse('metadata.3(eq(Brass))'), { meta: { 3: 'Brass' } }, { resolve })).toBe(true);
  });
});
