/**
 * The validators `npm run build` compiles (scripts/compile-validators.mjs, into dist/schema/compiled)
 * must judge exactly as the ones compiled at run time: same ok/unchecked, same findings, for every
 * ref of every shipped document (of the large OpenAI subset, a fixed sample), on valid and invalid
 * values of each protocol. The registry must
 * also refuse them when a document they were compiled from is not the one loaded.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { ACP_SCHEMA_ID } from '../../src/protocols/acp/schemas.js';
import { AGUI_SCHEMA_ID } from '../../src/protocols/agui/schemas.js';
import { PI_SESSION_API_ID } from '../../src/protocols/pi-rest/schemas.js';
import { MCP_VERSIONS, mcpSchemaId } from '../../src/protocols/mcp/schemas.js';
import { OPENAI_SCHEMA_ID } from '../../src/protocols/openai/schemas.js';
import { ANTHROPIC_SCHEMA_ID } from '../../src/protocols/anthropic/schemas.js';
import { COMPILED_MANIFEST, type CompiledManifest } from '../../src/schema/compiled-validators.js';
import { REPO, runCli, spawnCli } from '../cli/run-cli.js';
import { linkedCopy } from '../support/linked-copy.js';
import { tempDir } from '../support/temp-dir.js';

const COMPILED_DIR = join(REPO, 'dist/schema/compiled');
const manifest = JSON.parse(readFileSync(join(COMPILED_DIR, COMPILED_MANIFEST), 'utf8')) as CompiledManifest;

const compiled = SchemaRegistry.load({ useEnv: false, compiledValidators: COMPILED_DIR });
const runtime = SchemaRegistry.load({ useEnv: false, compiledValidators: false });

/** Every ref a protocol may ask for by name: each document, each $def (a draft-07 document's `definitions`) by pointer and by $anchor. */
function namedRefs(registry: SchemaRegistry): string[] {
  const refs: string[] = [];
  for (const doc of registry.documents.values()) {
    refs.push(doc.id);
    for (const key of ['$defs', 'definitions']) {
      for (const [name, def] of Object.entries((doc.json[key] ?? {}) as Record<string, { $anchor?: unknown }>)) {
        refs.push(`${doc.id}#/${key}/${name}`);
        if (typeof def.$anchor === 'string') refs.push(`${doc.id}#${def.$anchor}`);
      }
    }
  }
  return refs;
}

/**
 * The refs compared value by value: every ref of each document, except the OpenAI subset (371 refs,
 * a fifth of all, each compiled by ajv here in ~3 ms of CPU), of which its root and every fourth
 * $def in document order. Its refs are compiled by the same script as the others' are.
 */
function comparedRefs(refs: string[]): string[] {
  let openaiDef = 0;
  return refs.filter((ref) => !ref.startsWith(`${OPENAI_SCHEMA_ID}#`) || openaiDef++ % 4 === 0);
}

/**
 * `expect(fromBuild).toEqual(atRunTime)`, with node's stricter comparison first: hundreds of
 * thousands of expect calls were most of this file's time, and it only fails where toEqual would.
 */
function expectSameFindings(fromBuild: unknown, atRunTime: unknown): void {
  if (!isDeepStrictEqual(fromBuild, atRunTime)) expect(fromBuild).toEqual(atRunTime);
}

/** Messages of each protocol, valid and not, and the members per-method $defs are checked against. */
function sampleValues(): unknown[] {
  const agui = JSON.parse(readFileSync(join(REPO, 'test/fixtures/agui/text-message-run.json'), 'utf8')) as unknown[];
  const recorded: unknown[] = [];
  for (const file of ['recordings/examples/agui-sse-run.ndjson', 'recordings/examples/pi-daemon-session.ndjson']) {
    for (const line of readFileSync(join(REPO, file), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const row = JSON.parse(line) as { type?: string; json?: unknown };
      if (row.type === 'message' && row.json !== undefined && row.json !== null) recorded.push(row.json);
    }
  }
  const handMade: unknown[] = [
    null, true, 0, -1, 1.5, 2 ** 40, '', 'x', [], [1, 'a'], {},
    { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
    { type: 'RUN_STARTED', threadId: 't', bogus: 1 },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: '' },
    { type: 'TOOL_CALL_START', toolCallId: 7, toolCallName: 'x' },
    { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/a', value: 1 }, { op: 'nope' }] },
    { threadId: 't', runId: 'r', state: {}, messages: [{ id: 'm', role: 'user', content: 'hi' }], tools: [], context: [], forwardedProps: {} },
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } },
    { jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 's', prompt: [{ type: 'text', text: 'hi' }] } },
    { jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 's' } },
    { jsonrpc: '2.0', id: 3, result: { stopReason: 'end_turn' } },
    { jsonrpc: '2.0', id: 4, error: { code: -32601, message: 'Method not found' } },
    { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' } } } },
    { type: 'prompt', id: 'c1', message: 'hi' },
    { type: 'response', command: 'prompt', success: true, id: 'c1' },
    { ok: true, data: { id: 'x' } },
    { ok: false, error: { code: 'not_found', message: 'no' } },
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } },
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } },
    { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }, { type: 'image', data: 'not base64!', mimeType: 'image/png' }] } },
    { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 'half' } },
    { model: 'm', max_tokens: 64, system: 'Be brief.', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] }], tool_choice: { type: 'tool' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: 3 } },
    { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'tool_use', id: 't', name: 'n', input: {} }], stop_reason: 'tool_use', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 2 } },
  ];
  const members = [...agui, ...recorded, ...handMade].flatMap((value) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? ['params', 'result', 'error', 'data', 'command', 'update'].map((key) => (value as Record<string, unknown>)[key]).filter((v) => v !== undefined)
      : [],
  );
  return [...agui, ...recorded, ...handMade, ...members];
}

/** More than ALL_ERRORS_MAX_VALUES values: checked up to its first error, by the other module. */
const LARGE_SNAPSHOT = { type: 'MESSAGES_SNAPSHOT', messages: Array.from({ length: 400 }, (_, i) => ({ id: `m${i}`, role: i === 200 ? 'robot' : 'user', content: 'x' })) };
const LARGE_ARRAY = Array.from({ length: 1500 }, (_, i) => (i === 700 ? 'x' : i));

describe('compiled schema validators', () => {
  it('were built for every shipped document: the two of the project, the pi-daemon ones of schemas/, MCP\'s, the OpenAI subset, Anthropic\'s and ACP', () => {
    expect(Object.keys(manifest.documents).sort()).toEqual(
      [ACP_SCHEMA_ID, PI_SESSION_API_ID, AGUI_SCHEMA_ID, OPENAI_SCHEMA_ID, ANTHROPIC_SCHEMA_ID, ...MCP_VERSIONS.map(mcpSchemaId), ...['dashboard-api', 'dashboard-session-draft', 'extension-view', 'schedule', 'protocol', 'protocol-v2', 'tool-adapter'].map((name) => `https://a.skh.am/pi-daemon/${name}.schema.json`)].sort(),
    );
  });

  it('are cheap to find: the manifest every registry reads at load names each document\'s export names, kept in a file of their own', () => {
    expect(readFileSync(join(COMPILED_DIR, COMPILED_MANIFEST), 'utf8').length).toBeLessThan(16_000);
    for (const [id, entry] of Object.entries(manifest.documents)) {
      const names = JSON.parse(readFileSync(join(COMPILED_DIR, entry.exports), 'utf8')) as Record<string, string>;
      expect(names[id], id).toMatch(/^v\d+$/);
    }
  });

  it('are cheap to load: no schema object their code never reads, and the linking function compiled at load, not parsed twice', () => {
    for (const entry of Object.values(manifest.documents)) {
      for (const file of [entry.allErrors, entry.firstError]) {
        const code = readFileSync(join(COMPILED_DIR, file), 'utf8');
        expect(code, file).toContain('module.exports = (function link(schemaFormats) {');
        const mentions = new Map<string, number>();
        for (const [name] of code.matchAll(/\bschema\d+\b/g)) mentions.set(name, (mentions.get(name) ?? 0) + 1);
        const unread = [...code.matchAll(/const (schema\d+) = /g)].map((m) => m[1]).filter((name) => mentions.get(name) === 1);
        expect(unread, file).toEqual([]);
      }
    }
  });

  it('give the same verdict as run-time compilation for every named ref, on valid and invalid messages of each protocol', () => {
    const refs = comparedRefs(namedRefs(runtime));
    expect(refs.length).toBeGreaterThan(400);
    const values = sampleValues();
    // MCP's documents (four versions, ~470 refs) are compared on JSON-RPC messages and their members only, which keeps this test's time.
    const jsonRpcValues = values.filter((v) => v === null || typeof v !== 'object' || Array.isArray(v) || 'jsonrpc' in v || 'content' in v || 'progressToken' in v || 'protocolVersion' in v);
    const mcpIds = new Set(MCP_VERSIONS.map(mcpSchemaId));
    let compared = 0;
    let failing = 0;
    for (const ref of refs) {
      const fromBuild = compiled.check(ref);
      const atRunTime = runtime.check(ref);
      expect({ ref, ok: fromBuild.ok }).toEqual({ ref, ok: atRunTime.ok });
      if (!fromBuild.ok || !atRunTime.ok) {
        expect(fromBuild).toEqual(atRunTime);
        continue;
      }
      for (const value of mcpIds.has(ref.split('#')[0]) ? jsonRpcValues : values) {
        const findings = atRunTime.validate(value);
        expectSameFindings(fromBuild.validate(value), findings);
        compared++;
        if (findings.length > 0) failing++;
      }
    }
    // Both sides of the comparison occurred often: passes and failures.
    expect(failing).toBeGreaterThan(compared / 10);
    expect(compared - failing).toBeGreaterThan(compared / 100);
  }, 120_000);

  it('give the same first error as run-time compilation for values too large to list every error of', () => {
    const aguiExports = JSON.parse(readFileSync(join(COMPILED_DIR, manifest.documents[AGUI_SCHEMA_ID].exports), 'utf8')) as Record<string, string>;
    const refs = [...Object.keys(aguiExports), ACP_SCHEMA_ID, `${PI_SESSION_API_ID}#/$defs/apiEnvelopeBase`];
    let failing = 0;
    for (const ref of refs) {
      const fromBuild = compiled.check(ref);
      const atRunTime = runtime.check(ref);
      if (!fromBuild.ok || !atRunTime.ok) throw new Error(`${ref} is not checked`);
      for (const value of [LARGE_SNAPSHOT, LARGE_ARRAY]) {
        const findings = atRunTime.validate(value);
        expectSameFindings(fromBuild.validate(value), findings);
        if (findings.length > 0) failing++;
      }
    }
    expect(failing).toBeGreaterThan(refs.length);
  }, 120_000);

  it('are not used when a document they were compiled from is replaced: the replacement is compiled and judges', () => {
    // ACP is read after the extra directories, so an extra document with its $id takes its place.
    const dir = tempDir('compiled-validators-');
    try {
      writeFileSync(
        dir.file('acp.json'),
        JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', $id: ACP_SCHEMA_ID, $defs: { PromptRequest: { type: 'string' } } }),
      );
      const replaced = SchemaRegistry.load({ useEnv: false, extraDirs: [dir.dir], compiledValidators: COMPILED_DIR });
      const check = replaced.def(ACP_SCHEMA_ID, 'PromptRequest');
      expect(check.ok).toBe(true);
      if (!check.ok) return;
      expect(check.validate('a prompt')).toEqual([]);
      expect(check.validate({ sessionId: 's', prompt: [] })).toEqual([expect.objectContaining({ message: '(root): must be string' })]);
    } finally {
      dir.cleanup();
    }
  });

  it('leave to ajv, at load as before, the documents they were not compiled from: one it refuses fails the load', () => {
    const dir = tempDir('compiled-validators-');
    try {
      const schema = (id: string, defs: Record<string, unknown>) => JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', $id: id, $defs: defs });
      writeFileSync(dir.file('a.json'), schema('https://example.test/a.json', { a: { type: 'string' } }));
      // A subschema that claims another document's $id.
      writeFileSync(dir.file('b.json'), schema('https://example.test/b.json', { b: { $id: 'https://example.test/a.json', type: 'number' } }));
      expect(() => SchemaRegistry.load({ useEnv: false, extraDirs: [dir.dir], compiledValidators: COMPILED_DIR })).toThrow(/resolves to more than one schema/);
    } finally {
      dir.cleanup();
    }
  });

  it('are what a command uses: judging AG-UI with the built registry does not load the schema compiler', () => {
    const probe = `
      import { createRequire } from 'node:module';
      import './dist/protocols/catalog.js';
      import { AGUI_SCHEMA_ID } from './dist/protocols/agui/schemas.js';
      import { SchemaRegistry } from './dist/schema/schema-registry.js';
      const registry = SchemaRegistry.load({ useEnv: false });
      const check = registry.check(AGUI_SCHEMA_ID + '#RunStartedEvent');
      const findings = check.validate({ type: 'RUN_STARTED', threadId: 't' });
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify({ findings: findings.map((f) => f.message), compiler: loaded.some((f) => f.includes('/ajv/dist/core.js')) }));
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: REPO, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ findings: ["(root): missing required property 'runId'"], compiler: false });
  });

  it('are optional: without them (a directory that has none) every ref is compiled at run time', () => {
    const without = SchemaRegistry.load({ useEnv: false, compiledValidators: join(REPO, 'no-such-dir') });
    const check = without.check(`${AGUI_SCHEMA_ID}#RunStartedEvent`);
    expect(check.ok).toBe(true);
    if (check.ok) expect(check.validate({ type: 'RUN_STARTED', threadId: 't' })).toEqual([expect.objectContaining({ message: "(root): missing required property 'runId'" })]);
  });
});

describe('a build without compiled validators', () => {
  // A copy of the built package without dist/schema/compiled: every validator is compiled at run time.
  const copy = tempDir('no-compiled-validators-');
  afterAll(() => copy.cleanup());
  for (const part of ['bin', 'dist', 'schemas', 'package.json']) linkedCopy(join(REPO, part), copy.file(part), (path) => path === COMPILED_DIR);
  symlinkSync(join(REPO, 'node_modules'), copy.file('node_modules'));
  const bin = copy.file('bin/agent-proxy.js');

  it('validates as the full build does', async () => {
    expect(existsSync(copy.file('dist/schema/compiled'))).toBe(false);
    for (const file of ['examples/agui-broken-run.sse', 'recordings/examples/pi-daemon-session.ndjson']) {
      const [fromBuild, atRunTime] = await Promise.all([runCli(['validate', '--json', file]), runCli(['validate', '--json', file], { bin })]);
      expect(atRunTime.stderr).toBe('');
      expect(atRunTime).toEqual(fromBuild);
    }
  }, 60_000);

  it('replays', async () => {
    const replay = spawnCli(['replay', 'recordings/examples/agui-sse-run.ndjson', '--listen', '0', '--timing', 'none', '--quiet'], {}, undefined, { bin, cwd: REPO });
    try {
      const url = (await replay.waitForLine(/^listening on /)).replace('listening on ', '');
      const answer = await fetch(`${url}/health`);
      expect(answer.status).toBe(200);
    } finally {
      replay.child.kill('SIGINT');
      await replay.exited;
    }
  });
});

