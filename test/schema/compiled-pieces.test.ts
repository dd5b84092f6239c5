/**
 * A compiled validator may be linked from its own statements alone (src/schema/compiled-validators.ts:
 * a root of a large document reaches a small part of it). For every export of every compiled module,
 * in both error modes, that must give the validator the module gives: it links (every name it
 * mentions is declared), and it judges the same values the same, errors and all.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { COMPILED_MANIFEST, type CompiledManifest } from '../../src/schema/compiled-validators.js';
import { linkAlone, readPieces, statementsOf } from '../../src/schema/compiled-pieces.js';
import { SCHEMA_FORMATS } from '../../src/schema/schema-formats.js';
import { OPENAI_SCHEMA_ID } from '../../src/protocols/openai/schemas.js';
import { REPO } from '../cli/run-cli.js';

const COMPILED_DIR = join(REPO, 'dist/schema/compiled');
const manifest = JSON.parse(readFileSync(join(COMPILED_DIR, COMPILED_MANIFEST), 'utf8')) as CompiledManifest;
const load = createRequire(import.meta.url);
/** A document's ref → export name (its modules' exports file, named by the manifest). */
const exportsOf = (file: string): Record<string, string> => JSON.parse(readFileSync(join(COMPILED_DIR, file), 'utf8')) as Record<string, string>;

/** Values of several shapes, valid for some roots and not for others (each root sees them all). */
const VALUES: unknown[] = [
  null, 0, 'x', [], {}, [1, 'a'],
  { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } },
  { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'hi' }] } },
  { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] },
  { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true, tools: [{ type: 'function', function: { name: 'f', parameters: {} } }] },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 3 } },
  { type: 'prompt', id: 'c1', message: 'hi' },
];

describe('compiled validators linked alone', () => {
  it('give the validator their module gives, for every export of every module', () => {
    let linked = 0;
    for (const [id, entry] of Object.entries(manifest.documents)) {
      for (const file of [entry.allErrors, entry.firstError]) {
        const path = join(COMPILED_DIR, file);
        const pieces = readPieces(path);
        expect(pieces, file).toBeDefined();
        const bytes = readFileSync(path);
        const module = (load(path) as (formats: typeof SCHEMA_FORMATS) => Record<string, ValidateFunction>)(SCHEMA_FORMATS);
        const names = new Set(Object.values(exportsOf(entry.exports)));
        expect(Object.keys(pieces!.exports).sort(), file).toEqual([...names].sort());
        // OpenAI's 371 roots reach much of the same code: every fourth, to keep this file's time.
        let n = 0;
        for (const name of names) {
          if (id === OPENAI_SCHEMA_ID && n++ % 4 !== 0) continue;
          const alone = linkAlone(path, bytes, pieces!, name);
          linked++;
          for (const value of VALUES) {
            const ok = alone(value);
            const errors = alone.errors;
            expect(ok, `${file} ${name}`).toBe(module[name]!(value));
            if (!isDeepStrictEqual(errors, module[name]!.errors)) expect(errors).toEqual(module[name]!.errors);
          }
        }
      }
    }
    expect(linked).toBeGreaterThan(2000);
  });

  it('link a root from a small part of a large document', () => {
    const entry = manifest.documents[OPENAI_SCHEMA_ID]!;
    const pieces = readPieces(join(COMPILED_DIR, entry.allErrors))!;
    const chunk = exportsOf(entry.exports)[`${OPENAI_SCHEMA_ID}#/$defs/CreateChatCompletionStreamResponse`]!;
    const needed = statementsOf(pieces, chunk)!;
    let length = 0;
    for (const i of needed) length += pieces.statements[i]![1]! - pieces.statements[i]![0]!;
    expect(length * 10).toBeLessThan(pieces.size);
  });
});
