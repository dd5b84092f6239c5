/**
 * `proxy record` of plain HTTP does not load the WebSocket library: ws brings node:https, node:tls,
 * node:zlib and node:crypto, ~14 ms of the start on Node 20. It is loaded when the first upgrade
 * arrives (the WebSocket recording tests relay through the same code). Its recording worker says it
 * is ready (and `record` listens) once the file is open, before it loads the catalog, the recorder
 * and the recorder, which it loads when the first traffic reaches it (a run that records nothing
 * closes its file without them), and a protocol's module only once traffic is claimed by it.
 */
import { createServer } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO } from '../cli/run-cli.js';
import { modulesLoadedBy } from '../support/loaded-modules.js';
import { scratch } from '../support/temp-dir.js';
import { closeServerOnCleanup } from '../support/cleanups.js';
import { spawnRecorder } from './record-helpers.js';
import { RecordingReader } from '../../src/store/recording-reader.js';

describe('record start-up', () => {
  it('records plain HTTP through the built recorder without loading ws', async () => {
    const out = scratch('record-startup-').file('plain.db');
    const probe = `
      const { createServer } = await import('node:http');
      const upstream = createServer((req, res) => res.end('{"ok":true}'));
      await new Promise((resolve) => upstream.listen(0, '127.0.0.1', resolve));
      const { startRecorder } = await import(${JSON.stringify(pathToFileURL(join(REPO, 'dist/record/start-recorder.js')).href)});
      const recorder = await startRecorder({ target: 'http://127.0.0.1:' + upstream.address().port, listen: 0, out: ${JSON.stringify(out)} });
      const answer = await fetch(recorder.url + '/health');
      await answer.text();
      const totals = await recorder.close();
      upstream.close();
      console.log(answer.status + ' ' + totals.exchanges);
    `;
    const loaded = await modulesLoadedBy(probe, '200 1');
    // The probe saw the recorder's own modules: the list is not empty for want of hooks.
    expect(loaded.some((m) => m.endsWith('/dist/record/relay/ws-relay.js'))).toBe(true);
    expect(loaded.filter((m) => /\/node_modules\/ws\//.test(m))).toEqual([]);
  });

  it("says it is ready before loading the catalog's facts, the recorder or any protocol's module, judges the traffic sent meanwhile all the same, and loads only the module of the protocol that claims it", async () => {
    const dir = scratch('record-ready-');
    const atReady = dir.file('at-ready.txt');
    const atClosed = dir.file('at-closed.txt');
    // Preloaded in each thread: in the recording worker, writes what it has loaded at the moment it says `ready`, and `closed`.
    writeFileSync(
      dir.file('at-ready.cjs'),
      `const { isMainThread, parentPort } = require('node:worker_threads');
      if (!isMainThread) {
        const post = parentPort.postMessage.bind(parentPort);
        parentPort.postMessage = (message, ...rest) => {
          if (message && message.type === 'ready') require('node:fs').writeFileSync(${JSON.stringify(atReady)}, Object.keys(require.cache).join('\\n'));
          if (message && message.type === 'closed') require('node:fs').writeFileSync(${JSON.stringify(atClosed)}, Object.keys(require.cache).join('\\n'));
          return post(message, ...rest);
        };
      }`,
    );
    const upstream = createServer((req, res) => req.resume().on('end', () => res.setHeader('content-type', 'application/json').end('{"ok":true}')));
    closeServerOnCleanup(upstream);
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const port = (upstream.address() as { port: number }).port;
    const out = dir.file('one.db');
    const nodeOptions = [process.env.NODE_OPTIONS, `--require ${dir.file('at-ready.cjs')}`].filter(Boolean).join(' ');
    const recorder = spawnRecorder(['--target', `http://127.0.0.1:${port}`, '--listen', '0', '--out', out, '--quiet'], { NODE_OPTIONS: nodeOptions });
    const url = /listening on ([^ ]+)/.exec(await recorder.waitForLine(/^listening on /))![1];
    const answer = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(await answer.text()).toBe('{"ok":true}');
    recorder.child.kill('SIGINT');
    expect((await recorder.exited).code).toBe(0);

    const chunksIn = (file: string) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((m) => /[/\\]dist[/\\]bundle[/\\]([a-z-]+?)-[\w-]{8}\.cjs$/.exec(m)?.slice(1) ?? []);
    const chunks = chunksIn(atReady);
    // What opening the file takes was there (the schemas the protocols declare, from the catalog's
    // summary): the list is not empty for want of the preload.
    expect(chunks).toEqual(expect.arrayContaining(['recording-writer', 'schema-registry', 'catalog-summary']));
    const protocolModules = /^(catalog|agui|pi-rest|pi-daemon-rpc|pi-rpc|acp|mcp|unix-ndjson|json-rpc|openai|anthropic|modules|traffic-recorder)$/;
    expect(chunks.filter((c) => protocolModules.test(c))).toEqual([]);
    // Of the protocols' modules, only the one that claimed the exchange was loaded, when it did (the recorder was by then).
    const protocolChunk = /^(agui|pi-rest|pi-daemon-rpc|pi-rpc|acp|mcp|unix-ndjson|json-rpc|openai|anthropic)$/;
    const atClose = chunksIn(atClosed);
    expect(atClose).toEqual(expect.arrayContaining(['catalog', 'traffic-recorder']));
    expect(atClose.filter((c) => protocolChunk.test(c))).toEqual(['openai']);
    // The exchange posted as soon as it listened was judged by its protocol's module, loaded after.
    const reader = RecordingReader.open(out);
    try {
      expect(reader.exchanges().map((e) => e.protocol)).toEqual(['openai']);
    } finally {
      reader.close();
    }
  });

  it("closes a recording of nothing without loading the catalog's facts, the recorder or any protocol's module", async () => {
    const dir = scratch('record-idle-');
    const atClosed = dir.file('at-closed.txt');
    // Preloaded in each thread: in the recording worker, writes what it has loaded when it says `closed`.
    writeFileSync(
      dir.file('at-closed.cjs'),
      `const { isMainThread, parentPort } = require('node:worker_threads');
      if (!isMainThread) {
        const post = parentPort.postMessage.bind(parentPort);
        parentPort.postMessage = (message, ...rest) => {
          if (message && message.type === 'closed') require('node:fs').writeFileSync(${JSON.stringify(atClosed)}, Object.keys(require.cache).join('\\n'));
          return post(message, ...rest);
        };
      }`,
    );
    const out = dir.file('idle.db');
    const nodeOptions = [process.env.NODE_OPTIONS, `--require ${dir.file('at-closed.cjs')}`].filter(Boolean).join(' ');
    const recorder = spawnRecorder(['--target', 'http://127.0.0.1:9', '--listen', '0', '--out', out, '--quiet'], { NODE_OPTIONS: nodeOptions });
    await recorder.waitForLine(/^listening on /);
    recorder.child.kill('SIGINT');
    expect((await recorder.exited).code).toBe(0);

    const chunks = readFileSync(atClosed, 'utf8')
      .split('\n')
      .flatMap((m) => /[/\\]dist[/\\]bundle[/\\]([a-z-]+?)-[\w-]{8}\.cjs$/.exec(m)?.slice(1) ?? []);
    expect(chunks).toEqual(expect.arrayContaining(['recording-writer', 'schema-registry']));
    const recorderModules = /^(catalog|agui|pi-rest|pi-daemon-rpc|pi-rpc|acp|mcp|unix-ndjson|json-rpc|openai|anthropic|modules|traffic-recorder)$/;
    expect(chunks.filter((c) => recorderModules.test(c))).toEqual([]);
    // Closed as the recorder closes it: ended, no exchanges, the protocols' schema hashes kept.
    const reader = RecordingReader.open(out);
    try {
      const recording = reader.recording();
      expect(recording.endedAt).toEqual(expect.any(String));
      expect(Object.keys(recording.schemaHashes).length).toBeGreaterThan(0);
      expect(reader.exchanges()).toEqual([]);
    } finally {
      reader.close();
    }
  });
});
