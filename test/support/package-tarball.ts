/**
 * vitest global setup: a folder for the run's one `npm pack` of this repository, shared by the
 * test/package/ files (test/package/packed-project.ts packs into it the first time a file asks, and
 * every other file of the run installs that tarball). Packing is ~3.5 s of CPU; the folder costs a
 * run that has no package test nothing. Removed when the run ends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the run's tarball of this repository is packed (see test/package/packed-project.ts). */
    packageTarballDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-tarball-'));
  project.provide('packageTarballDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
