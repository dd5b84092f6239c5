/**
 * The machinery of the schema module (store/schema.ts): a table is an object of columns, keyed by the
 * field name its rows use in JavaScript, in the table's column order. From it come the row types,
 * the SQL that reads and writes it, and the binding of a row to that SQL. Type-only users (the
 * inspector page) may import the types: nothing here needs Node.
 */
import { codeGenerationAllowed } from '../core/code-generation.js';
import { jsonTextOf } from '../core/serialised-json.js';

export type SqlType = 'INTEGER' | 'REAL' | 'TEXT' | 'BLOB';

/**
 * One column. `Value` is what a row holds as readers hand it out; `Stored` what SQLite holds (they
 * differ only for JSON columns: a value out, its text in the file).
 */
export interface Column<Value = unknown, Stored = Value> {
  /** The column's name in SQL. */
  readonly name: string;
  readonly type: SqlType;
  readonly notNull: boolean;
  /** Stored as JSON text, handed out parsed. */
  readonly json: boolean;
  /** Type carriers only; never set. */
  readonly value?: Value;
  readonly stored?: Stored;
}

export type Columns = Readonly<Record<string, Column<unknown, unknown>>>;

/** A row as readers hand it out. Columns that are SQL NULL are `null`. */
export type RowOf<C extends Columns> = { -readonly [K in keyof C]: C[K] extends Column<infer V, unknown> ? V : never };

/** A row as SQLite holds it: JSON columns are their text. */
export type StoredOf<C extends Columns> = { -readonly [K in keyof C]: C[K] extends Column<unknown, infer S> ? S : never };

const column = <Value, Stored = Value>(name: string, type: SqlType, notNull: boolean, json = false): Column<Value, Stored> => ({ name, type, notNull, json });

export const integer = (name: string) => column<number | null>(name, 'INTEGER', false);
export const requiredInteger = (name: string) => column<number>(name, 'INTEGER', true);
export const real = (name: string) => column<number | null>(name, 'REAL', false);
export const requiredReal = (name: string) => column<number>(name, 'REAL', true);
export const text = <T extends string = string>(name: string) => column<T | null>(name, 'TEXT', false);
export const requiredText = <T extends string = string>(name: string) => column<T>(name, 'TEXT', true);
export const blob = (name: string) => column<Uint8Array>(name, 'BLOB', true);
/** A value stored as its JSON text. */
export const jsonText = <T>(name: string) => column<T | null, string | null>(name, 'TEXT', false, true);

/** The fields of a table, in column order. */
export function fieldsOf<C extends Columns>(columns: C): Array<keyof C & string> {
  return Object.keys(columns) as Array<keyof C & string>;
}

/** Some of a table's columns, for a SELECT of only those. */
export function pickColumns<C extends Columns, K extends keyof C>(columns: C, fields: readonly K[]): Pick<C, K> {
  const out = {} as Pick<C, K>;
  for (const field of fields) out[field] = columns[field];
  return out;
}

/**
 * `a.name AS field, …`: a SELECT list whose rows come back keyed by field name; `read` gives some
 * fields an expression of their own (a value the file may hold in more than one place).
 */
export function selectList(columns: Columns, alias?: string, read: Readonly<Record<string, string>> = {}): string {
  const prefix = alias === undefined ? '' : `${alias}.`;
  return Object.entries(columns)
    .map(([field, c]) => (read[field] !== undefined ? `${read[field]} AS ${field}` : c.name === field && alias === undefined ? c.name : `${prefix}${c.name} AS ${field}`))
    .join(', ');
}

/**
 * INSERT of every column, with positional parameters in column order (see rowsBinder); with
 * `rows`, of that many rows in one statement. `literals`: SQL literals (sqlLiteral's) of some
 * fields, written into every row's tuple instead of a parameter; the parameters are the other
 * fields', in column order.
 */
export function insertSql(table: string, columns: Columns, rows = 1, literals: Readonly<Record<string, string>> = {}): string {
  const names = Object.values(columns).map((c) => c.name);
  const tuple = `(${Object.keys(columns).map((field) => literals[field] ?? '?').join(', ')})`;
  return `INSERT INTO ${table} (${names.join(', ')}) VALUES ${new Array<string>(rows).fill(tuple).join(', ')}`;
}

/**
 * `UPDATE table SET column = @field, … WHERE key = @key`; with `keepWhenNull`, a null parameter
 * keeps the stored value.
 */
export function updateSql(table: string, columns: Columns, fields: readonly string[], key: string, keepWhenNull = false): string {
  const sets = fields.map((field) => {
    const name = columns[field].name;
    return keepWhenNull ? `${name} = coalesce(@${field}, ${name})` : `${name} = @${field}`;
  });
  return `UPDATE ${table} SET ${sets.join(', ')} WHERE ${columns[key].name} = @${key}`;
}

/**
 * Turns `count` stored rows into the positional parameters of insertSql(…, count). Binding an
 * array is measurably cheaper than named parameters on the hottest statements; the array is reused
 * (statements bind synchronously), so rows cost no allocation here.
 * The function is compiled from the field list: a loop over the fields would read them by a varying
 * key, slower on the writer's hot path. Where code generation is refused, that loop is used.
 */
export function rowsBinder<C extends Columns>(columns: C, count: number): (rows: ReadonlyArray<StoredOf<C>>) => unknown[] {
  const fields = fieldNames(columns);
  const params = new Array<unknown>(fields.length * count);
  if (!codeGenerationAllowed()) {
    return (given) => {
      let k = 0;
      for (let r = 0; r < count; r++) {
        const row = given[r] as Record<string, unknown>;
        for (const field of fields) params[k++] = row[field];
      }
      return params;
    };
  }
  const rows: string[] = [];
  for (let r = 0; r < count; r++) {
    const assignments = fields.map((field, i) => `params[${r * fields.length + i}] = row.${field};`).join(' ');
    rows.push(`row = rows[${r}]; ${assignments}`);
  }
  return new Function('params', `return function bindRows(rows) { let row; ${rows.join(' ')} return params; }`)(params) as (rows: ReadonlyArray<StoredOf<C>>) => unknown[];
}

/** Compiles `test(row)`: whether each of `fields` is null on the row (true when there are none). */
export function nullTest<C extends Columns>(columns: C, fields: ReadonlyArray<keyof C & string>): (row: StoredOf<C>) => boolean {
  const known = new Set(fieldNames(columns));
  for (const field of fields) if (!known.has(field)) throw new Error(`not a column: ${field}`);
  if (!codeGenerationAllowed()) return (row) => fields.every((field) => (row as Record<string, unknown>)[field] === null);
  const test = fields.length === 0 ? 'true' : fields.map((field) => `row.${field} === null`).join(' && ');
  return new Function(`return function isNull(row) { return ${test}; }`)() as (row: StoredOf<C>) => boolean;
}

/**
 * Compiles `same(a, b)`: a bit mask of which of `fields` (bit i for fields[i], at most 30) two rows
 * hold the same value (===) in.
 */
export function sameFields<C extends Columns>(columns: C, fields: ReadonlyArray<keyof C & string>): (a: StoredOf<C>, b: StoredOf<C>) => number {
  const known = new Set(fieldNames(columns));
  for (const field of fields) if (!known.has(field)) throw new Error(`not a column: ${field}`);
  if (fields.length > 30) throw new Error('at most 30 fields');
  if (!codeGenerationAllowed()) {
    return (a, b) => fields.reduce((mask, field, i) => ((a as Record<string, unknown>)[field] === (b as Record<string, unknown>)[field] ? mask | (1 << i) : mask), 0);
  }
  const test = fields.length === 0 ? '0' : fields.map((field, i) => `(a.${field} === b.${field} ? ${1 << i} : 0)`).join(' | ');
  return new Function(`return function same(a, b) { return ${test}; }`)() as (a: StoredOf<C>, b: StoredOf<C>) => number;
}

/**
 * A value as an SQL literal that stores exactly what binding it would: NULL, a 32-bit integer, or a
 * short text of plain characters (an enumerated column's: 'server', 'event', 'valid'). Undefined for
 * anything else, which is bound as usual.
 */
export function sqlLiteral(value: unknown): string | undefined {
  if (value === null) return 'NULL';
  // better-sqlite3 binds every number as a REAL (a TEXT column keeps 7 as '7.0'), so the literal is one too.
  if (typeof value === 'number') return (value | 0) === value && !Object.is(value, -0) ? `${value}.0` : undefined;
  if (typeof value === 'string') return /^[\w.:/-]{0,64}$/.test(value) ? `'${value}'` : undefined;
  return undefined;
}

/**
 * Makes rows with every field null, as object literals: rows built field by field from a list
 * would be dictionaries in V8 (more than a dozen properties added by key), slower to fill and bind.
 */
export function blankRowFactory<C extends Columns>(columns: C): () => StoredOf<C> {
  if (!codeGenerationAllowed()) {
    const names = fieldNames(columns);
    return () => {
      const row: Record<string, unknown> = {};
      for (const field of names) row[field] = null;
      return row as StoredOf<C>;
    };
  }
  const fields = fieldNames(columns).map((field) => `${field}: null`);
  return new Function(`return function blankRow() { return { ${fields.join(', ')} }; }`)() as () => StoredOf<C>;
}

/**
 * Compiles `rowOf(values)`: a row of `selectValues(columns)`'s values (a statement read with
 * `.raw(true)`) as an object literal, with `extra` fields after the columns for values the SELECT
 * list adds after them. better-sqlite3 builds a keyed row property by property from C++, which
 * costs about as much as reading the row; an array and this literal cost half.
 */
export function rowFromValues<C extends Columns, E extends string = never>(columns: C, extra: readonly E[] = []): (values: readonly unknown[]) => StoredOf<C> & { [K in E]: unknown } {
  const names = [...fieldNames(columns), ...extra.map(checkedField)];
  if (!codeGenerationAllowed()) {
    return (v) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) row[names[i]!] = v[i];
      return row as StoredOf<C> & { [K in E]: unknown };
    };
  }
  const fields = names.map((field, i) => `${field}: v[${i}]`);
  return new Function(`return function rowOf(v) { return { ${fields.join(', ')} }; }`)() as (values: readonly unknown[]) => StoredOf<C> & { [K in E]: unknown };
}

/**
 * `a.name, …`: every column in the table's order, the SELECT list rowFromValues reads; `read` gives
 * some fields an expression of their own.
 */
export function selectValues(columns: Columns, alias?: string, read: Readonly<Record<string, string>> = {}): string {
  const prefix = alias === undefined ? '' : `${alias}.`;
  return Object.entries(columns)
    .map(([field, c]) => read[field] ?? `${prefix}${c.name}`)
    .join(', ');
}

/**
 * Compiles `copy(row, given)`: each of `fields` that `given` holds (not undefined) is set on the
 * stored row, a JSON column as its text (a SerialisedJson's own); with `undefinedIsNull` the others are set to null.
 */
export function fieldCopier<C extends Columns>(columns: C, fields: ReadonlyArray<keyof C & string>, undefinedIsNull: boolean): (row: Partial<StoredOf<C>>, given: object) => void {
  const known = new Set(fieldNames(columns));
  const steps = fields.map((field) => {
    if (!known.has(field)) throw new Error(`not a column: ${field}`);
    const value = columns[field].json ? 'jsonTextOf(v)' : 'v';
    return `v = given.${field}; if (v !== undefined) row.${field} = ${value};${undefinedIsNull ? ` else row.${field} = null;` : ''}`;
  });
  if (!codeGenerationAllowed()) {
    return (row, given) => {
      for (const field of fields) {
        const v = (given as Record<string, unknown>)[field];
        if (v !== undefined) (row as Record<string, unknown>)[field] = columns[field].json ? jsonTextOf(v) : v;
        else if (undefinedIsNull) (row as Record<string, unknown>)[field] = null;
      }
    };
  }
  return new Function('jsonTextOf', `return function copy(row, given) { let v; ${steps.join(' ')} }`)(jsonTextOf) as (row: Partial<StoredOf<C>>, given: object) => void;
}

/** The fields of a table, checked to be identifiers: the code compiled from them is the schema's own, never input. */
function fieldNames(columns: Columns): string[] {
  return Object.keys(columns).map(checkedField);
}

function checkedField(field: string): string {
  if (!/^[A-Za-z_$][\w$]*$/.test(field)) throw new Error(`not a field name: ${field}`);
  return field;
}

/** The JSON columns' fields of a table. */
export function jsonFieldsOf<C extends Columns>(columns: C): Array<keyof C & string> {
  return fieldsOf(columns).filter((field) => columns[field].json);
}

/** A row as handed out → as stored: JSON columns become their text; absent fields are null. */
export function storedRow<C extends Columns>(columns: C, row: Partial<RowOf<C>>): StoredOf<C> {
  const stored = {} as Record<string, unknown>;
  for (const field of fieldsOf(columns)) {
    const value = row[field] ?? null;
    stored[field] = columns[field].json && value !== null ? jsonTextOf(value) : value;
  }
  return stored as StoredOf<C>;
}
