/** `--report <format>=<file>` values: what is taken, and one clear line for what is not. */
import { describe, expect, it } from 'vitest';
import { parseReportTargets } from '../../src/report/report-targets.js';

describe('parseReportTargets', () => {
  it('takes each format with a file, - for stdout, and github alone', () => {
    expect(parseReportTargets(['junit=out/r.xml', 'markdown=-', 'json=r=1.json', 'github', 'github=cmds.txt'])).toEqual([
      { format: 'junit', file: 'out/r.xml' },
      { format: 'markdown', file: '-' },
      { format: 'json', file: 'r=1.json' },
      { format: 'github' },
      { format: 'github', file: 'cmds.txt' },
    ]);
  });

  it.each([
    [['xml=a.xml'], "--report 'xml=a.xml': unknown format 'xml' (expected junit, github, markdown, json, html, as <format>=<file>, e.g. junit=report.xml)"],
    [['junit'], "--report 'junit' names no file: expected junit=<file> (or junit=- for stdout)"],
    [['json='], "--report 'json=' names no file: expected json=<file> (or json=- for stdout)"],
    [['junit=a', 'json=a'], '--report: a is named by two reports; give each its own file'],
    [['junit=-', 'json=-'], '--report: stdout (-) is named by two reports; give each its own file'],
  ])('refuses %j', (values, message) => {
    expect(() => parseReportTargets(values)).toThrow(message);
  });

  it('refuses - where stdout is taken', () => {
    expect(() => parseReportTargets(['junit=-'], "the replay's log")).toThrow("--report junit=-: stdout is the replay's log; write the report to a file");
    expect(parseReportTargets(['junit=r.xml'], "the replay's log")).toEqual([{ format: 'junit', file: 'r.xml' }]);
  });
});
