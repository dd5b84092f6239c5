/**
 * Where the third-party corpus lives and whether it is there. Free of vitest so that the global
 * setup (which runs outside any test file) can use it too.
 */
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';

/** ../shared beside the checkout: read-only reference material, never copied into the repo. */
export const SHARED_DIR = resolve(fileURLToPath(new URL('../../../shared', import.meta.url)));

/** True when the third-party corpus in ../shared is present (CI has it; a plain clone does not). */
export const HAS_SHARED_CORPUS = existsSync(join(SHARED_DIR, 'fixtures'));

/** The folder of the tests that check conformance against the corpus; the only ones that read it. */
export const CONFORMANCE_DIR = resolve(fileURLToPath(new URL('../conformance', import.meta.url)));

/** The conformance test files, by name. */
export function conformanceFiles(): string[] {
  if (!existsSync(CONFORMANCE_DIR)) return [];
  return readdirSync(CONFORMANCE_DIR).filter((name) => name.endsWith('.test.ts')).sort();
}

/** The one line a run without the corpus prints, so a skipped group is never a surprise. */
export function corpusSkipNotice(files = conformanceFiles().length): string {
  const what = files === 1 ? '1 corpus conformance file' : `${files} corpus conformance files`;
  return `agent-proxy: ../shared (the third-party corpus) not found at ${SHARED_DIR}: skipping the ${what} in test/conformance/; CI runs them`;
}
