/**
 * Every error path of the CLI, driven through the built CLI: argv → exit code and the exact one
 * line on stderr, in one voice (`agent-proxy: …`, commander's argument errors included), nothing on
 * stdout. Also the paths that used to do nothing without a word (an empty recording, a stdio-only
 * one replayed over HTTP, --misses-out without passthrough, validate recognising nothing, a diff of
 * unrelated recordings): each now says so.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINE_PREFIX } from '../../src/core/program-name.js';
import { PROTOCOL_IDS } from '../../src/protocols/catalog.js';
import { runToEnd, startCli } from '../hostile/cli-child.js';
import { useCleanups } from '../support/cleanups.js';
import { AGUI_EXAMPLE, PI_EXAMPLE, emptyRecording, exampleDb, mixedRecording, stdioRecording } from './cli-fixtures.js';
import { runBatch } from './cli-batch.js';
import type { CliResult } from './run-cli.js';
import { scratch, tempDir, type TempDir } from '../support/temp-dir.js';

useCleanups();

interface Context {
  dir: TempDir;
  /** A port something else listens on. */
  busy: number;
}

interface Case {
  name: string;
  argv(c: Context): string[];
  /** The exact stderr line, without the program prefix and the LF. */
  says(c: Context): string;
  code?: number;
  /** Needs Linux (/proc, where not even root can create a file). */
  linux?: boolean;
}

const expectedTimings = 'expected recorded, none, or a speed such as 2x or 0.5x';
const sizeForm = 'expected bytes, or a number with a unit (kB, MB, GB count in 1000s; KiB, MiB, GiB in 1024s), e.g. 10MB or 64KiB';
const recordingForm = 'a recording is an agent-proxy .db, or NDJSON whose first line is {"type":"recording","format":"agent-proxy/ndjson",…}';

const CASES: Case[] = [
  // Argument parsing (commander) speaks with the same prefix, on one line.
  { name: 'an unknown option, with its suggestion on the same line', argv: () => ['record', '--lisen', '0'], says: () => "unknown option '--lisen' (Did you mean --listen?)" },
  { name: 'an unknown command', argv: () => ['recrod'], says: () => "unknown command 'recrod' (Did you mean record?)" },
  { name: 'a missing argument', argv: () => ['show'], says: () => "missing required argument 'recording'" },
  { name: 'a value outside the choices', argv: () => ['export', AGUI_EXAMPLE, '--format', 'xml'], says: () => "option '--format <format>' argument 'xml' is invalid. Allowed choices are ndjson, har, html." },
  { name: 'a missing required option', argv: () => ['import', AGUI_EXAMPLE], says: () => "required option '--out <recording>' not specified" },
  // Values of our own options.
  {
    name: 'record --protocol that no module knows',
    argv: (c) => ['record', '--target', 'http://127.0.0.1:9', '--listen', '0', '--protocol', 'soap', '--out', c.dir.file('r.db')],
    says: () => `unknown protocol 'soap'; expected auto, pi-daemon or one of ${PROTOCOL_IDS.join(', ')}`,
  },
  { name: 'record --stdio --protocol that no module knows', argv: () => ['record', '--stdio', '--protocol', 'soap', '--', 'node', '-e', ''], says: () => `unknown protocol 'soap'; expected auto, pi-daemon or one of ${PROTOCOL_IDS.join(', ')}` },
  { name: 'record --stdio --protocol of another transport', argv: () => ['record', '--stdio', '--protocol', 'agui', '--', 'node', '-e', ''], says: () => "--protocol 'agui' does not run over stdio; use auto, pi-rpc, acp, mcp or json-rpc" },
  {
    name: 'fixture --protocol that no module knows',
    argv: (c) => ['fixture', c.dir.file('f.db'), '--mode', 'record', '--target', 'http://127.0.0.1:9', '--listen', '0', '--protocol', 'soap'],
    says: () => `unknown protocol 'soap'; expected auto, pi-daemon or one of ${PROTOCOL_IDS.join(', ')}`,
  },
  { name: 'validate --protocol that no module knows', argv: () => ['validate', AGUI_EXAMPLE, '--protocol', 'soap'], says: () => `unknown protocol 'soap'; expected auto or one of ${PROTOCOL_IDS.join(', ')}` },
  { name: '--timing that is no timing', argv: () => ['replay', AGUI_EXAMPLE, '--timing', 'fast'], says: () => `--timing 'fast' is not a timing: ${expectedTimings}` },
  { name: '--timing without its x', argv: () => ['replay', AGUI_EXAMPLE, '--timing', '2'], says: () => `--timing '2' is not a timing: ${expectedTimings}` },
  {
    name: 'a target without its scheme',
    argv: () => ['record', '--target', 'localhost:8100', '--listen', '0'],
    says: () => "--target 'localhost:8100' has no scheme: did you mean http://localhost:8100? (expected http[s]://host[:port][/base] or unix:/path.sock)",
  },
  { name: 'an ftp target', argv: () => ['record', '--target', 'ftp://example.com', '--listen', '0'], says: () => "--target 'ftp://example.com': ftp:// targets are not supported: expected http[s]://host[:port][/base] or unix:/path.sock" },
  { name: 'a listen address that is none', argv: () => ['replay', AGUI_EXAMPLE, '--listen', 'here'], says: () => "--listen 'here' is not an address: expected [host:]port or unix:/path.sock" },
  { name: 'a listen port out of range', argv: () => ['replay', AGUI_EXAMPLE, '--listen', '70000'], says: () => '--listen port 70000 is out of range: expected 0 to 65535' },
  { name: '--ui with an address that is none', argv: (c) => ['record', '--target', 'http://127.0.0.1:9', '--listen', '0', '--ui', 'here', '--out', c.dir.file('r.db')], says: () => "--ui 'here' is not an address: expected [host:]port or unix:/path.sock" },
  { name: '--max-body that is no size', argv: () => ['record', '--target', 'http://127.0.0.1:9', '--max-body', 'x'], says: () => `--max-body 'x' is not a size: ${sizeForm}` },
  { name: '--max-body with a unit no one uses', argv: () => ['record', '--target', 'http://127.0.0.1:9', '--max-body', '10XB'], says: () => `--max-body '10XB' is not a size: ${sizeForm}` },
  { name: '--max-body that is no whole number of bytes', argv: () => ['record', '--target', 'http://127.0.0.1:9', '--max-body', '0.3kib'], says: () => "--max-body '0.3kib' is not a whole number of bytes (307.2)" },
  { name: 'replay --max-body (for forwarded misses) takes the same sizes', argv: () => ['replay', AGUI_EXAMPLE, '--max-body', '1.5 parsecs'], says: () => `--max-body '1.5 parsecs' is not a size: ${sizeForm}` },
  { name: 'fixture --max-request-body takes the same sizes', argv: (c) => ['fixture', c.dir.file('f.db'), '--mode', 'replay', '--max-request-body', '0MB'], says: () => "--max-request-body '0MB' is not a size: expected more than 0 bytes" },
  { name: '--shutdown-grace that is no number', argv: () => ['record', '--target', 'http://127.0.0.1:9', '--shutdown-grace', 'soon'], says: () => "--shutdown-grace 'soon' is not a whole number of milliseconds (0 or more)" },
  { name: 'replay --shutdown-grace below 0', argv: () => ['replay', AGUI_EXAMPLE, '--shutdown-grace', '-5'], says: () => "--shutdown-grace '-5' is not a whole number of milliseconds (0 or more)" },
  { name: 'fixture --shutdown-grace that is no whole number', argv: (c) => ['fixture', c.dir.file('f.db'), '--mode', 'replay', '--shutdown-grace', '1.5'], says: () => "--shutdown-grace '1.5' is not a whole number of milliseconds (0 or more)" },
  { name: 'record without --target', argv: () => ['record'], says: () => "required option '--target <url>' not specified" },
  { name: '--stdio without the agent command', argv: () => ['record', '--stdio'], says: () => '--stdio needs the agent command after --, e.g. agent-proxy record --stdio -- pi --mode rpc' },
  { name: '--json-log without --stdio', argv: () => ['record', '--target', 'http://127.0.0.1:9', '--json-log', 'x.log'], says: () => '--json-log goes with --stdio' },
  { name: 'show --limit without --exchange', argv: () => ['show', AGUI_EXAMPLE, '--limit', '5'], says: () => '--limit pages the messages of one exchange; it goes with --exchange <id>' },
  { name: 'show --limit that lists nothing', argv: () => ['show', AGUI_EXAMPLE, '--exchange', '1', '--limit', '0'], says: () => "--limit '0' is not a number of messages to list (1 or more)" },
  { name: 'show --offset that is no count', argv: () => ['show', AGUI_EXAMPLE, '--exchange', '1', '--offset', 'x'], says: () => "--offset 'x' is not a number of messages to skip (0 or more)" },
  { name: 'show --offset past the last message', argv: () => ['show', AGUI_EXAMPLE, '--exchange', '1', '--offset', '16'], says: () => '--offset 16 is past the last message of exchange 1, which has 16' },
  { name: 'an exchange the recording does not have', argv: () => ['show', AGUI_EXAMPLE, '--exchange', '99'], says: () => `${AGUI_EXAMPLE} has no exchange '99'` },
  { name: 'a diff --config that is not there', argv: (c) => ['diff', AGUI_EXAMPLE, AGUI_EXAMPLE, '--config', c.dir.file('nope.json')], says: (c) => `--config ${c.dir.file('nope.json')}: cannot read: ENOENT` },
  {
    name: 'export --format that contradicts the --out extension',
    argv: (c) => ['export', AGUI_EXAMPLE, '--format', 'har', '--out', c.dir.file('run.ndjson')],
    says: () => '--format har, but --out run.ndjson names an NDJSON file; drop --format, or end --out in .har',
  },
  {
    name: 'export --out whose name says no format, without --format',
    argv: (c) => ['export', AGUI_EXAMPLE, '--out', c.dir.file('run.json')],
    says: () => '--out run.json: cannot tell the format from its name; add --format ndjson, har or html, or end it in .ndjson, .har or .html',
  },
  {
    name: 'export --out in a folder that is a file: the name asked for, not the temporary one',
    argv: (c) => (writeFileSync(c.dir.file('blocker'), ''), ['export', AGUI_EXAMPLE, '--format', 'ndjson', '--out', c.dir.file('blocker/x.ndjson')]),
    says: (c) => `cannot write ${c.dir.file('blocker/x.ndjson')}: ENOTDIR`,
  },
  {
    name: 'import --out where no file can be made: the name asked for, not the temporary one',
    argv: () => ['import', AGUI_EXAMPLE, '--out', '/proc/agent-proxy-test.db'],
    says: () => 'cannot open /proc/agent-proxy-test.db: unable to open database file',
    linux: true,
  },
  {
    // Node's recursive mkdir never returns for a folder under /proc: the run hung.
    name: 'record --out in a folder that cannot be made',
    argv: () => ['record', '--target', 'http://127.0.0.1:9', '--listen', '0', '--out', '/proc/agent-proxy-test/r.db'],
    says: () => "cannot create the folder for /proc/agent-proxy-test/r.db: ENOENT: no such file or directory, mkdir '/proc/agent-proxy-test'",
    linux: true,
  },
  // Busy ports: the option that named the port is the one blamed.
  {
    name: 'record --listen on a busy port',
    argv: (c) => ['record', '--target', 'http://127.0.0.1:9', '--listen', String(c.busy), '--out', c.dir.file('r.db')],
    says: (c) => `--listen 127.0.0.1:${c.busy}: the address is in use (another process listens there; choose another port, or 0 for a free one)`,
  },
  {
    name: 'record --ui on a busy port blames --ui, not --listen',
    argv: (c) => ['record', '--target', 'http://127.0.0.1:9', '--listen', '0', '--ui', String(c.busy), '--out', c.dir.file('r.db')],
    says: (c) => `--ui 127.0.0.1:${c.busy}: the address is in use (another process listens there; choose another port, or 0 for a free one)`,
  },
  {
    name: 'replay --listen on a busy port',
    argv: (c) => ['replay', AGUI_EXAMPLE, '--listen', String(c.busy)],
    says: (c) => `--listen 127.0.0.1:${c.busy}: the address is in use (another process listens there; choose another port, or 0 for a free one)`,
  },
  {
    name: 'view --listen on a busy port',
    argv: (c) => ['view', AGUI_EXAMPLE, '--listen', String(c.busy)],
    says: (c) => `--listen 127.0.0.1:${c.busy}: the address is in use (another process listens there; choose another port, or 0 for a free one)`,
  },
  // Files that are not recordings are called what they are.
  {
    name: 'a JSON file is JSON, not "not an SQLite database"',
    argv: (c) => (writeFileSync(c.dir.file('config.json'), '{"port": 8080}\n'), ['show', c.dir.file('config.json')]),
    says: (c) => `${c.dir.file('config.json')}: not a recording (JSON, but ${recordingForm}; validate checks a file of protocol messages)`,
  },
  {
    name: 'a text file',
    argv: (c) => (writeFileSync(c.dir.file('notes.txt'), 'hello\n'), ['replay', c.dir.file('notes.txt'), '--listen', '0']),
    says: (c) => `${c.dir.file('notes.txt')}: not a recording (text, but ${recordingForm})`,
  },
  {
    name: 'an empty .ndjson is an empty file, not an empty database',
    argv: (c) => (writeFileSync(c.dir.file('empty.ndjson'), ''), ['show', c.dir.file('empty.ndjson')]),
    says: (c) => `${c.dir.file('empty.ndjson')}: not a recording (the file is empty)`,
  },
  {
    name: 'a .db cut short is called cut short',
    argv: (c) => {
      const db = exampleDb(c.dir);
      const bytes = readFileSync(db);
      writeFileSync(c.dir.file('cut.db'), bytes.subarray(0, 8192));
      return ['show', c.dir.file('cut.db')];
    },
    says: (c) => `${c.dir.file('cut.db')}: not a recording (an SQLite database cut short: its header declares ${readFileSync(c.dir.file('example.db')).length} bytes, the file holds 8192)`,
  },
  { name: 'a missing recording', argv: (c) => ['show', c.dir.file('nope.db')], says: (c) => `no recording at ${c.dir.file('nope.db')}` },
  // No silent no-ops.
  {
    name: 'replay of an empty recording',
    argv: (c) => ['replay', emptyRecording(c.dir), '--listen', '0'],
    says: (c) => `${c.dir.file('empty-recording.ndjson')}: the recording holds no exchanges, so replay would serve nothing (to fill it, add --on-miss passthrough --target <url>)`,
  },
  {
    name: 'replay over HTTP of a stdio-only recording names replay --stdio',
    argv: (c) => ['replay', stdioRecording(c.dir), '--listen', '0'],
    says: (c) => `${c.dir.file('stdio.ndjson')}: the recording holds only stdio exchanges (pi-rpc), which replay over HTTP cannot serve; use replay --stdio (on its own stdin/stdout)`,
  },
  {
    name: 'fixture of an empty recording names the fixture\'s modes, not replay\'s flags',
    argv: (c) => ['fixture', emptyRecording(c.dir), '--mode', 'replay', '--listen', '0'],
    says: (c) => `${c.dir.file('empty-recording.ndjson')}: the recording holds no exchanges, so the fixture would serve nothing (to fill it, record it with --mode record and a target, or add what misses with --mode new-episodes)`,
  },
  {
    name: 'fixture over HTTP of a stdio-only recording names fixture --stdio',
    argv: (c) => ['fixture', stdioRecording(c.dir), '--mode', 'replay', '--listen', '0'],
    says: (c) => `${c.dir.file('stdio.ndjson')}: the recording holds only stdio exchanges (pi-rpc), which the fixture over HTTP cannot serve; use fixture --stdio (on its own stdin/stdout)`,
  },
  {
    name: '--misses-out without --on-miss passthrough',
    argv: (c) => ['replay', AGUI_EXAMPLE, '--listen', '0', '--misses-out', c.dir.file('misses.db')],
    says: () => '--misses-out records the misses that --on-miss passthrough forwards; add --on-miss passthrough --target <url>, or drop --misses-out',
  },
  {
    name: '--misses-out with replay --stdio',
    argv: (c) => ['replay', stdioRecording(c.dir), '--stdio', '--misses-out', c.dir.file('misses.db')],
    says: () => '--misses-out records the misses that --on-miss passthrough forwards; add --on-miss passthrough --target <url>, or drop --misses-out',
  },
  {
    name: '--target without --on-miss passthrough',
    argv: () => ['replay', AGUI_EXAMPLE, '--listen', '0', '--target', 'http://127.0.0.1:9'],
    says: () => '--target is where --on-miss passthrough forwards misses; add --on-miss passthrough, or drop --target',
  },
  {
    name: 'passthrough appending to an NDJSON recording',
    argv: () => ['replay', AGUI_EXAMPLE, '--listen', '0', '--on-miss', 'passthrough', '--target', 'http://127.0.0.1:9'],
    says: () => `cannot append new episodes to ${resolve(AGUI_EXAMPLE)}: it is the NDJSON form of a recording, and episodes are appended to a .db; add --misses-out <file>, or import it into a .db first`,
  },
  { name: 'replay --overwrite without --misses-out', argv: () => ['replay', AGUI_EXAMPLE, '--listen', '0', '--overwrite'], says: () => '--overwrite replaces the --misses-out file; it goes with --misses-out' },
  { name: 'export --overwrite without --out', argv: () => ['export', AGUI_EXAMPLE, '--format', 'ndjson', '--overwrite'], says: () => '--overwrite replaces the --out file; it goes with --out' },
  {
    name: 'validate on messages no protocol recognises: not "1 unchecked" and exit 0',
    argv: (c) => (writeFileSync(c.dir.file('unknown.json'), '{"hello":"world"}\n'), ['validate', c.dir.file('unknown.json')]),
    says: (c) => `${c.dir.file('unknown.json')}: no known protocol recognises its message, so nothing was checked; name the protocol with --protocol (agui, pi-rest, pi-daemon-rpc, pi-rpc, acp, mcp, unix-ndjson, json-rpc, openai, anthropic)`,
  },
  {
    name: 'validate --json on messages no protocol recognises',
    argv: (c) => (writeFileSync(c.dir.file('unknown.ndjson'), '{"a":1}\n{"b":2}\n'), ['validate', '--json', c.dir.file('unknown.ndjson')]),
    says: (c) => `${c.dir.file('unknown.ndjson')}: no known protocol recognises its 2 messages, so nothing was checked; name the protocol with --protocol (agui, pi-rest, pi-daemon-rpc, pi-rpc, acp, mcp, unix-ndjson, json-rpc, openai, anthropic)`,
  },
  {
    name: 'a diff of recordings of different protocols',
    argv: () => ['diff', AGUI_EXAMPLE, PI_EXAMPLE],
    says: () => `the recordings have nothing in common to compare: ${AGUI_EXAMPLE} holds agui exchanges, ${PI_EXAMPLE} holds pi-rest and pi-daemon-rpc exchanges`,
  },
];

describe('every error path: one line in one voice, exit 2', () => {
  // Every case in one batch of CLI runs (test/cli/cli-batch.ts), made before the first test: a
  // process each would cost ~0.3 s of CPU apiece, mostly starting. The first case of each command,
  // and a busy --ui port (a listener already open, and a worker, to close before exiting), also
  // run as processes of their own, which must print the same.
  const cases = CASES.filter((c) => !(c.linux && process.platform !== 'linux'));
  const ran = new Map<Case, { context: Context; result: CliResult }>();
  const folders: TempDir[] = [];
  let busy: Server | undefined;

  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy!.listen(0, '127.0.0.1', resolve));
    const contexts = cases.map((): Context => {
      const dir = tempDir();
      folders.push(dir);
      return { dir, busy: (busy!.address() as { port: number }).port };
    });
    const runs = cases.map((c, i) => c.argv(contexts[i]));
    const firsts = new Map<string, number>();
    runs.forEach((args, i) => firsts.has(args[0]) || firsts.set(args[0], i));
    const results = await runBatch(runs, { real: [...firsts.values(), cases.findIndex((c) => c.name.startsWith('record --ui on a busy port'))] });
    cases.forEach((c, i) => ran.set(c, { context: contexts[i], result: results[i] }));
  });

  afterAll(async () => {
    for (const folder of folders) folder.cleanup();
    await new Promise<void>((resolve) => (busy ? busy.close(() => resolve()) : resolve()));
  });

  for (const c of CASES) {
    it.skipIf(c.linux && process.platform !== 'linux')(c.name, () => {
      const { context, result } = ran.get(c)!;
      expect({ code: result.code, stderr: result.stderr, stdout: result.stdout }).toEqual({ code: c.code ?? 2, stderr: `${LINE_PREFIX}${c.says(context)}\n`, stdout: '' });
    });
  }
});

describe('what replay leaves out is said at the start, and it serves the rest', () => {
  const warned = async (args: string[]) => {
    const replay = startCli(['replay', ...args, '--listen', '0', '--quiet']);
    await replay.waitForLine(/^listening on /);
    await replay.stop();
    return replay.stderr();
  };

  it('stdio exchanges beside HTTP ones: a warning naming replay --stdio', async () => {
    const dir = scratch();
    const stderr = await warned([mixedRecording(dir)]);
    expect(stderr).toBe(`${LINE_PREFIX}warning: ${dir.file('mixed.ndjson')}: 1 stdio exchange is not served over HTTP; replay --stdio (on its own stdin/stdout) serves it\n`);
  });

  it('an empty recording with passthrough: a warning that every request is forwarded', async () => {
    const dir = scratch();
    const stderr = await warned([emptyRecording(dir), '--on-miss', 'passthrough', '--target', 'http://127.0.0.1:9', '--misses-out', dir.file('misses.db')]);
    expect(stderr).toBe(`${LINE_PREFIX}warning: ${dir.file('empty-recording.ndjson')} holds no exchanges: every request is forwarded to http://127.0.0.1:9\n`);
  });
});

describe('what still works next to those errors', () => {
  it('validate of a protocol it does recognise still exits 0 or 1, not 2', async () => {
    const dir = scratch();
    writeFileSync(dir.file('run.ndjson'), '{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n{"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n');
    const result = await runToEnd(['validate', dir.file('run.ndjson')]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('a diff of two recordings of the same protocol still lists its differences (exit 1)', async () => {
    const dir = scratch();
    const lines = readFileSync(AGUI_EXAMPLE, 'utf8').split('\n').filter(Boolean);
    // The same recording without its last message: they differ, and share everything else.
    writeFileSync(dir.file('shorter.ndjson'), lines.slice(0, -1).join('\n') + '\n');
    const result = await runToEnd(['diff', AGUI_EXAMPLE, dir.file('shorter.ndjson')]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
  });
});
