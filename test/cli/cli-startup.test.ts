/**
 * The CLI loads what the command it runs needs, and nothing more: its start-up is measured against a
 * bare `node -e 0` (bench/startup.js). `validate` of a plain file loads neither the store nor another
 * command's modules; `replay` loads the forward proxy's child plumbing (the local CA, the stdio
 * recorder) only with a command to run; `validate` of a file loads the module of its protocol and
 * no other's (a protocol is told from the catalog's facts); `export` as NDJSON loads neither the
 * other formats' exporters nor the protocols' modules (the HTML page's views need them); a `.db`
 * recording is opened without the NDJSON importer and the recording writer it writes with; a `fixture`
 * that replays a `.db` loads neither the recorders nor the forward proxy nor the NDJSON work copy; `record` of
 * an http:// target listens without having loaded TLS or zlib; opening a recording loads
 * better-sqlite3's addon by its path, without the `bindings` package's search; commander and
 * fast-json-patch are bundled, not read from node_modules; `validate` of a file or a recording loads
 * no node:crypto (a shipped schema is known by the build's copy of its bytes, not by its hash).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runCli } from './run-cli.js';
import { modulesLoadedBy } from '../support/loaded-modules.js';
import { scratch } from '../support/temp-dir.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { PROTOCOL_FAMILIES, PROTOCOL_IDS, protocolSchemas, STREAM_END_RULES, WIRE_BINDINGS } from '../../src/protocols/catalog.js';

/**
 * Runs the bundled CLI in a child with `args`, its output kept, and lists what it loaded (the
 * builtins Node loaded too, as `builtin:<name>`); the probe prints the exit code.
 */
function modulesOfCli(args: string[], code = '0'): Promise<string[]> {
  const probe = `
    const { main } = (await import('node:module')).createRequire(import.meta.url)(${JSON.stringify(join(REPO, 'dist/bundle/main.cjs'))});
    const write = process.stdout.write;
    process.stdout.write = () => true;
    const code = await main(['node', 'agent-proxy', ...${JSON.stringify(args)}]);
    process.stdout.write = write;
    for (const m of process.moduleLoadList) if (m.startsWith('NativeModule ')) process.stderr.write('loaded builtin:' + m.slice('NativeModule '.length) + '\\n');
    console.log(code);
  `;
  return modulesLoadedBy(probe, code);
}

/** The bundle's chunks (dist/bundle/<module>-<hash>.cjs) and the packages that were loaded, by name. */
function chunksOf(loaded: string[]): string[] {
  return loaded.flatMap((m) => {
    const chunk = /\/dist\/bundle\/([a-z-]+?)-[\w-]{8}\.cjs$/.exec(m) ?? /\/node_modules\/([^/]+)\//.exec(m);
    return chunk ? [chunk[1]] : [];
  });
}

describe('CLI start-up', () => {
  it('validates a plain file without loading the store or any other command', async () => {
    const chunks = chunksOf(await modulesOfCli(['validate', join(REPO, 'examples/agui-text-run.sse')]));
    expect(chunks).toContain('validate-command');
    // It judged (judge-input holds judgeInput; the bundler puts record's pipeline in whichever chunk its importers share).
    expect(chunks).toContain('judge-input');
    const unwanted = chunks.filter((c) => /^(ndjson-import|recording-writer|open-recording|better-sqlite3|forward-command|local-ca|stdio-recorder)$|-command$/.test(c) && c !== 'validate-command');
    expect(unwanted).toEqual([]);
  });

  it("validates an AG-UI file with AG-UI's module alone: telling its protocol loads no other protocol's checker", async () => {
    const chunks = chunksOf(await modulesOfCli(['validate', join(REPO, 'examples/agui-text-run.sse')]));
    expect(chunks).toContain('agui');
    const unwanted = chunks.filter((c) => /^(modules|mcp|openai|anthropic|acp|pi-rest|pi-rpc|pi-daemon-rpc|json-rpc|unix-ndjson)$/.test(c));
    expect(unwanted).toEqual([]);
  });

  it("judges AG-UI's state patches with fast-json-patch bundled, not looked up and read from node_modules", async () => {
    const loaded = await modulesOfCli(['validate', join(REPO, 'examples/agui-text-run.sse')]);
    expect(chunksOf(loaded)).toContain('agui');
    expect(loaded.filter((m) => m.includes('/node_modules/fast-json-patch/'))).toEqual([]);
  });

  it("finds the ACP schema inside its package without resolving the package's exports, which loads Node's ES module resolver", () => {
    // A CommonJS probe: an ES module one would load the resolver itself. Node 24 loads it for any
    // `-e` script: what counts is what the run loads beyond a bare one.
    const resolver = `process.moduleLoadList.filter((m) => m.endsWith('/esm/resolve') || m.endsWith('/esm/get_format'))`;
    const probe = `
      const { main } = require(${JSON.stringify(join(REPO, 'dist/bundle/main.cjs'))});
      const write = process.stdout.write;
      process.stdout.write = () => true;
      main(['node', 'agent-proxy', 'validate', ${JSON.stringify(join(REPO, 'examples/agui-text-run.sse'))}]).then((code) => {
        process.stdout.write = write;
        console.log(JSON.stringify({ code, resolver: ${resolver} }));
      });
    `;
    const bare = spawnSync(process.execPath, ['-e', `console.log(JSON.stringify(${resolver}))`], { encoding: 'utf8' });
    const run = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ code: 0, resolver: JSON.parse(bare.stdout) });
  });

  it('validates a plain file, an NDJSON recording and a .db without loading node:crypto: the shipped schemas are known by the build\'s copy of their bytes, not hashed', () => {
    const dir = scratch('validate-builtins-');
    const preload = dir.file('builtins.cjs');
    writeFileSync(preload, `process.on('exit', () => { for (const m of process.moduleLoadList) if (m.startsWith('NativeModule ')) process.stderr.write('loaded builtin:' + m.slice('NativeModule '.length) + '\\n'); });`);
    const bin = join(REPO, 'bin/agent-proxy.js');
    const ndjson = join(REPO, 'recordings/examples/agui-sse-run.ndjson');
    const db = dir.file('small.db');
    expect(spawnSync(process.execPath, [bin, 'import', ndjson, '--out', db], { encoding: 'utf8' }).status).toBe(0);
    for (const file of [join(REPO, 'examples/agui-text-run.sse'), ndjson, db]) {
      for (const json of [[], ['--json']]) {
        const run = spawnSync(process.execPath, ['--require', preload, bin, 'validate', file, ...json], { encoding: 'utf8' });
        const builtins = run.stderr.split('\n').filter((line) => line.startsWith('loaded builtin:'));
        expect(run.stdout, `${file} ${json.join(' ')}`).toMatch(json.length > 0 ? /"summary"/ : /\d+ messages? \(agui\)/);
        expect(builtins).toContain('loaded builtin:fs');
        expect(builtins.filter((line) => line.includes('crypto')), `${file} ${json.join(' ')}`).toEqual([]);
      }
    }
  });

  it('reads its arguments with commander bundled, without node:child_process, which only executable subcommands need', async () => {
    const loaded = await modulesOfCli(['validate', join(REPO, 'examples/agui-text-run.sse')]);
    expect(loaded.filter((m) => m.includes('/node_modules/commander/'))).toEqual([]);
    expect(loaded).toContain('builtin:fs');
    expect(loaded).not.toContain('builtin:child_process');
  });

  it('records plain HTTP without loading node:https, node:tls or node:zlib before it listens', async () => {
    const out = scratch('record-builtins-').file('plain.db');
    // Stopped by its own SIGINT once it has said where it listens; the builtins are listed at that moment.
    const probe = `
      const { main } = (await import('node:module')).createRequire(import.meta.url)(${JSON.stringify(join(REPO, 'dist/bundle/main.cjs'))});
      const write = process.stdout.write;
      process.stdout.write = (chunk) => {
        if (String(chunk).startsWith('listening on ')) {
          for (const m of process.moduleLoadList) if (m.startsWith('NativeModule ')) process.stderr.write('loaded builtin:' + m.slice('NativeModule '.length) + '\\n');
          process.kill(process.pid, 'SIGINT');
        }
        return true;
      };
      const code = await main(['node', 'agent-proxy', 'record', '--target', 'http://127.0.0.1:9', '--listen', '0', '--out', ${JSON.stringify(out)}, '--quiet']);
      process.stdout.write = write;
      console.log(code);
    `;
    const loaded = await modulesLoadedBy(probe, '0');
    // The list was taken when it listened (the recording worker had started by then). node:perf_hooks
    // is not asked about: this probe's module hooks load it, the CLI does not.
    expect(loaded).toContain('builtin:http');
    expect(loaded).toContain('builtin:worker_threads');
    expect(loaded.filter((m) => /^builtin:(https|tls|_tls_wrap|zlib)$/.test(m))).toEqual([]);
  });

  it("records an exchange without any protocol's facts on its main thread: it reads the catalog's summary, built in", async () => {
    const out = scratch('record-summary-').file('one.db');
    // One JSON exchange (its body's kind is told on this thread), then its own SIGINT; what it loaded is listed at its end.
    const probe = `
      const { createServer } = await import('node:http');
      const upstream = createServer((req, res) => req.resume().on('end', () => res.setHeader('content-type', 'application/json').end('{"ok":true}')));
      await new Promise((resolve) => upstream.listen(0, '127.0.0.1', resolve));
      const { main } = (await import('node:module')).createRequire(import.meta.url)(${JSON.stringify(join(REPO, 'dist/bundle/main.cjs'))});
      const write = process.stdout.write;
      let answered;
      process.stdout.write = (chunk) => {
        const url = /^listening on ([^ ]+)/.exec(String(chunk))?.[1];
        if (url) answered = fetch(url + '/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => r.text()).then((text) => (process.kill(process.pid, 'SIGINT'), text));
        return true;
      };
      const code = await main(['node', 'agent-proxy', 'record', '--target', 'http://127.0.0.1:' + upstream.address().port, '--listen', '0', '--out', ${JSON.stringify(out)}, '--quiet']);
      process.stdout.write = write;
      upstream.close();
      console.log(code + ' ' + (await answered));
    `;
    const chunks = chunksOf(await modulesLoadedBy(probe, '0 {"ok":true}'));
    expect(chunks).toContain('catalog-summary');
    expect(chunks.filter((c) => c === 'catalog' || c === 'modules')).toEqual([]);
    // The worker loaded them, and judged the exchange.
    const reader = RecordingReader.open(out);
    try {
      expect(reader.exchanges().map((e) => e.protocol)).toEqual(['openai']);
    } finally {
      reader.close();
    }
  });

  it("builds the catalog's summary into the bundle as the catalog's own names, rules, media types and schemas", async () => {
    const chunk = readdirSync(join(REPO, 'dist/bundle')).find((f) => /^catalog-summary-[\w-]{8}\.cjs$/.test(f));
    expect(chunk).toBeDefined();
    const built = createRequire(import.meta.url)(join(REPO, 'dist/bundle', chunk!)) as typeof import('../../src/protocols/catalog-summary.js');
    expect(built.CATALOG_SUMMARY).toEqual({
      ids: PROTOCOL_IDS,
      families: PROTOCOL_FAMILIES,
      streamEndRules: [...STREAM_END_RULES],
      bindings: WIRE_BINDINGS.map((b) => ({ channel: b.channel, mediaType: b.mediaType })),
      schemas: protocolSchemas(),
    });
  });

  it("defines replay without the forward proxy's child plumbing", async () => {
    const chunks = chunksOf(await modulesOfCli(['replay', '--help']));
    expect(chunks).toContain('replay-command');
    const unwanted = chunks.filter((c) => /^(forward-command|local-ca|stdio-recorder|recording-spool)$|-command$/.test(c) && c !== 'replay-command');
    expect(unwanted).toEqual([]);
  });

  it("exports NDJSON without the HAR and HTML exporters or any protocol's module", async () => {
    const chunks = chunksOf(await modulesOfCli(['export', join(REPO, 'recordings/examples/agui-sse-run.ndjson')]));
    expect(chunks).toContain('export-command');
    expect(chunks).toContain('ndjson-export');
    const unwanted = chunks.filter((c) => /^(har-export|html-view|modules|agui|mcp|openai|anthropic|acp|pi-rest|pi-rpc|pi-daemon-rpc|json-rpc|unix-ndjson)$/.test(c));
    expect(unwanted).toEqual([]);
  });

  it('opens a .db recording without the NDJSON importer and the recording writer, which only an NDJSON recording needs', async () => {
    const db = scratch('db-open-').file('run.db');
    const imported = await runCli(['import', join(REPO, 'recordings/examples/agui-sse-run.ndjson'), '--out', db]);
    expect(imported.code, imported.stderr).toBe(0);
    for (const args of [['show', db], ['findings', db], ['export', db]]) {
      const chunks = chunksOf(await modulesOfCli(args));
      expect(chunks).toContain('recording-reader');
      expect(chunks.filter((c) => /^(ndjson-import|recording-writer|open-recording)$/.test(c))).toEqual([]);
    }
    // An NDJSON recording is still read, through the importer.
    const chunks = chunksOf(await modulesOfCli(['show', join(REPO, 'recordings/examples/agui-sse-run.ndjson')]));
    expect(chunks).toContain('ndjson-import');
  });

  it("replays a fixture's .db without the recorders, the forward proxy or the NDJSON work copy, which only the modes that record need", async () => {
    const dir = scratch('fixture-start-');
    const db = dir.file('run.db');
    const imported = await runCli(['import', join(REPO, 'recordings/examples/agui-sse-run.ndjson'), '--out', db]);
    expect(imported.code, imported.stderr).toBe(0);
    // Mode once of an existing recording replays it; a socket in a folder that is not there ends the run at its listen (2).
    const chunks = chunksOf(await modulesOfCli(['fixture', db, '--listen', `unix:${dir.file('missing/fixture.sock')}`], '2'));
    expect(chunks).toContain('start-replay');
    const unwanted = /^(forward-command|local-ca|stdio-recorder|start-recorder|start-forward-recorder|proxy-server|ndjson-work-copy|ndjson-import|recording-writer|open-recording)$/;
    expect(chunks.filter((c) => unwanted.test(c))).toEqual([]);
  });

  it("opens a recording with better-sqlite3's addon found without the bindings package's search", async () => {
    const chunks = chunksOf(await modulesOfCli(['export', join(REPO, 'recordings/examples/agui-sse-run.ndjson')]));
    expect(chunks).toContain('better-sqlite3');
    expect(chunks).not.toContain('bindings');
  });
});
