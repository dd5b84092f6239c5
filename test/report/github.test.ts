/** GitHub Actions workflow commands: one per failure and per note, escaped as GitHub's toolkit escapes them, so no text of the traffic can start a command of its own. */
import { describe, expect, it } from 'vitest';
import { escapeData, escapeProperty, workflowCommands } from '../../src/report/github.js';
import { ciReport } from '../../src/report/ci-report.js';

describe('workflowCommands', () => {
  it('writes ::error for each failure and ::warning for each note, titled by the case and pointing at the recording', () => {
    const report = ciReport('findings', [
      {
        name: 'run.db',
        file: 'recordings/run, 1.db',
        properties: {},
        cases: [
          {
            name: 'POST /agent (#1)',
            classname: 'agui',
            exchange: 1,
            failures: [{ kind: 'finding', title: 'error schema', message: '100% wrong: a, b', details: ['3 ← RUN_STARTED at /type', '::set-output name=x::y'] }],
            notes: [{ kind: 'finding', title: 'warning late', message: 'late\r\nby 5 s', details: [] }],
          },
          { name: 'GET /health (#2)', classname: 'http', exchange: 2, failures: [], notes: [] },
        ],
      },
    ]);
    expect(workflowCommands(report).split('\n')).toEqual([
      '::error title=POST /agent (#1)%3A error schema,file=recordings/run%2C 1.db::100%25 wrong: a, b%0A3 ← RUN_STARTED at /type%0A::set-output name=x::y',
      '::warning title=POST /agent (#1)%3A warning late,file=recordings/run%2C 1.db::late%0D%0Aby 5 s',
      '',
    ]);
  });

  it('writes nothing for a report with nothing to say', () => {
    expect(workflowCommands(ciReport('diff', [{ name: 'a', file: 'a', properties: {}, cases: [] }]))).toBe('');
  });

  it('escapes % first, so an escape already in the text stays text', () => {
    expect(escapeData('%0A\n%')).toBe('%250A%0A%25');
    expect(escapeProperty('a:b,c%\r')).toBe('a%3Ab%2Cc%25%0D');
  });
});
