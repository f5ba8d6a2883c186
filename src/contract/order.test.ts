import { describe, expect, it } from 'vitest';
import { QuerySyntaxError } from './filter';
import { OrderSyntaxError, formatOrder, listOrderFields, matchOrderFields, parseOrder } from './order';
import type { OrderTerm } from './order';

const lists = { fields: listOrderFields };
const matches = { fields: matchOrderFields };

function syntaxError(input: string, options: { fields: readonly string[] } = lists): OrderSyntaxError {
  try {
    parseOrder(input, options);
  } catch (error) {
    if (error instanceof OrderSyntaxError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
}

describe('parseOrder', () => {
  it('reads fields with directions', () => {
    expect(parseOrder('name,-createdAt', lists)).toEqual([
      { field: 'name', direction: 'asc' },
      { field: 'createdAt', direction: 'desc' },
    ]);
    expect(parseOrder('-state', lists)).toEqual([{ field: 'state', direction: 'desc' }]);
  });

  it('reads the match-only score fields', () => {
    expect(parseOrder('-forwardMatchPercentage,-reverseMatchPercentage,matchPercentage,name', matches)).toEqual([
      { field: 'forwardMatchPercentage', direction: 'desc' },
      { field: 'reverseMatchPercentage', direction: 'desc' },
      { field: 'matchPercentage', direction: 'asc' },
      { field: 'name', direction: 'asc' },
    ]);
  });

  it('tolerates whitespace around every token', () => {
    expect(parseOrder(' \t- name ,\n createdAt  ', lists)).toEqual([
      { field: 'name', direction: 'desc' },
      { field: 'createdAt', direction: 'asc' },
    ]);
  });

  it('reads an empty or blank order as the default', () => {
    expect(parseOrder('', lists)).toEqual([]);
    expect(parseOrder('   ', lists)).toEqual([]);
  });

  it('round-trips through formatOrder', () => {
    const terms: OrderTerm<(typeof matchOrderFields)[number]>[] = [
      { field: 'matchPercentage', direction: 'desc' },
      { field: 'createdAt', direction: 'asc' },
      { field: 'name', direction: 'desc' },
    ];
    expect(formatOrder(terms)).toBe('-matchPercentage,createdAt,-name');
    expect(parseOrder(formatOrder(terms), matches)).toEqual(terms);
    expect(formatOrder([])).toBe('');
  });
});

describe('parseOrder errors', () => {
  it.each<[string, number, string]>([
    ['colour', 0, "order: unknown field 'colour' at character 0 (allowed: name, createdAt, state)"],
    ['name,colour', 5, "order: unknown field 'colour' at character 5 (allowed: name, createdAt, state)"],
    ['-colour', 1, "order: unknown field 'colour' at character 1 (allowed: name, createdAt, state)"],
    ['Name', 0, "order: unknown field 'Name' at character 0 (allowed: name, createdAt, state)"],
    ['name-x', 0, "order: unknown field 'name-x' at character 0 (allowed: name, createdAt, state)"],
    ['matchPercentage', 0, "order: unknown field 'matchPercentage' at character 0 (allowed: name, createdAt, state)"],
    ['name,-name', 6, "order: duplicate field 'name' at character 6 (already at character 0)"],
    ['state, createdAt, -state', 19, "order: duplicate field 'state' at character 19 (already at character 0)"],
    ['name,,state', 5, "order: unexpected ',' at character 5: expected a field"],
    [',name', 0, "order: unexpected ',' at character 0: expected a field"],
    ['name,', 5, 'order: unexpected end of input at character 5: expected a field'],
    ['name, ', 6, 'order: unexpected end of input at character 6: expected a field'],
    ['-', 1, 'order: unexpected end of input at character 1: expected a field'],
    ['--name', 1, "order: unexpected '-' at character 1: expected a field"],
    ['+name', 0, "order: unexpected '+' at character 0: expected a field"],
    ['name state', 5, "order: unexpected 's' at character 5: expected ',' or end of input"],
    ['name;state', 4, "order: unexpected ';' at character 4: expected ',' or end of input"],
    ['name,é', 5, "order: unexpected 'é' at character 5: expected a field"],
    ['name\u0000', 4, "order: unexpected U+0000 at character 4: expected ',' or end of input"],
  ])('refuses %j at %i', (input, position, message) => {
    const error = syntaxError(input);
    expect(error.message).toBe(message);
    expect(error.position).toBe(position);
  });

  it('is a QuerySyntaxError for the order parameter', () => {
    const error = syntaxError('nope');
    expect(error).toBeInstanceOf(QuerySyntaxError);
    expect(error.parameter).toBe('order');
    expect(error.name).toBe('OrderSyntaxError');
  });

  it('takes the allowed fields as a parameter', () => {
    expect(syntaxError('name', { fields: ['id'] }).message).toBe("order: unknown field 'name' at character 0 (allowed: id)");
  });
});
