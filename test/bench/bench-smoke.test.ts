/**
 * The CPU benches run against this build: every micro case measures the path it names (a case that
 * cannot, after an API moved, fails the run), the diff bench finds exactly the differences it
 * plants, and the MCP and LLM stream benches record every message they send as their protocol's,
 * with no invalid one (each bench checks its recording and fails the run otherwise). Tiny sizes: the
 * figures are not read here, only that the benches still work.
 */
import { describe, expect, it } from 'vitest';
import { runBench } from '../support/bench-run.js';
import { AGUI_SSE_RUN, writeNdjsonRecording } from '../support/ndjson-recording.js';

describe('benches', () => {
  it('micro --smoke measures every case', async () => {
    const run = await runBench(['bench/micro.js', '--smoke']);
    expect(run.stderr).toBe('');
    expect(run.stdout).not.toContain('not measured');
    for (const group of ['framers', 'judge', 'writer', 'worker']) expect(run.stdout).toContain(`\n${group}\n`);
    expect(run.code).toBe(0);
  });

  it('record-floor --smoke: every piece of the per-message floor measured, every row of the together run stored', async () => {
    const run = await runBench(['bench/record-floor.js', '--smoke']);
    expect(run.stderr).toBe('');
    for (const piece of ['handover', 'parse', 'validate', 'row']) expect(run.stdout).toMatch(new RegExp(`\\n {2}${piece}: .* +\\d+\\.\\d\\d +\\d+\\.\\d\\d\\n`));
    expect(run.stdout).toMatch(/\n {2}framing: .* +\d+\.\d\d +—\n/);
    expect(run.stdout).toMatch(/\n {2}together, in a worker, to the last row +\d+\.\d\d +\d+\.\d\d\n/);
    expect(run.stdout).toMatch(/\(rows stored and counted in each round\) +4032 +4032\n/);
    expect(run.code).toBe(0);
  });

  it('rss-floor --smoke: the bare forwarder, the idle worker, the floor recorder and the recorder each read the whole stream, the two that record store every event, and each peak is reported with the differences', async () => {
    const run = await runBench(['bench/rss-floor.js', '--smoke', '--memory']);
    expect(run.stderr).toBe('');
    const peak = (label: string, stored = '') => {
      const found = new RegExp(`\\n {2}${label} +peak RSS sampled +(\\d+\\.\\d) \\([\\d.]+\\) +high-water mark +(\\d+\\.\\d) \\([\\d.]+\\)${stored}\\n`).exec(run.stdout);
      expect(found, label).not.toBeNull();
      return { sampled: Number(found![1]), hwm: Number(found![2]) };
    };
    // 5,000 events and the stream's own four: the floor stores those; the recorder the request's body too.
    const bare = peak('bare forwarder');
    peak('idle worker');
    const floor = peak('floor recorder', ', 5,004 messages stored');
    peak('recorder', ', 5,005 messages stored');
    // The kernel's high-water mark is not below a sample of the same process (its counters are synced lazily: 1 MB of slack).
    for (const side of [bare, floor]) expect(side.hwm).toBeGreaterThanOrEqual(side.sampled - 1);
    expect(run.stdout.match(/at the highest sample, mapped files \(node's binary\)/g)).toHaveLength(4);
    expect(run.stdout).toMatch(/\n {2}idle worker above the bare forwarder: +sampled -?\d+\.\d /);
    expect(run.stdout).toMatch(/\n {2}floor above the bare forwarder: +sampled -?\d+\.\d /);
    expect(run.stdout).toMatch(/\n {2}recorder above the floor: +sampled -?\d+\.\d /);
    expect(run.code).toBe(0);
  });

  it('record-floor --smoke --pack: the floor again with 8 and 100 messages a row, every message stored and read back, the given gap added', async () => {
    const run = await runBench(['bench/record-floor.js', '--smoke', '--pack', '8,100', '--gap', '2.1,3.45']);
    expect(run.stderr).toBe('');
    // A line's two figures (SSE, WS); `verdict`: what follows each (the floor + gap's ` met` or ` over`).
    const figures = (label: string, verdict = '') => {
      const found = new RegExp(`\\n {2}${label} +(\\d+\\.\\d\\d)${verdict} +(\\d+\\.\\d\\d)${verdict}\\n`).exec(run.stdout);
      expect(found, label).not.toBeNull();
      return [Number(found![1]), Number(found![2])];
    };
    for (const n of [8, 100]) figures(`row alone, ${n} a row`);
    // 4,032 messages each: in 504 full rows of 8; in 40 rows of 100 and one of the last 32 (the variant's packs
    // do not end with its transactions of 1,024 messages), each read back and unpacked.
    for (const kind of ['SSE', 'WS ']) {
      expect(run.stdout).toContain(`stored in a round, ${kind} 1 a row:    4,032 rows for 4,032 messages; raw `);
      expect(run.stdout).toContain(`stored in a round, ${kind} 8 a row:    504 rows for 4,032 messages; raw `);
      expect(run.stdout).toContain(`stored in a round, ${kind} 100 a row:  41 rows for 4,032 messages; raw `);
    }
    expect(run.stdout).toContain("the floor + the recorder's gap above it (2.10 / 3.45 µs, given with --gap), against ≤ 3 µs");
    for (const n of [8, 100]) {
      const [sse, ws] = figures(`together, ${n} a row`);
      const [sseWithGap, wsWithGap] = figures(`… ${n} a row`, ' (?:met|over)');
      expect(sseWithGap).toBeCloseTo(sse + 2.1, 1);
      expect(wsWithGap).toBeCloseTo(ws + 3.45, 1);
    }
    expect(run.code).toBe(0);
  });

  it("record-floor --rest --smoke: every piece of a REST exchange's floor measured, every exchange of the together run stored, the best ratio worked out from the traffic's figures", async () => {
    // Given traffic figures (µs per request): client 50, upstream 30, bare forwarder 70, passthrough 80, recorder 110.
    const run = await runBench(['bench/record-floor.js', '--rest', '--smoke', '--traffic', '50,30,70,80,110']);
    expect(run.stderr).toBe('');
    for (const piece of ['handover', 'heads', 'parse', 'verdict', 'secrets', 'rows']) expect(run.stdout).toMatch(new RegExp(`\\n {2}${piece}: .* +\\d+\\.\\d\\d\\n`));
    // 1,000 exchanges asked for, posted 32 a batch: 1,024, each stored as an exchange row and a message row.
    expect(run.stdout).toMatch(/\(exchanges stored and counted in each round\) +1024\n/);
    const together = Number(/\n {2}together, in a worker, to the last row +(\d+\.\d\d)\n/.exec(run.stdout)?.[1]);
    expect(together).toBeGreaterThan(0);
    expect(run.stdout).toMatch(/forwarding's own: passthrough − bare forwarder +10\.00\n/);
    const floorRecorder = Number(/the floor recorder: passthrough \+ together +(\d+\.\d\d)\n/.exec(run.stdout)?.[1]);
    expect(floorRecorder).toBeCloseTo(80 + together, 1);
    // 0.9 of (50 + 30 + 70) = 150 µs a request leaves the recorder 150 / 0.9 − 80 µs.
    expect(run.stdout).toMatch(/at the traffic's pace, 0\.9 needs the recorder at ≤ +86\.67 +\(recording's share over passthrough ≤ 6\.67\)\n/);
    const best = Number(/best recorded ÷ bare any such recorder could reach +(\d\.\d{3}) /.exec(run.stdout)?.[1]);
    expect(best).toBeCloseTo(150 / (80 + floorRecorder), 2);
    // Said either way, by how far the floor recorder is from those 86.67 µs.
    const margin = /target ≥ 0\.9: (?:reachable, with (\d+\.\d\d) µs to spare over the floor|out of reach, the floor is (\d+\.\d\d) µs over it)\n/.exec(run.stdout);
    expect(margin).not.toBeNull();
    expect(margin![1] !== undefined ? 86.67 - Number(margin![1]) : 86.67 + Number(margin![2])).toBeCloseTo(floorRecorder, 1);
    // Were forwarding to cost what the bare forwarder's does: 150 µs against 150 + together.
    const ceiling = Number(/passthrough = bare \(forwarding adds nothing\) +(\d\.\d{3}) +\(0\.9 leaves recording ≤ 16\.67 µs over the bare forwarder\)\n/.exec(run.stdout)?.[1]);
    expect(ceiling).toBeCloseTo(150 / (150 + together), 2);
    expect(run.stdout).toMatch(/the recorder's own CPU allows ≤ +0\.789 /);
    expect(run.code).toBe(0);
  });

  it('read-floor --smoke: every step of reading a message timed in a fresh process, every message read and every line through the pipe', async () => {
    const run = await runBench(['bench/read-floor.js', '--smoke']);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/, 103 messages; /);
    for (const step of ['node -e 0', 'node \\+ better-sqlite3, the recording opened']) expect(run.stdout).toMatch(new RegExp(`\\n {2}${step} +\\d+\\.\\d{3} \\(`));
    for (const step of ["\\+ every message's id stepped", "\\+ raw's text .*", "\\+ the other values export's reader reads", 'bare NDJSON: .*', '`export --format ndjson`, to a pipe']) expect(run.stdout).toMatch(new RegExp(`\\n {2}${step} +\\d+\\.\\d{3} \\([^)]*\\) +\\d+\\.\\d\\d +-?\\d+\\.\\d\\d +[\\d,]+ `));
    expect(run.stdout).toMatch(/\n {2}floor: the bare NDJSON writer, \d+\.\d\d µs a message/);
    expect(run.stdout).toMatch(/\n {2}gap: export − the floor -?\d+\.\d{3} s/);
    expect(run.code).toBe(0);
  });

  it('mcp-stdio --smoke: MCP tool calls through record --stdio, every message recorded as mcp and valid, with the CPU per message', async () => {
    const run = await runBench(['bench/mcp-stdio.js', '--smoke']);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/CPU per message \(all threads\): bare relay \d+\.\d\d µs, record --stdio \d+\.\d\d µs/);
    expect(run.stdout).toContain('every recording checked: 705 messages, mcp, none invalid');
    expect(run.code).toBe(0);
  });

  it('llm-stream --smoke: OpenAI and Anthropic streams through record and replay, every chunk recorded as its API\'s and valid, with the CPU per chunk', async () => {
    const run = await runBench(['bench/llm-stream.js', '--smoke']);
    expect(run.stderr).toBe('');
    for (const api of ['OpenAI chat stream', 'Anthropic messages stream']) {
      const section = run.stdout.slice(run.stdout.indexOf(`${api}:`));
      expect(section).toMatch(/CPU per chunk \(all threads, [^)]*\): bare forwarder \d+\.\d\d µs, record \d+\.\d\d µs/);
      expect(section).toMatch(/replay CPU per chunk \(--timing none\): bare server \d+\.\d\d µs, replay \d+\.\d\d µs/);
    }
    expect(run.code).toBe(0);
  });

  it('forward-certs --smoke: handshakes through minted and cached leaves, each as a ratio to a fixed certificate', async () => {
    const run = await runBench(['bench/forward-certs.js', '--smoke']);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/handshake for a new host \(mint \+ handshake\) +\d+\.\d{3} ms +\d+\.\d\d×/);
    expect(run.stdout).toMatch(/serving a cached leaf \(leafFor, same host\) +\d+\.\d\d µs/);
    expect(run.code).toBe(0);
  });

  it("sqlite-row: every variant of an SSE event's row stores every row, and is measured against the writer's", async () => {
    const run = await runBench(['bench/sqlite-row.js', '--rows', '2048', '--rounds', '1']);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/\n {2}writer +\d+\.\d\d \d+\.\d\d /);
    expect(run.stdout.match(/ against writer\n/g)).toHaveLength(10);
    expect(run.code).toBe(0);
  });

  it('validate-floor measures every part of validate, and the floor beside them, on a recording', async () => {
    const messages = [
      { sender: 'client' as const, carrier: 'body' as const, json: { threadId: 't1', runId: 'r1', state: {}, messages: [], tools: [], context: [], forwardedProps: {} } },
      { sender: 'server' as const, json: { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' } },
      { sender: 'server' as const, json: { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' } },
    ];
    const run = await runBench(['bench/validate-floor.js', writeNdjsonRecording([{ ...AGUI_SSE_RUN, messages }]), '--runs', '1']);
    expect(run.stderr).toBe('');
    expect(run.stdout.match(/ best +\d+ ms {2}\(\d+\)\n/g)).toHaveLength(7);
    expect(run.stdout).toContain('rows + JSON.parse + validator (floor)');
    expect(run.code).toBe(0);
  });

  it('diff --runs 10 --events 400 finds exactly the planted differences', async () => {
    const run = await runBench(['bench/diff.js', '--runs', '10', '--events', '400']);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/found: exchanges 6 changed, 1 added, 0 removed, 4 equal; messages 4 changed, 1 added, 1 removed; 1 regression/);
    expect(run.code).toBe(0);
  });
});
