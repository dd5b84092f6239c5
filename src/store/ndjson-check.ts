import { TRANSPORTS } from '../core/transport.js';
import type { Column } from '../store/columns.js';
import { EXCHANGE_COLUMNS } from '../store/schema.js';
import { NDJSON_VERSION } from './ndjson-format.js';
import { isJsonObject } from '../core/json.js';
import { codeGenerationAllowed } from '../core/code-generation.js';

/**
 * Field-by-field checks of the three NDJSON line types, before anything is written: a line with a
 * missing field or a value of the wrong type is refused with the field named, instead of failing
 * later inside SQLite or a Date. Fields that may be null may also be absent (read as null).
 */

/** What is wrong with one line; the importer adds the file and line number. */
export class LineProblem extends Error {
  constructor(
    message: string,
    /** True when the line is fine but written by a newer agent-proxy. */
    readonly newer = false,
  ) {
    super(message);
  }
}

type Rule = { test: (value: unknown) => boolean; expected: string; nullable?: boolean; optional?: boolean };

const OUTCOMES = ['complete', 'aborted', 'error', 'rejected'];

const isString = (v: unknown) => typeof v === 'string';
const isInteger = (v: unknown) => Number.isSafeInteger(v);
const isPositiveInteger = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 1;
const isNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
const isDate = (v: unknown) => typeof v === 'string' && !Number.isNaN(Date.parse(v));
const isHeaders = (v: unknown) => isJsonObject(v) && Object.values(v).every((x) => typeof x === 'string' || (Array.isArray(x) && x.every(isString)));
const oneOf = (values: readonly string[]) => (v: unknown) => typeof v === 'string' && values.includes(v);

const text: Rule = { test: isString, expected: 'a string' };
const nullableText: Rule = { ...text, nullable: true };
const nullableInteger: Rule = { test: isInteger, expected: 'a whole number', nullable: true };

const RECORDING: Record<string, Rule> = {
  toolVersion: text,
  target: nullableText,
  listen: nullableText,
  mode: { test: (v) => typeof v === 'string' && v !== '', expected: 'a non-empty string' },
  startedAt: { test: isDate, expected: 'an ISO 8601 date' },
  endedAt: { test: isDate, expected: 'an ISO 8601 date', nullable: true },
  schemaHashes: { test: (v) => isJsonObject(v) && Object.values(v).every(isString), expected: 'an object of strings', optional: true },
  rulesVersion: { test: isPositiveInteger, expected: 'a positive whole number', optional: true },
};

/** What a column of its SQL type may hold; nullable unless the column is NOT NULL. */
function columnRule(column: Column): Rule {
  const rule: Rule = column.json
    ? { test: () => true, expected: 'JSON' }
    : column.type === 'INTEGER'
      ? { test: isInteger, expected: 'a whole number' }
      : column.type === 'REAL'
        ? { test: isNumber, expected: 'a number' }
        : column.type === 'TEXT'
          ? text
          : { test: () => false, expected: 'not in an exchange line' };
  return column.notNull ? rule : { ...rule, nullable: true };
}

/** Exchange fields that may hold less than their column's type allows. */
const NARROWER: Record<string, Rule> = {
  id: { test: isPositiveInteger, expected: 'a positive whole number' },
  transport: { test: oneOf(TRANSPORTS), expected: TRANSPORTS.join(', ') },
  requestHeaders: { test: isHeaders, expected: 'an object of header values' },
  responseHeaders: { test: isHeaders, expected: 'an object of header values' },
  startedMs: { test: isNumber, expected: 'a number of milliseconds' },
  endedMs: { test: isNumber, expected: 'a number of milliseconds' },
  outcome: { test: oneOf(OUTCOMES), expected: OUTCOMES.join(', ') },
  tls: { test: (v) => isJsonObject(v) && typeof v.authorized === 'boolean', expected: 'an object with "authorized"' },
  tunnel: { test: (v) => isJsonObject(v) && isCount(v.clientBytes) && isCount(v.serverBytes), expected: 'an object with "clientBytes" and "serverBytes"' },
};

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** One rule per column of `exchanges` (store/schema.ts), in column order. */
const EXCHANGE: Record<string, Rule> = Object.fromEntries(
  (Object.entries(EXCHANGE_COLUMNS) as Array<[string, Column]>).map(([field, column]) => {
    const rule = columnRule(column);
    const narrower = NARROWER[field];
    return [field, narrower === undefined ? rule : { ...narrower, nullable: rule.nullable }];
  }),
);

const MESSAGE: Record<string, Rule> = {
  exchange: { test: isPositiveInteger, expected: 'a positive whole number (the id of an exchange line above)' },
  seq: { test: isPositiveInteger, expected: 'a positive whole number', optional: true },
  sender: { test: oneOf(['client', 'server']), expected: 'client or server' },
  carrier: { test: oneOf(['body', 'event', 'frame', 'line']), expected: 'body, event, frame or line' },
  channel: nullableText,
  tOffsetMs: { test: isNumber, expected: 'a number of milliseconds' },
  raw: { ...text, optional: true },
  rawBase64: { test: (v) => typeof v === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(v), expected: 'a base64 string', optional: true },
  rawTruncatedFrom: nullableInteger,
  verdict: { test: isJsonObject, expected: 'an object', optional: true },
  jsonAt: { test: (v) => Number.isSafeInteger(v) && (v as number) >= 0, expected: 'a byte offset (a whole number, 0 or more)', optional: true },
  rawBefore: { ...text, optional: true },
  rawAfter: { test: (v) => typeof v === 'string' && /^[ \t\r\n]*$/.test(v), expected: 'white space (spaces, tabs, CR, LF)', optional: true },
};

const VERDICT: Record<string, Rule> = {
  status: { test: oneOf(['valid', 'invalid', 'unchecked']), expected: 'valid, invalid or unchecked' },
  // Absent: none before version 3, the derived one from it on; so not read as null here.
  schemaRef: { ...nullableText, optional: true },
  reason: nullableText,
  findings: { test: Array.isArray, expected: 'an array', optional: true },
};

const FINDING: Record<string, Rule> = {
  rule: text,
  severity: { test: oneOf(['error', 'warning']), expected: 'error or warning' },
  pointer: text,
  message: text,
};

/** Checks one object's fields by a set of rules; `prefix` names where the object is in the line. */
type FieldCheck = (line: Record<string, unknown>, prefix: string) => void;

/** Line 1: the recording line (its `type` and `format` already matched). */
export function checkRecordingLine(line: Record<string, unknown>): void {
  if (!isPositiveInteger(line.version)) throw new LineProblem(`"version" must be a positive whole number, not ${shown(line.version)}`);
  if ((line.version as number) > NDJSON_VERSION) {
    throw new LineProblem(`NDJSON recording version ${line.version as number}, but this agent-proxy reads versions up to ${NDJSON_VERSION}; upgrade agent-proxy to read it`, true);
  }
  checkRecording(line, '');
}

export function checkExchangeLine(line: Record<string, unknown>): void {
  checkExchange(line, '');
}

/** `version`: the file's (a version 3 line may leave its verdict out). */
export function checkMessageLine(line: Record<string, unknown>, version: number): void {
  checkMessage(line, '');
  if (line.verdict === undefined) {
    if (version < 3) throw new LineProblem('"verdict" is missing');
    line.verdict = { status: 'valid' };
  }
  const forms = (line.raw !== undefined || line.rawBase64 !== undefined ? 1 : 0) + (line.rawJson !== undefined ? 1 : 0);
  if (forms === 0) throw new LineProblem('a message needs "raw", "rawBase64" or "rawJson"');
  if (forms > 1) throw new LineProblem('a message has either "raw" (or "rawBase64") or "rawJson", not both');
  if (line.rawJson === undefined && (line.rawBefore !== undefined || line.rawAfter !== undefined)) throw new LineProblem('"rawBefore" and "rawAfter" go with "rawJson"');
  if (line.jsonAt !== undefined && line.json !== undefined) throw new LineProblem('a message has either "jsonAt" or "json", not both');
  const verdict = line.verdict as Record<string, unknown>;
  checkVerdict(verdict, 'verdict.');
  const findings = verdict.findings as unknown[] | undefined;
  if (findings === undefined) return;
  for (let i = 0; i < findings.length; i++) {
    const finding = findings[i];
    if (!isJsonObject(finding)) throw new LineProblem(`"verdict.findings[${i}]" must be an object, not ${shown(finding)}`);
    checkFinding(finding, `verdict.findings[${i}].`);
  }
}

/**
 * Checks each field; an absent nullable field is set to null (unless it may be absent), so the
 * importer sees every key. Compiled from the rules, once per set: a loop over the rules' entries
 * costs an array per line and reads the line by a varying key (a message line is most of a file).
 * Where code generation is refused, that loop is used, with the same results.
 */
function compileCheck(rules: Record<string, Rule>): FieldCheck {
  const entries = Object.entries(rules);
  if (!codeGenerationAllowed()) return (line, prefix) => checkByLoop(line, entries, prefix);
  const steps = entries.map(([name, rule], i) => {
    const field = /^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
    const absent = rule.optional ? '' : rule.nullable ? `line${field} = null;` : `throw missing(${i}, prefix);`;
    const wrong = `${rule.nullable ? 'v !== null && ' : ''}!tests[${i}](v)`;
    return `v = line${field}; if (v === undefined) { ${absent} } else if (${wrong}) throw wrongValue(${i}, prefix, v);`;
  });
  const tests = entries.map(([, rule]) => rule.test);
  const missing = (i: number, prefix: string) => missingProblem(entries[i]![0], prefix);
  const wrongValue = (i: number, prefix: string, value: unknown) => wrongValueProblem(entries[i]![0], entries[i]![1], prefix, value);
  return new Function('tests', 'missing', 'wrongValue', `return function check(line, prefix) { let v; ${steps.join(' ')} }`)(tests, missing, wrongValue) as FieldCheck;
}

function checkByLoop(line: Record<string, unknown>, entries: ReadonlyArray<[string, Rule]>, prefix: string): void {
  for (const [name, rule] of entries) {
    const value = line[name];
    if (value === undefined) {
      if (rule.optional) continue;
      if (rule.nullable) line[name] = null;
      else throw missingProblem(name, prefix);
      continue;
    }
    if (value === null && rule.nullable) continue;
    if (!rule.test(value)) throw wrongValueProblem(name, rule, prefix, value);
  }
}

function missingProblem(name: string, prefix: string): LineProblem {
  return new LineProblem(`"${prefix}${name}" is missing`);
}

function wrongValueProblem(name: string, rule: Rule, prefix: string, value: unknown): LineProblem {
  return new LineProblem(`"${prefix}${name}" must be ${rule.expected}${rule.nullable ? ' or null' : ''}, not ${shown(value)}`);
}

const checkRecording = compileCheck(RECORDING);
const checkExchange = compileCheck(EXCHANGE);
const checkMessage = compileCheck(MESSAGE);
const checkVerdict = compileCheck(VERDICT);
const checkFinding = compileCheck(FINDING);

/** A value as a problem message quotes it: short JSON. */
function shown(value: unknown): string {
  if (value === undefined) return 'missing';
  if (Array.isArray(value)) return 'an array';
  if (isJsonObject(value)) return 'an object';
  const json = JSON.stringify(value);
  return json.length <= 40 ? json : json.slice(0, 39) + '…';
}
