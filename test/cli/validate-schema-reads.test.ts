/**
 * `validate` reads the shipped schema documents its file's protocol uses, and no other: each shipped
 * file is known by the `$id` the build's manifest gives it and read (and compared with the build's
 * copy of its bytes) when its document is first used. A shipped file changed since the build is
 * still found when used, and judged as a build without compiled validators judges it: read, hashed
 * and compiled at run time. What a run reads is watched by a preload (test/fixtures/preload/files-read.cjs)
 * that lists the files node:fs opens, and changes nothing.
 */
import { readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMPILED_MANIFEST, type CompiledManifest } from '../../src/schema/compiled-validators.js';
import { AGUI_SCHEMA_ID } from '../../src/protocols/agui/schemas.js';
import { REPO, runCli, type CliResult } from './run-cli.js';
import { linkedCopy } from '../support/linked-copy.js';
import { tempDir } from '../support/temp-dir.js';

const PRELOAD = join(REPO, 'test/fixtures/preload/files-read.cjs');
const AGUI_FILE = join(REPO, 'examples/agui-text-run.sse');
const ACP_FILE = realpathSync(createRequire(import.meta.url).resolve('@agentclientprotocol/sdk/schema/schema.json'));
const scratch = tempDir('validate-schema-reads-');
afterAll(() => scratch.cleanup());
let runs = 0;

/** `validate` run by the CLI of `root` (a build), with the files it read. */
async function validateReading(root: string, args: string[]): Promise<{ result: CliResult; read: string[] }> {
  const log = scratch.file(`read-${runs++}.json`);
  const result = await runCli(['validate', ...args], { bin: join(root, 'bin/agent-proxy.js'), env: { NODE_OPTIONS: `--require ${PRELOAD}`, FILES_READ_LOG: log } });
  return { result, read: JSON.parse(readFileSync(log, 'utf8')) as string[] };
}

/** The shipped schema files among `read` (the package's schemas/ and ACP's), by name, and the build's copies of their bytes. */
function schemaFilesAmong(root: string, read: string[]): { documents: string[]; copies: string[] } {
  const schemas = join(root, 'schemas') + '/';
  const compiled = join(root, 'dist/schema/compiled') + '/';
  return {
    documents: read.flatMap((file) => (file.startsWith(schemas) ? [file.slice(schemas.length)] : file === ACP_FILE ? ['acp'] : [])).sort(),
    copies: read.flatMap((file) => (file.startsWith(compiled) && file.endsWith('.source.json') ? [file.slice(compiled.length)] : [])).sort(),
  };
}

const manifest = JSON.parse(readFileSync(join(REPO, 'dist/schema/compiled', COMPILED_MANIFEST), 'utf8')) as CompiledManifest;
const shippedCount = Object.keys(manifest.documents).length;

/**
 * The AG-UI schema with RUN_STARTED's `runId` made a number: every run's first event is then invalid.
 * `padding` bytes more at the end: none keeps the file's size, which the registry then finds changed only
 * when it reads it.
 */
function changedAguiSchema(padding: number): string {
  const text = readFileSync(join(REPO, 'schemas/ag-ui.schema.json'), 'utf8');
  const changed = text.replace(/"type": "string"(,\s*"description": "Identifies this run\.")/g, '"type": "number"$1');
  expect(changed).not.toBe(text);
  expect(changed.length).toBe(text.length);
  return changed + ' '.repeat(padding);
}

/** A copy of the build whose AG-UI schema file is `schema`, with or without its compiled validators. */
function buildWith(name: string, schema: string, compiledValidators: boolean): string {
  const root = scratch.file(name);
  const aguiFile = join(REPO, 'schemas/ag-ui.schema.json');
  const compiledDir = join(REPO, 'dist/schema/compiled');
  for (const part of ['bin', 'dist', 'schemas', 'package.json']) linkedCopy(join(REPO, part), join(root, part), (path) => path === aguiFile || (!compiledValidators && path === compiledDir));
  writeFileSync(join(root, 'schemas/ag-ui.schema.json'), schema);
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
  return root;
}

describe('validate reads the shipped schemas it uses', () => {
  it('of an AG-UI file: the AG-UI document and the build\'s copy of it, no other shipped schema file', async () => {
    const { result, read } = await validateReading(REPO, [AGUI_FILE]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('8 messages (agui): 8 valid, 0 invalid, 0 unchecked');
    expect(schemaFilesAmong(REPO, read)).toEqual({ documents: ['ag-ui.schema.json'], copies: [manifest.documents[AGUI_SCHEMA_ID]!.source] });
  });

  it('of a recording of another protocol: that protocol\'s documents only', async () => {
    const { result, read } = await validateReading(REPO, [join(REPO, 'recordings/examples/pi-daemon-session.ndjson')]);
    expect(result.stderr).toBe('');
    const { documents, copies } = schemaFilesAmong(REPO, read);
    expect(documents.length).toBeGreaterThan(0);
    expect(documents).not.toContain('ag-ui.schema.json');
    expect(documents.length).toBeLessThan(shippedCount);
    expect(copies.length).toBe(documents.length);
  });

  for (const [kind, padding] of [['of the same size, found changed when used', 0], ['of another size, found changed at load', 1]] as const) {
    it(`finds a changed shipped file (${kind}) and judges by it as a build without compiled validators does`, async () => {
      const schema = changedAguiSchema(padding);
      const changed = buildWith(`changed-${padding}`, schema, true);
      const atRunTime = buildWith(`run-time-${padding}`, schema, false);
      for (const args of [[AGUI_FILE], ['--json', AGUI_FILE]]) {
        const [fromChanged, fromRunTime, fromBuild] = await Promise.all([validateReading(changed, args), validateReading(atRunTime, args), validateReading(REPO, args)]);
        expect(fromChanged.result.stderr).toBe('');
        expect(fromChanged.result).toEqual(fromRunTime.result);
        // The change matters: the build's own schema passes what the changed one refuses.
        expect(fromChanged.result.code).not.toBe(fromBuild.result.code);
        expect(fromChanged.result.stdout).not.toBe(fromBuild.result.stdout);
        // Found changed, the registry read every shipped file, as a load did before.
        expect(schemaFilesAmong(changed, fromChanged.read).documents).toHaveLength(shippedCount);
      }
    }, 60_000);
  }
});
