/**
 * A full disk, through the built CLI. Without root there is no small tmpfs to fill, but there is
 * RLIMIT_FSIZE: the CLI runs under `sh -c "trap '' XFSZ; ulimit -f <blocks>; exec node …"`, so once
 * the recording's WAL reaches the limit every write to it fails with EFBIG, as on a full disk (the
 * trap makes SIGXFSZ ignored, which Node also does by itself, so the write fails instead of the
 * process being killed). Where a path is enough, /dev/full is the full disk.
 *
 * Each test asserts that traffic is still forwarded, that the failure is said at once (not only at
 * shutdown), what was stored, and that a control request is still served.
 */
import { describe, expect, it } from 'vitest';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { waitFor } from '../support/waits.js';
import { scratch } from '../support/temp-dir.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { spawnCli } from '../cli/run-cli.js';
import { BIN, spawnLines, type LineProcess } from '../stdio/stdio-helpers.js';
import { exchangeFor, expectControlServed, fetchRaw, startJsonRecorder, startUpstream, waitForStderr } from './recorder-under-test.js';

useCleanups();

/** 512 KiB with 512-byte blocks (dash, POSIX sh), 1 MiB with 1 KiB ones: a few dozen exchanges of the size below. */
const FILE_SIZE_LIMIT = `trap '' XFSZ; ulimit -f 1024`;
const PAD = 'x'.repeat(4000);

function track(proc: LineProcess): LineProcess {
  onCleanup(async () => {
    if (proc.child.exitCode === null && proc.child.signalCode === null) {
      proc.child.kill('SIGKILL');
      await proc.exited;
    }
  });
  return proc;
}

/** Messages the recording holds so far, as another process sees them; 0 while it has none to show. */
function storedMessages(file: string): number {
  try {
    const reader = RecordingReader.open(file);
    try {
      return reader.totals().messages;
    } finally {
      reader.close();
    }
  } catch {
    return 0;
  }
}

describe('a full disk while recording', () => {
  it('HTTP: the first failed write is said at once; later exchanges say they were not stored; exit code 2', async () => {
    const target = await startUpstream({});
    const out = scratch('agent-proxy-full-disk-').file('full.db');
    const recorder = await startJsonRecorder(target, out, [], (args) => spawnCli(args, {}, FILE_SIZE_LIMIT));
    // Not an upstream route: the proxy answers nothing itself, so a 404 it forwarded is as good a body as any.
    const stoppedYet = () => recorder.events().some((e) => e.event === 'recording-stopped');
    let sent = 0;
    while (!stoppedYet()) {
      expect(sent, `no recording-stopped event after ${sent} exchanges; stderr: ${recorder.cli.stderr()}`).toBeLessThan(2000);
      const path = `/before/${++sent}`;
      const got = await fetchRaw(`${recorder.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pad: PAD }) });
      expect(got.status).toBe(404);
      await recorder.waitForEvent(exchangeFor(path), `exchange ${path}`);
    }
    const stopped = recorder.events().find((e) => e.event === 'recording-stopped')!;
    expect(stopped).toMatchObject({ reason: 'write-failed', code: 'E_STORE_WRITE', message: expect.stringContaining(`cannot write to the recording ${out}`) });
    expect(await waitForStderr(recorder.cli, /recording stopped/)).toMatch(/^agent-proxy: recording stopped, traffic is still forwarded: cannot write to the recording .*\n$/);

    // Forwarding goes on; every exchange announced from here on says it was not stored.
    for (let n = 1; n <= 3; n++) {
      const path = `/after/${n}`;
      expect((await fetchRaw(`${recorder.url}${path}`)).status).toBe(404);
      expect(await recorder.waitForEvent(exchangeFor(path), `exchange ${path}`)).toMatchObject({ stored: false });
    }
    await expectControlServed(recorder);
    expect(await recorder.waitForEvent(exchangeFor('/control'), 'exchange /control')).toMatchObject({ stored: false });
    const events = recorder.events();
    const afterStop = events.slice(events.findIndex((e) => e.event === 'recording-stopped') + 1).filter((e) => e.event === 'exchange');
    expect(afterStop.length).toBeGreaterThanOrEqual(4);
    expect(afterStop.every((e) => e.stored === false)).toBe(true);

    expect(await recorder.stop()).toEqual({ code: 2, signal: null });
    expect(recorder.events().at(-1)).toMatchObject({ event: 'summary', stored: false });
    expect(recorder.cli.stderr().match(/recording stopped/g)).toHaveLength(1);
    expect(recorder.cli.stderr()).toMatch(/\nagent-proxy: cannot write to the recording .*\n$/);

    // The file stays readable, with what was written before the failure and nothing after it.
    const reader = RecordingReader.open(out);
    try {
      const paths = reader.exchanges().map((e) => e.path);
      expect(paths.length).toBeGreaterThan(0);
      expect(paths.length).toBeLessThan(sent);
      expect(paths.every((p) => p?.startsWith('/before/'))).toBe(true);
      const first = reader.messages(reader.exchanges()[0].id);
      expect(first[0].json).toEqual({ pad: PAD });
    } finally {
      reader.close();
    }
  });

  it('stdio: the failure is said on stderr at once, and the agent session goes on', async () => {
    const out = scratch('agent-proxy-full-disk-').file('stdio.db');
    // `cat` as the agent: every line comes back, so each one is recorded twice. --quiet: stderr has
    // only what must be said whatever the flags.
    const proxy = track(spawnLines('/bin/sh', ['-c', `${FILE_SIZE_LIMIT}; exec "$0" "$@"`, process.execPath, BIN, 'record', '--stdio', '--quiet', '--out', out, '--', 'cat']));
    // One line stored before the flood: the worker writes a burst only once it pauses, and on a busy
    // machine the whole flood could otherwise be its first (failing) write, leaving nothing before it.
    proxy.send(`${JSON.stringify({ type: 'prompt', id: 'first', message: 'x' })}\n`);
    await proxy.waitForLines(1);
    await waitFor(() => storedMessages(out) > 0, 'the first line stored');
    let sent = 1;
    while (!proxy.stderr().includes('recording stopped')) {
      expect(sent, `no failure after ${sent} lines; stderr: ${proxy.stderr()}`).toBeLessThan(4000);
      proxy.send(`${JSON.stringify({ type: 'prompt', id: String(++sent), message: PAD })}\n`);
      await proxy.waitForLines(sent);
      // Traffic pauses until this line is stored or the failure is said: a recording worker that
      // runs at the lowest priority on a busy machine, and waits for a pause in a burst, gets its turn.
      await waitFor(() => proxy.stderr().includes('recording stopped') || storedMessages(out) >= 2 * sent, `line ${sent} stored or the failure said`);
    }
    expect(proxy.stderr()).toMatch(/^agent-proxy: recording stopped, traffic is still forwarded: cannot write to the recording .*\n$/);
    // The agent still gets every line, and answers it.
    const control = JSON.stringify({ type: 'get_state', id: 'control' });
    proxy.send(`${control}\n`);
    expect((await proxy.waitForLines(sent + 1)).at(-1)).toBe(control);
    proxy.child.stdin.end();
    // --stdio exits with the agent's code (see docs/cli.md), here cat's 0; the error is said again.
    expect(await proxy.exited).toEqual({ code: 0, signal: null });
    expect(proxy.stderr().match(/recording stopped/g)).toHaveLength(1);
    expect(proxy.stderr()).toMatch(/\nagent-proxy: cannot write to the recording .*\n$/);
    const reader = RecordingReader.open(out);
    try {
      expect(reader.totals().messages).toBeGreaterThan(0);
      expect(reader.totals().messages).toBeLessThan(2 * sent);
    } finally {
      reader.close();
    }
  });

  it('stdio --json-log on a full disk (/dev/full): said once on stderr, and the agent session goes on', async () => {
    const out = scratch('agent-proxy-full-disk-').file('log.db');
    const proxy = track(spawnLines('node', [BIN, 'record', '--stdio', '--out', out, '--json-log', '/dev/full', '--', 'cat']));
    const line = JSON.stringify({ type: 'get_state', id: 'one' });
    proxy.send(`${line}\n`);
    expect(await proxy.waitForLines(1)).toEqual([line]);
    await proxy.waitForStderr(/cannot write --json-log \/dev\/full/);
    proxy.send(`${line}\n`);
    expect(await proxy.waitForLines(2)).toEqual([line, line]);
    proxy.child.stdin.end();
    expect(await proxy.exited).toEqual({ code: 0, signal: null });
    expect(proxy.stderr()).toBe('agent-proxy: cannot write --json-log /dev/full, the live view is no longer written: ENOSPC: no space left on device, write\n');
    // The recording itself is on a disk with room: complete.
    const reader = RecordingReader.open(out);
    try {
      expect(reader.totals().messages).toBe(4);
    } finally {
      reader.close();
    }
  });
});
