/**
 * Big recordings are scanned with side B in a worker thread (dist/diff/scan-worker.js); the report
 * must be the same byte for byte as when both sides are scanned in one thread.
 * AGENT_PROXY_DIFF_WORKER=always|never forces the choice that is otherwise made by size.
 */
import { join } from 'node:path';
import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { EventType, type BaseEvent } from '@ag-ui/core';
import type { DiffReport } from '../../src/diff/diff-report.js';
import { scanSide, type ScanInput } from '../../src/diff/scan-side.js';
import { REPO } from '../cli/run-cli.js';
import { runBatch } from '../cli/cli-batch.js';
import { recordAgui, recordPiSession, textScript, useCleanups } from './diff-helpers.js';
import { writeNdjsonRecording } from '../support/ndjson-recording.js';

useCleanups();

describe('proxy diff with the worker thread', () => {
  it('gives the same report, exit code and errors as scanning in one thread', async () => {
    const a = await recordAgui(textScript(['Hello', ' there']), [{ kind: 'run' }, { kind: 'health' }, { kind: 'run', path: '/second' }]);
    const b = await recordAgui(
      (input) => {
        const events = textScript(['Hello', ' there'])(input) as Array<BaseEvent & { delta?: string }>;
        const last = events.map((e) => e.type).lastIndexOf(EventType.TEXT_MESSAGE_CONTENT);
        events[last] = { ...events[last], delta: ' you' };
        return events;
      },
      [{ kind: 'run' }, { kind: 'run', path: '/second' }],
    );
    const pi = await recordPiSession();
    // Ids that appear in a plain field before an id field names them: each side is scanned twice.
    const tree = (root: string, leaf: string, name = 's1') =>
      writeNdjsonRecording([
        { transport: 'http', protocol: 'pi-rest', path: '/v1/session/s1', status: 200, messages: [{ sender: 'server', json: { data: { name, lastEntry: leaf } } }] },
        { protocol: 'pi-rpc', messages: [{ sender: 'server', json: { id: 'r1', type: 'response', data: { entries: [{ id: root, parentId: null }, { id: leaf, parentId: root }], leafId: leaf } } }] },
      ]);
    const [t1, t2] = [tree('aaaaaaa1', 'bbbbbbb1'), tree('aaaaaaa2', 'ccccccc2', 's2')];
    // One batch of CLI runs (test/cli/cli-batch.ts), each with the variable set for it alone; the first
    // of each mode is also a process of its own and must print the same.
    const pairs = [[a, b], [b, a], [a, a, '--semantic'], [a, pi], [t1, t2], [pi, t1]];
    const diff = (args: string[], mode: 'never' | 'always') => ({ args: ['diff', ...args], env: { AGENT_PROXY_DIFF_WORKER: mode } });
    const results = await runBatch(
      [
        ...pairs.flatMap((args) => [diff([...args, '--format', 'json'], 'never'), diff([...args, '--format', 'json'], 'always')]),
        diff([a, b, '--format', 'json'], 'always'),
        diff([t1, t2, '--format', 'json'], 'always'),
        diff([a, `${b}.nope`], 'always'),
      ],
      { real: [0, 1] },
    );
    pairs.forEach((args, i) => {
      const [never, always] = [results[2 * i], results[2 * i + 1]];
      // a vs pi share no protocol: both ways refuse it with the same one line, exit 2.
      if (args[0] === a && args[1] === pi) expect(always.stderr).toContain('nothing in common');
      else expect(always.stderr).toBe('');
      expect(always.stderr).toBe(never.stderr);
      expect(always.code).toBe(never.code);
      expect(always.stdout).toBe(never.stdout);
    });
    const [ab, treesRun, missing] = results.slice(2 * pairs.length);
    expect(JSON.parse(ab.stdout).summary.exchanges).toEqual({
      equal: 0,
      changed: 2,
      added: 0,
      removed: 1,
    });
    const trees = JSON.parse(treesRun.stdout) as DiffReport;
    expect(trees.exchanges.flatMap((e) => e.messages.flatMap((m) => m.differences.map((d) => d.pointer)))).toEqual(['/data/name']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no recording at');
  });

  it('has a bundled scanner, which the bundled CLI starts, that scans a side as this thread does', async () => {
    // A scanner that failed to load would go unseen above: its side would be scanned in one thread.
    const bundled = join(REPO, 'dist/bundle/scan-worker.cjs');
    const input: ScanInput = { file: 'a', dbFile: await recordAgui(textScript(['Hello', ' there']), [{ kind: 'run' }, { kind: 'health' }]) };
    const options = { ignore: [], semantic: false };
    const signal = new Int32Array(new SharedArrayBuffer(8));
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(bundled, { workerData: { input, options, port: port2, signal }, transferList: [port2] });
    const reply = await new Promise<{ scan?: unknown; error?: string }>((resolve, reject) => {
      port1.once('message', resolve);
      worker.once('error', reject);
      // The scanner answers and then ends: its exit can be seen before its answer's event, which is by then
      // waiting on the port, so on exit the answer is taken from the port if it is there.
      worker.once('exit', (code) => {
        const answered = receiveMessageOnPort(port1);
        if (answered !== undefined) resolve(answered.message as { scan?: unknown; error?: string });
        else reject(new Error(`the scanner exited with ${code} before it answered`));
      });
    });
    port1.close();
    await worker.terminate();
    expect(reply?.error).toBeUndefined();
    expect(reply?.scan).toEqual(structuredClone(scanSide(input, options)));
  });
});
