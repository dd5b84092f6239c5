import fastJsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, valueNestsDeeperThan } from '../../../src/core/json-depth.js';
import { RULES } from '../../../src/protocols/agui/rules.js';
import { patched, type PatchResult } from '../../../src/protocols/agui/state-tracker.js';
import { runStream } from './helpers.js';

/**
 * What the tracker reported when it let fast-json-patch throw: `applyPatch(doc, patch, true, false)`,
 * the first line of its error, and the failing operation found by replaying the operations one at a
 * time. The tracker now finds document-dependent failures without the library's error (which prints
 * the whole document twice); its verdicts must stay these.
 */
function libraryVerdict(document: unknown, patch: unknown): PatchResult {
  try {
    const value = fastJsonPatch.applyPatch(document, patch as Operation[], true, false).newDocument;
    if (valueNestsDeeperThan(value, MAX_JSON_DEPTH)) return { ok: false, reason: `the patched document would nest deeper than ${MAX_JSON_DEPTH} levels` };
    return { ok: true, value };
  } catch (cause) {
    const message = (cause as Error).message;
    let index: number | undefined;
    if (Array.isArray(patch)) {
      let doc = document;
      for (let i = 0; i < patch.length && index === undefined; i++) {
        try {
          doc = fastJsonPatch.applyPatch(doc, [patch[i] as Operation], true, false).newDocument;
        } catch {
          index = i;
        }
      }
    }
    return { ok: false, reason: message.split('\n')[0] as string, ...(index === undefined ? {} : { index }) };
  }
}

const doc = () => ({ a: { b: 1, list: [1, { x: 2 }, 3], empty: {} }, s: 'text', n: null, z: 0, 'k/~': { q: true } });

// One row per PatchError name fast-json-patch raises for the six RFC 6902 ops, with the text the
// finding carries; a row's first operations apply, so the index is the failing one's.
const failures: Array<[string, unknown[], string, number]> = [
  ['OPERATION_PATH_UNRESOLVABLE (replace)', [{ op: 'add', path: '/c', value: 1 }, { op: 'replace', path: '/missing', value: 1 }], 'Cannot perform the operation at a path that does not exist', 1],
  ['OPERATION_PATH_UNRESOLVABLE (remove in an array)', [{ op: 'remove', path: '/a/list/3' }], 'Cannot perform the operation at a path that does not exist', 0],
  ['OPERATION_PATH_UNRESOLVABLE (through a scalar)', [{ op: 'add', path: '/s/deeper/x', value: 1 }], 'Cannot perform operation at the desired path', 0],
  ['OPERATION_PATH_UNRESOLVABLE (through null)', [{ op: 'replace', path: '/n/x/y', value: 1 }], 'Cannot perform operation at the desired path', 0],
  ['OPERATION_PATH_CANNOT_ADD', [{ op: 'add', path: '/missing/x', value: 1 }], 'Cannot perform an `add` operation at the desired path', 0],
  ['OPERATION_FROM_UNRESOLVABLE (copy)', [{ op: 'copy', from: '/nope', path: '/c' }], 'Cannot perform the operation from a path that does not exist', 0],
  ['OPERATION_FROM_UNRESOLVABLE (move, deep)', [{ op: 'test', path: '/z', value: 0 }, { op: 'move', from: '/a/list/1/y', path: '/c' }], 'Cannot perform the operation from a path that does not exist', 1],
  ['OPERATION_FROM_UNRESOLVABLE (from through a scalar)', [{ op: 'copy', from: '/s/x/y', path: '/c' }], 'Cannot perform the operation from a path that does not exist', 0],
  ['OPERATION_PATH_ILLEGAL_ARRAY_INDEX', [{ op: 'add', path: '/a/list/first', value: 1 }], 'Expected an unsigned base-10 integer value, making the new referenced value the array element with the zero-based index', 0],
  ['OPERATION_VALUE_OUT_OF_BOUNDS', [{ op: 'add', path: '/a/list/4', value: 1 }], 'The specified index MUST NOT be greater than the number of elements in the array', 0],
  ['TEST_OPERATION_FAILED', [{ op: 'remove', path: '/z' }, { op: 'test', path: '/a/list/1', value: { x: 3 } }], 'Test operation failed', 1],
  ['TEST_OPERATION_FAILED (root)', [{ op: 'test', path: '', value: {} }], 'Test operation failed', 0],
  ['TEST_OPERATION_FAILED (escaped key)', [{ op: 'test', path: '/k~1~0/q', value: false }], 'Test operation failed', 0],
  ['OPERATION_OP_INVALID', [{ op: 'merge', path: '/a', value: 1 }], 'Operation `op` property is not one of operations defined in RFC-6902', 0],
  ['OPERATION_PATH_INVALID', [{ op: 'add', path: 'a', value: 1 }], 'Operation `path` property must start with "/"', 0],
  ['OPERATION_FROM_REQUIRED', [{ op: 'copy', path: '/c' }], 'Operation `from` property is not present (applicable in `move` and `copy` operations)', 0],
  ['OPERATION_VALUE_REQUIRED', [{ op: 'replace', path: '/z' }], 'Operation `value` property is not present (applicable in `add`, `replace` and `test` operations)', 0],
  ['OPERATION_NOT_AN_OBJECT', [{ op: 'remove', path: '/z' }, 'remove /s'], 'Operation is not an object', 1],
];

describe('state patches that fail: the same verdicts without the library printing the document', () => {
  it.each(failures)('%s', (_name, patch, reason, index) => {
    const expected = { ok: false, reason, index };
    expect(libraryVerdict(doc(), patch)).toEqual(expected);
    expect(patched(doc(), patch)).toEqual(expected);
  });

  it('a delta that is not an array fails without an operation index, as before', () => {
    const expected = { ok: false, reason: 'Patch sequence must be an array' };
    expect(libraryVerdict(doc(), { op: 'remove', path: '/z' })).toEqual(expected);
    expect(patched(doc(), { op: 'remove', path: '/z' })).toEqual(expected);
  });

  it('a banned __proto__ key still fails with the library\'s own message', () => {
    for (const patch of [[{ op: 'add', path: '/__proto__/x', value: 1 }], [{ op: 'copy', from: '/__proto__', path: '/c' }]]) {
      const verdict = patched(doc(), patch);
      expect(verdict).toEqual(libraryVerdict(doc(), patch));
      expect(verdict.ok).toBe(false);
    }
  });

  it('agrees with the library on every operation over every path of a document, failing or not', () => {
    const document = doc();
    const paths = ['', '/a', '/a/b', '/a/b/c', '/a/list', '/a/list/0', '/a/list/1/x', '/a/list/3', '/a/list/4', '/a/list/-', '/a/list/01', '/a/list/', '/a/empty/k', '/a/empty/k/l',
      '/s', '/s/0', '/n', '/n/x', '/z', '/z/x', '/k~1~0', '/k~1~0/q', '/k~1/q', '/missing', '/missing/x', '/', '/a/', '/constructor', '/a/toString/x'];
    const values = [1, { x: 2 }, [1, { x: 2 }, 3], true, null];
    const operations: unknown[] = [];
    for (const path of paths) {
      operations.push({ op: 'remove', path });
      for (const value of values) for (const op of ['add', 'replace', 'test']) operations.push({ op, path, value });
      for (const from of paths) for (const op of ['move', 'copy']) operations.push({ op, from, path });
    }
    let failed = 0;
    for (const operation of operations) {
      // Each alone, then after an operation that applies, so the index is checked too.
      for (const patch of [[operation], [{ op: 'add', path: '/fresh', value: 1 }, operation]]) {
        const verdict = patched(document, patch);
        expect(verdict, JSON.stringify(patch)).toEqual(libraryVerdict(document, patch));
        if (!verdict.ok) failed++;
      }
    }
    expect(document).toEqual(doc());
    expect(failed).toBeGreaterThan(500); // the failures, not only the successes, are compared
  });

  it('agrees with the library on a state that is an array, a scalar or null', () => {
    const documents = [[1, [2, { a: 3 }], { b: [] }], 'text', 5, null, {}];
    const paths = ['', '/0', '/1/1/a', '/1/1/a/x', '/1/-', '/1/2', '/1/3', '/2/b/0', '/x', '/-', '/0/x'];
    let failed = 0;
    for (const document of documents) {
      for (const path of paths) {
        const operations: unknown[] = [{ op: 'remove', path }, { op: 'add', path, value: 7 }, { op: 'replace', path, value: 7 }, { op: 'test', path, value: 3 }];
        for (const from of paths) operations.push({ op: 'move', from, path }, { op: 'copy', from, path });
        for (const operation of operations) {
          const verdict = patched(document, [operation]);
          expect(verdict, `${JSON.stringify(document)} ${JSON.stringify(operation)}`).toEqual(libraryVerdict(document, [operation]));
          if (!verdict.ok) failed++;
        }
      }
    }
    expect(failed).toBeGreaterThan(200);
  });

  it('the P1 finding for a failing delta on a large state carries the sentence and the operation, and the state stays', () => {
    const state = { items: Array.from({ length: 500 }, (_, i) => ({ id: i, tags: ['a', 'b'], note: 'x'.repeat(50) })) };
    const r = runStream(
      [
        { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
        { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/items/0/id', value: -1 }, { op: 'test', path: '/items/499/id', value: 0 }] },
        { type: 'STATE_DELTA', delta: [{ op: 'test', path: '/items/0/id', value: 0 }] },
        { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
      ],
      { requestBody: { threadId: 't', runId: 'r', messages: [], state } },
    );
    expect(r.located.map(({ at, rule, pointer, message }) => ({ at, rule, pointer, message }))).toEqual([
      { at: 1, rule: RULES.P1, pointer: '/delta/1', message: 'Failed to apply state patch: Test operation failed; the state stays as it was' },
    ]);
  });
});
