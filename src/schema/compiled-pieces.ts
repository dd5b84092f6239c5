import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import { SCHEMA_FORMATS } from './schema-formats.js';

/**
 * A compiled module's statements (scripts/compile-validators.mjs, piecesOf), so that one of its
 * validators can be linked from the code it needs alone instead of the module whole
 * (compiled-validators.ts): a root of a large document reaches a small part of it.
 */

/** Beside each module, the list of its linking function's statements (ModulePieces), written by the build. */
export function piecesFile(moduleFile: string): string {
  return moduleFile.replace(/\.cjs$/, '.pieces.json');
}

/** A compiled module's statements, so that one validator can be linked from its own code alone. */
export interface ModulePieces {
  /** The linking function's length, in bytes. */
  size: number;
  /** Each statement: its start and end in the module's bytes (UTF-8), then the statements it needs (that declare a name it mentions). */
  statements: number[][];
  /** Export name → the function it names, and the statements that declare that function. */
  exports: Record<string, { fn: string; statements: number[] }>;
}

/** The statements of the module at `path` (piecesFile), or undefined when the build wrote none. */
export function readPieces(path: string): ModulePieces | undefined {
  try {
    return JSON.parse(readFileSync(piecesFile(path), 'utf8')) as ModulePieces;
  } catch {
    return undefined;
  }
}

/** The statements the export `name` needs, in the module's order; undefined when it is not one. */
export function statementsOf(pieces: ModulePieces, name: string): number[] | undefined {
  const root = pieces.exports[name];
  return root && closure(pieces, root.statements);
}

/**
 * The export `name` of the module at `path` (its bytes, its pieces), linked from the statements it
 * needs alone: joined in the module's order, as strict code, and compiled.
 */
export function linkAlone(path: string, bytes: Buffer, pieces: ModulePieces, name: string, needed = statementsOf(pieces, name)!): ValidateFunction {
  const code = `"use strict";\n${needed.map((i) => bytes.toString('utf8', pieces.statements[i]![0], pieces.statements[i]![1])).join('\n')}\nreturn ${pieces.exports[name]!.fn};`;
  return new Function('require', 'schemaFormats', code)(createRequire(path), SCHEMA_FORMATS) as ValidateFunction;
}

/** The statements `from` need, theirs, and so on, in the module's order (a declaration comes before its use, as there). */
function closure(pieces: ModulePieces, from: number[]): number[] {
  const needed = new Set<number>();
  const stack = [...from];
  while (stack.length > 0) {
    const i = stack.pop()!;
    if (needed.has(i)) continue;
    needed.add(i);
    const statement = pieces.statements[i]!;
    for (let d = 2; d < statement.length; d++) stack.push(statement[d]!);
  }
  return [...needed].sort((a, b) => a - b);
}
