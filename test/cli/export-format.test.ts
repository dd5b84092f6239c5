/**
 * `export` without `--format`: the `--out` extension names the format, stdout gets NDJSON; a
 * `--format` that contradicts the extension is refused (the refusals are in error-lines.test.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { exportFormatOf } from '../../src/cli/export-format.js';
import { runToEnd } from '../hostile/cli-child.js';
import { useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';
import { AGUI_EXAMPLE, mixedRecording } from './cli-fixtures.js';
import { PI_RPC_UNCORRELATED_REJECTION, writeNdjsonRecording } from '../support/ndjson-recording.js';
import { parseXml, type XmlElement } from '../support/xml.js';

useCleanups();

describe('exportFormatOf', () => {
  it('takes --format when given, else the --out extension (any case), else NDJSON', () => {
    expect(exportFormatOf(undefined, undefined)).toBe('ndjson');
    expect(exportFormatOf('har', undefined)).toBe('har');
    expect(exportFormatOf(undefined, 'out/run.ndjson')).toBe('ndjson');
    expect(exportFormatOf(undefined, 'run.HAR')).toBe('har');
    expect(exportFormatOf('ndjson', 'run.ndjson')).toBe('ndjson');
    expect(exportFormatOf(undefined, 'view.html')).toBe('html');
    expect(exportFormatOf(undefined, 'view.HTM')).toBe('html');
    expect(exportFormatOf('html', undefined)).toBe('html');
    // An extension that names no format does not contradict an explicit one.
    expect(exportFormatOf('har', 'run.json')).toBe('har');
  });

  it('refuses a --format that contradicts the extension, and an --out that names no format', () => {
    expect(() => exportFormatOf('ndjson', 'run.har')).toThrow(new UsageError('--format ndjson, but --out run.har names a HAR file; drop --format, or end --out in .ndjson'));
    expect(() => exportFormatOf('har', 'view.html')).toThrow(new UsageError('--format har, but --out view.html names an HTML page; drop --format, or end --out in .har'));
    expect(() => exportFormatOf(undefined, 'run.txt')).toThrow(UsageError);
  });
});

describe('proxy export without --format', () => {
  it('writes NDJSON on stdout', async () => {
    const result = await runToEnd(['export', AGUI_EXAMPLE]);
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(result.stdout).toBe(readFileSync(AGUI_EXAMPLE, 'utf8'));
  });

  it('writes what the --out extension names', async () => {
    const dir = scratch();
    const har = await runToEnd(['export', AGUI_EXAMPLE, '--out', dir.file('run.har')]);
    expect([har.code, har.stderr, har.stdout]).toEqual([0, '', '']);
    expect(JSON.parse(readFileSync(dir.file('run.har'), 'utf8')).log.version).toBe('1.2');
    const ndjson = await runToEnd(['export', AGUI_EXAMPLE, '--out', dir.file('run.ndjson')]);
    expect([ndjson.code, ndjson.stderr]).toEqual([0, '']);
    expect(readFileSync(dir.file('run.ndjson'), 'utf8')).toBe(readFileSync(AGUI_EXAMPLE, 'utf8'));
  });

  it('says in the HAR how many stdio exchanges it left out, in the right number', async () => {
    const dir = scratch();
    const result = await runToEnd(['export', mixedRecording(dir), '--out', dir.file('mixed.har')]);
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(JSON.parse(readFileSync(dir.file('mixed.har'), 'utf8')).log.comment).toBe('1 stdio/NDJSON exchange left out: no HTTP form');
  });
});

describe('proxy export --format html', () => {
  it('shows the verdicts findings gives: a recording judged by older rules is judged again, as show and findings judge it', async () => {
    // Stored before `response-uncorrelatable` existed: an id-less over-capacity rejection, with no finding.
    const file = writeNdjsonRecording([PI_RPC_UNCORRELATED_REJECTION], 'old.ndjson', { rulesVersion: null });
    const dir = scratch();
    const [page, findings] = await Promise.all([runToEnd(['export', file, '--out', dir.file('view.html')]), runToEnd(['findings', file, '--json'])]);
    expect([page.code, findings.code]).toEqual([0, 0]);
    const all = (el: XmlElement): XmlElement[] => [el, ...el.children.flatMap(all)];
    const shown = all(parseXml(readFileSync(dir.file('view.html'), 'utf8')))
      .filter((e) => e.name === 'tr' && /^exchange-\d+-\d+$/.test(e.attributes.id ?? ''))
      .flatMap((tr) => all(tr).filter((e) => e.name === 'li').map((li) => `${tr.attributes.id} ${li.children.map((c) => c.text).join('')}`));
    const listed = (JSON.parse(findings.stdout) as { findings: Array<{ exchange: number; seq: number; severity: string; rule: string }> }).findings.map((f) => `exchange-${f.exchange}-${f.seq} ${f.severity} ${f.rule}`);
    expect(shown.map((s) => s.split(/ (at |\(whole)/)[0])).toEqual(listed);
    expect(listed).toContain('exchange-1-4 warning response-uncorrelatable');
  });
});
