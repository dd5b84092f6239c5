import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';

/** ../shared beside the checkout: read-only reference material, never copied into the repo. */
export const SHARED_DIR = resolve(fileURLToPath(new URL('../../../shared', import.meta.url)));

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
