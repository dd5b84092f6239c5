import { describe, expect, it } from 'vitest';
import type { ErrorObject } from 'ajv';
import { ALL_ERRORS_MAX_VALUES } from '../../src/schema/schema-registry.js';
import { AGUI_SCHEMA_ID } from '../../src/protocols/agui/schemas.js';
import { findingsFromAjv, MAX_SCHEMA_FINDINGS } from '../../src/schema/ajv-errors.js';
import { bareRegistry } from '../support/shared.js';

/** A MESSAGES_SNAPSHOT whose `n` messages are all numbers: every one fails every branch of the Message union. */
const snapshotOf = (n: number) => ({ type: 'MESSAGES_SNAPSHOT', messages: new Array(n).fill(1) });

describe('schema validation that a large invalid message cannot blow up', () => {
  const check = bareRegistry().check(`${AGUI_SCHEMA_ID}#MessagesSnapshotEvent`);
  if (!check.ok) throw new Error(check.reason);

  it('lists every error of a small message, at most a hundred, and counts the rest', () => {
    const findings = check.validate(snapshotOf(3));
    expect(findings.length).toBeGreaterThanOrEqual(3);
    expect(findings.some((f) => f.pointer === '/messages/2')).toBe(true);
    const many = check.validate(snapshotOf(ALL_ERRORS_MAX_VALUES - 10));
    expect(many).toHaveLength(MAX_SCHEMA_FINDINGS + 1);
    expect(many.at(-1)!.message).toMatch(/^and \d+ more schema errors, not listed$/);
  });

  it('stops at the first error of a message of more values than that', () => {
    const findings = check.validate(snapshotOf(100_000));
    expect(findings.length).toBeGreaterThan(0);
    expect(findings.length).toBeLessThan(20);
    expect(findings.every((f) => f.message.endsWith(`(the first error found: a message of more than ${ALL_ERRORS_MAX_VALUES} values is not searched for all of them)`))).toBe(true);
  });

  it('still finds a large valid message valid', () => {
    const messages = Array.from({ length: 5000 }, (_, i) => ({ id: `m${i}`, role: 'user', content: 'hi' }));
    expect(check.validate({ type: 'MESSAGES_SNAPSHOT', messages })).toEqual([]);
  });
});

describe('findingsFromAjv', () => {
  const error = (keyword: string, instancePath: string): ErrorObject => ({ keyword, instancePath, schemaPath: '#', params: { type: 'object' }, message: 'must be object' });

  it('drops a combinator summary explained by an error at or below its place, as a prefix of the path', () => {
    const findings = findingsFromAjv([error('oneOf', '/a/1'), error('type', '/a/10'), error('oneOf', '/b'), error('type', '/c')]);
    // '/a/1' is a prefix of '/a/10' as a string: dropped, as before; nothing at or below '/b' explains that one.
    expect(findings.map((f) => f.pointer)).toEqual(['/a/10', '/b', '/c']);
  });
});
