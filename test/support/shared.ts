import { existsSync, readFileSync } from 'node:fs';
import { describe } from 'vitest';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';

/** ../shared beside the checkout: read-only reference material, never copied into the repo. */
export const SHARED_DIR = resolve(fileURLToPath(new URL('../../../shared', import.meta.url)));

/** True when the third-party corpus in ../shared is present (CI has it; a plain clone does not). */
export const HAS_SHARED_CORPUS = existsSync(join(SHARED_DIR, 'fixtures'));
/** `describe` for tests that read the corpus: skipped, not failed, in a clone without ../shared. */
export const describeWithCorpus = describe.skipIf(!HAS_SHARED_CORPUS);

export function sharedPath(...parts: string[]): string {
  return join(SHARED_DIR, ...parts);
}

export function readSharedJson<T = unknown>(...parts: string[]): T {
  return JSON.parse(readFileSync(sharedPath(...parts), 'utf8')) as T;
}

let full: SchemaRegistry | undefined;
let bare: SchemaRegistry | undefined;

/** Project schemas + ../shared/schemas-extra + ACP, loaded once per test file. */
export function fullRegistry(): SchemaRegistry {
  full ??= SchemaRegistry.load({ useEnv: false, extraDirs: [sharedPath('schemas-extra')] });
  return full;
}

/** Project schemas + ACP only: what a user gets without --schemas. */
export function bareRegistry(): SchemaRegistry {
  bare ??= SchemaRegistry.load({ useEnv: false });
  return bare;
}
