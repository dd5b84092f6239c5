import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'vitest';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import type { SchemaDocument } from '../../src/schema/schema-document.js';
import { HAS_SHARED_CORPUS, SHARED_DIR } from './corpus.js';

export { HAS_SHARED_CORPUS, SHARED_DIR };
/**
 * `describe` for tests that read the corpus: skipped, not failed, in a clone without ../shared.
 * Without the corpus the body is not even run (vitest runs a skipped describe's body to list its
 * tests, and a body that reads the corpus would fail the file): the group shows as one skipped test.
 */
export function describeWithCorpus(name: string, body: () => void): void {
  if (HAS_SHARED_CORPUS) describe(name, body);
  // Skipped on purpose: a clone from a git host has no ../shared, and test/support/corpus-notice.ts says
  // so in one line (CI sets AGENT_PROXY_REQUIRE_CORPUS, which fails instead). The placeholder keeps the
  // file from failing as "no tests", and names what is missing.
  else describe.skip(name, () => it('needs the third-party corpus in ../shared', () => undefined));
}

export function sharedPath(...parts: string[]): string {
  return join(SHARED_DIR, ...parts);
}

export function readSharedJson<T = unknown>(...parts: string[]): T {
  return JSON.parse(readFileSync(sharedPath(...parts), 'utf8')) as T;
}

/**
 * A corpus file for a conformance file's top level, which vitest runs even for a skipped
 * `describeWithCorpus`: the file's content, or `absent` in a checkout without ../shared.
 */
export function corpusJson<T>(absent: T, ...parts: string[]): T {
  return HAS_SHARED_CORPUS ? readSharedJson<T>(...parts) : absent;
}

/** The names in a corpus folder, or none in a checkout without ../shared. */
export function corpusDir(...parts: string[]): string[] {
  return HAS_SHARED_CORPUS ? readdirSync(sharedPath(...parts)) : [];
}

/** Our stand-ins for the third-party NDJSON protocol schemas: see its README. */
export const STANDIN_SCHEMAS_DIR = fileURLToPath(new URL('../fixtures/schemas-extra-standin', import.meta.url));

let full: SchemaRegistry | undefined;
let bare: SchemaRegistry | undefined;
let standIn: SchemaRegistry | undefined;

/** Project schemas + the real ../shared/schemas-extra + ACP: for test/conformance/ only (needs the corpus). */
export function fullRegistry(): SchemaRegistry {
  full ??= SchemaRegistry.load({ useEnv: false, extraDirs: [sharedPath('schemas-extra')] });
  return full;
}

/** What ships, with our stand-in pi-daemon schemas over the real ones (see their README): what behaviour tests judge with. */
export function testRegistry(): SchemaRegistry {
  standIn ??= SchemaRegistry.load({ useEnv: false, extraDirs: [STANDIN_SCHEMAS_DIR] });
  return standIn;
}

/** What ships (schemas/ and ACP): what a user gets without --schemas. */
export function bareRegistry(): SchemaRegistry {
  bare ??= SchemaRegistry.load({ useEnv: false });
  return bare;
}

/**
 * What ships, less the documents with these $ids: every shipped $ref resolves, so this is how a test
 * reaches what a missing schema does (unchecked, with the reason), as in a registry a user gave less.
 */
export function registryWithout(...ids: string[]): SchemaRegistry {
  const documents = new Map([...bareRegistry().documents].filter(([id]) => !ids.includes(id)));
  return new (SchemaRegistry as unknown as new (documents: Map<string, SchemaDocument>, compiled: undefined) => SchemaRegistry)(documents, undefined);
}
