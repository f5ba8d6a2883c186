// The one reader of STEP (ISO 10303-21, "Part 21") text: it finds the records of the DATA
// section and parses a record's parameters on demand. Both the reference scan
// (step-references.ts) and the placement graph (step-placements.ts) read files through it, so a
// quirk of the format (escaped quotes, comments, complex instances) is handled in one place.
// Records are located first and parsed only when asked for, because most of a CAD file is
// geometry that the product-structure readers never look at.

/** A parameter value: number, string, entity reference, enumeration, typed value, list, or null ($ and *). */
export type StepValue = number | string | StepRef | StepEnum | StepTyped | StepValue[] | null;
export interface StepRef {
  ref: number;
}
export interface StepEnum {
  enum: string;
}
export interface StepTyped {
  typed: string;
  args: StepValue[];
}

/** One entity of a record: the record itself when simple, one of its parts when complex. */
export interface StepPart {
  type: string;
  args: StepValue[];
}

/** Where a record `#id = TYPE(...);` sits in the text; `type` is `''` for a complex instance `#id = (A(...) B(...));`. */
export interface StepRecordSpan {
  id: number;
  type: string;
  /** Index of the record's body: the `(` of a simple record, the outer `(` of a complex one. */
  from: number;
  /** Index of the `;` that ends the record (the text's length when it is cut off). */
  end: number;
}

/** STEP files are Latin-1 at the byte level; non-ASCII text is spelt with \X\ escapes (see {@link decodeStepString}). */
export function stepText(content: string | Uint8Array): string {
  return typeof content === 'string' ? content : new TextDecoder('latin1').decode(content);
}

/**
 * The records of the DATA section in file order (the whole text when it has no DATA header, as in
 * a snippet or the first part of a file). Comments between records are skipped.
 */
export function* stepRecords(text: string): Generator<StepRecordSpan> {
  const t = text;
  const start = t.search(/\bDATA\s*(\([^)]*\))?\s*;/);
  let i = start >= 0 ? t.indexOf(';', start) + 1 : 0;
  const n = t.length;
  while (i < n) {
    const hash = t.indexOf('#', i);
    if (hash < 0) return;
    const comment = t.indexOf('/*', i);
    if (comment >= 0 && comment < hash) {
      const close = t.indexOf('*/', comment + 2);
      i = close < 0 ? n : close + 2;
      continue;
    }
    let j = hash + 1;
    let id = 0;
    while (j < n && isDigit(t.charCodeAt(j))) id = id * 10 + (t.charCodeAt(j++) - 48);
    while (j < n && isSpace(t.charCodeAt(j))) j++;
    if (t[j] !== '=') {
      i = j;
      continue;
    }
    j++;
    while (j < n && isSpace(t.charCodeAt(j))) j++;
    const typeStart = j;
    while (j < n && isNameChar(t.charCodeAt(j))) j++;
    const type = t.slice(typeStart, j).toUpperCase();
    const end = recordEnd(t, j);
    yield { id, type, from: j, end };
    i = end + 1;
  }
}

/** The parts of a record: one for a simple instance, several for a complex one; null when it is malformed or cut off. */
export function parseStepRecord(text: string, record: Pick<StepRecordSpan, 'type' | 'from' | 'end'>): StepPart[] | null {
  const p = new Cursor(text, record.from, record.end);
  try {
    if (record.type) {
      const args = p.list();
      return args ? [{ type: record.type, args }] : null;
    }
    if (!p.eat('(')) return null;
    const parts: StepPart[] = [];
    for (;;) {
      if (p.eat(')')) return parts;
      const name = p.name();
      if (!name) return null;
      const args = p.list();
      if (!args) return null;
      parts.push({ type: name.toUpperCase(), args });
    }
  } catch {
    return null;
  }
}

/** Decodes a STEP string literal's escapes: '' and the \X\, \X2\…\X0\, \X4\…\X0\ and \S\ forms. */
export function decodeStepString(s: string): string {
  return s
    .replace(/''/g, "'")
    .replace(/\\X2\\((?:[0-9A-F]{4})+)\\X0\\/gi, (_, hex: string) =>
      String.fromCharCode(...(hex.match(/.{4}/g) ?? []).map((h) => parseInt(h, 16))),
    )
    .replace(/\\X4\\((?:[0-9A-F]{8})+)\\X0\\/gi, (_, hex: string) =>
      String.fromCodePoint(...(hex.match(/.{8}/g) ?? []).map((h) => parseInt(h, 16))),
    )
    .replace(/\\X\\([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/\\S\\(.)/g, (_, c: string) => String.fromCharCode(c.charCodeAt(0) + 128))
    .replace(/\\\\/g, '\\');
}

/** The entity id of a reference parameter. */
export function refOf(v: StepValue | undefined): number | undefined {
  return v !== null && typeof v === 'object' && 'ref' in v ? v.ref : undefined;
}

/** A string parameter (already decoded), '' for anything else. */
export function stringOf(v: StepValue | undefined): string {
  return typeof v === 'string' ? v : '';
}

/** A list parameter, [] for anything else. */
export function listOf(v: StepValue | undefined): StepValue[] {
  return Array.isArray(v) ? v : [];
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;
const isNameChar = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || isDigit(c) || c === 95;

/** Index of the `;` that ends the record whose body starts at `from` (strings skipped). */
function recordEnd(t: string, from: number): number {
  let i = from;
  for (;;) {
    const semi = t.indexOf(';', i);
    if (semi < 0) return t.length;
    const quote = t.indexOf("'", i);
    if (quote < 0 || quote > semi) return semi;
    // skip the string literal ('' is an escaped quote)
    let j = quote + 1;
    for (;;) {
      const q = t.indexOf("'", j);
      if (q < 0) return t.length;
      if (t[q + 1] === "'") j = q + 2;
      else {
        i = q + 1;
        break;
      }
    }
  }
}

class Cursor {
  constructor(
    private readonly t: string,
    private i: number,
    private readonly end: number,
  ) {}

  skip() {
    while (this.i < this.end && isSpace(this.t.charCodeAt(this.i))) this.i++;
  }

  eat(c: string): boolean {
    this.skip();
    if (this.t[this.i] === c) {
      this.i++;
      return true;
    }
    return false;
  }

  name(): string {
    this.skip();
    const s = this.i;
    while (this.i < this.end && isNameChar(this.t.charCodeAt(this.i))) this.i++;
    return this.t.slice(s, this.i);
  }

  /** `( v, v, … )` */
  list(): StepValue[] | null {
    if (!this.eat('(')) return null;
    const out: StepValue[] = [];
    if (this.eat(')')) return out;
    for (;;) {
      out.push(this.value());
      if (this.eat(',')) continue;
      if (this.eat(')')) return out;
      throw new Error('bad list');
    }
  }

  value(): StepValue {
    this.skip();
    const t = this.t;
    const c = t[this.i];
    if (c === undefined || this.i >= this.end) throw new Error('end');
    if (c === '$' || c === '*') {
      this.i++;
      return null;
    }
    if (c === '#') {
      this.i++;
      let id = 0;
      while (this.i < this.end && isDigit(t.charCodeAt(this.i))) id = id * 10 + (t.charCodeAt(this.i++) - 48);
      return { ref: id };
    }
    if (c === "'") {
      let j = this.i + 1;
      for (;;) {
        const q = t.indexOf("'", j);
        if (q < 0 || q >= this.end) throw new Error('string');
        if (t[q + 1] === "'") j = q + 2;
        else {
          const raw = t.slice(this.i + 1, q);
          this.i = q + 1;
          return decodeStepString(raw);
        }
      }
    }
    if (c === '.') {
      const close = t.indexOf('.', this.i + 1);
      if (close < 0 || close >= this.end) throw new Error('enum');
      const e = t.slice(this.i + 1, close).toUpperCase();
      this.i = close + 1;
      return { enum: e };
    }
    if (c === '"') {
      // A binary literal: its hex digits as text (nothing here reads one).
      const close = t.indexOf('"', this.i + 1);
      if (close < 0 || close >= this.end) throw new Error('binary');
      const hex = t.slice(this.i + 1, close);
      this.i = close + 1;
      return hex;
    }
    if (c === '(') return this.list();
    if (c === '-' || c === '+' || (c >= '0' && c <= '9')) {
      const s = this.i;
      this.i++;
      while (this.i < this.end && /[0-9.eE+-]/.test(t[this.i]!)) this.i++;
      return Number(t.slice(s, this.i));
    }
    const name = this.name();
    if (!name) throw new Error('unexpected');
    const args = this.list();
    return { typed: name.toUpperCase(), args: args ?? [] };
  }
}
