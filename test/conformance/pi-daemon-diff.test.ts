import { describeWithCorpus } from '../support/shared.js';
/**
 * The real pi-daemon v0.3.0 recordings in ../shared/fixtures/pi-daemon/recorded: run1 and run2 are
 * the same scripted session against two freshly started daemons. They must diff equal under
 * --semantic (only the mock model's port, `model.baseUrl`, differs legitimately), the raw diff may
 * show only streaming partial snapshots, and a one-token change must still be found and named.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import type { DiffReport } from '../../src/diff/diff-report.js';
import { runCli } from '../cli/run-cli.js';
import { useCleanups } from '../record/pi-helpers.js';
import { scratch } from '../support/temp-dir.js';
import { sharedPath } from '../support/shared.js';

useCleanups();

const recorded = (name: string) => sharedPath('fixtures', 'pi-daemon', 'recorded', name);

async function diff(a: string, b: string, ...args: string[]): Promise<{ code: number | null; report: DiffReport }> {
  const cli = await runCli(['diff', a, b, '--ignore', 'baseUrl', '--format', 'json', ...args]);
  expect(cli.stderr).toBe('');
  return { code: cli.code, report: JSON.parse(cli.stdout) as DiffReport };
}

/**
 * A copy of run2 in a temp dir with `from` replaced by `to` in one message only (its raw text and
 * its parsed JSON alike): the message of `exchange` whose raw text holds `marker` and `from`.
 */
function mutatedRun2(exchange: number, marker: string, from: string, to: string): string {
  let changed = 0;
  const lines = readFileSync(recorded('run2.ndjson'), 'utf8')
    .split('\n')
    .map((line) => {
      if (line === '' || changed > 0) return line;
      const value = JSON.parse(line) as { type: string; exchange?: number; raw?: string; json?: unknown };
      if (value.type !== 'message' || value.exchange !== exchange || !value.raw?.includes(marker) || !value.raw.includes(from)) return line;
      changed++;
      value.raw = value.raw.replace(from, to);
      if (value.json !== undefined && value.json !== null) value.json = JSON.parse(value.raw);
      return JSON.stringify(value);
    });
  expect(changed).toBe(1);
  const file = scratch('agent-proxy-conformance-diff-').file('run2-mutated.ndjson');
  writeFileSync(file, lines.join('\n'));
  return file;
}

/** Every difference as `exchange#seq label pointer`. */
const places = (report: DiffReport) =>
  report.exchanges.flatMap((e) => e.messages.flatMap((m) => m.differences.map((d) => `${e.a?.id}#${m.a?.seq} ${m.a?.label} ${d.pointer}`)));

describeWithCorpus('proxy diff on real pi-daemon recordings of the same scripted run', () => {
  it('--semantic --ignore baseUrl: equal, exit 0', async () => {
    const { code, report } = await diff(recorded('run1.ndjson'), recorded('run2.ndjson'), '--semantic');
    expect(report.exchanges, JSON.stringify(report.exchanges, null, 1)).toEqual([]);
    expect(code).toBe(0);
  });

  it('raw --ignore baseUrl: only streaming partial snapshots differ', async () => {
    const { code, report } = await diff(recorded('run1.ndjson'), recorded('run2.ndjson'));
    expect(code).toBe(1);
    const labels = new Set(report.exchanges.flatMap((e) => e.messages.flatMap((m) => [m.a?.label, m.b?.label])));
    expect([...labels]).toEqual(['message_update']);
  });

  it('one token changed in a tool result is found and named under --semantic', async () => {
    const b = mutatedRun2(24, '"tool_execution_end"', 'MARKER-42', 'MARKER-43');
    const { code, report } = await diff(recorded('run1.ndjson'), b, '--semantic');
    expect(code).toBe(1);
    expect(places(report)).toContain('24#18 event:tool_execution_end /event/result/content/0/text');
    expect(report.exchanges[0].messages[0].differences[0]).toMatchObject({ a: expect.stringContaining('MARKER-42'), b: expect.stringContaining('MARKER-43') });
  });

  it('one token changed in an assistant text is found and named under --semantic', async () => {
    const b = mutatedRun2(23, '"message_end"', 'mock model.', 'mock modal.');
    const { code, report } = await diff(recorded('run1.ndjson'), b, '--semantic');
    expect(code).toBe(1);
    expect(places(report)).toEqual(['23#20 message_end /message/content/0/text']);
  });
});
