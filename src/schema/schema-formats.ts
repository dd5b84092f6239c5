// What the shipped schemas use beyond draft 2020-12: formats that carry a check, and annotations.
// Both the validators compiled at run time and those compiled at build time link to these.

/** A format as ajv takes it: the JSON type it applies to and the check. */
export interface SchemaFormat {
  readonly type: 'number' | 'string';
  readonly validate: (value: never) => boolean;
}

const INT_RANGES: Record<string, [number, number]> = {
  int32: [-2147483648, 2147483647],
  uint16: [0, 65535],
  uint32: [0, 4294967295],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint64: [0, Number.MAX_SAFE_INTEGER],
};

function integerRange([min, max]: [number, number]): SchemaFormat {
  return { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= min && n <= max };
}

/** Every format with a check, by name. */
export const SCHEMA_FORMATS: Readonly<Record<string, SchemaFormat>> = {
  ...Object.fromEntries(Object.entries(INT_RANGES).map(([name, range]) => [name, integerRange(range)])),
  double: { type: 'number', validate: (n: number) => Number.isFinite(n) },
  uri: { type: 'string', validate: (s: string) => URL.canParse(s) },
  // Base64 data, with or without its padding, whitespace allowed (as atob() takes it).
  byte: { type: 'string', validate: (s: string) => /^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(s) },
  // An RFC 6570 URI template: any string may be one, so this checks nothing.
  'uri-template': { type: 'string', validate: () => true },
};

/**
 * Keywords that validate nothing: $anchor is resolved by ajv's ref resolver but unknown to its strict
 * keyword check; the x-* and discriminator annotations come from the ACP schema.
 */
export const ANNOTATION_KEYWORDS = ['$anchor', 'x-method', 'x-side', 'x-docs-ignore', 'x-deserialize-default-on-error', 'x-deserialize-skip-invalid-items', 'discriminator'];
