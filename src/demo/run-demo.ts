import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { startRecorder, type RecordingTotals } from '../record/start-recorder.js';
import type { LiveListener } from '../record/live-events.js';
import { shellWord } from '../core/shell-word.js';
import type { Style } from '../core/style.js';
import { diffRecordingFiles } from '../diff/diff-recordings.js';
import type { DiffReport } from '../diff/diff-report.js';
import { renderText } from '../diff/render-text.js';
import { startReplay } from '../replay/start-replay.js';
import { startDemoAgent } from './demo-agent.js';
import { count } from '../core/plural.js';
import { makeFolders } from '../core/make-folders.js';

export interface DemoOptions {
  /** Where the recordings go; default a fresh temp dir. */
  dir?: string;
  style: Style;
  /** Where the narration goes (default stdout). */
  write?: (text: string) => void;
  /** The live view of each recording, from whoever presents the demo (the CLI's, as `record` shows it). */
  liveView: (totals: () => RecordingTotals) => DemoLiveView;
  /** The command that runs this CLI again, for the commands the demo suggests at the end. */
  command: string;
}

export interface DemoLiveView {
  listener: LiveListener;
  clearStatus(): void;
}

export interface DemoResult {
  dir: string;
  recorded: string;
  replayed: string;
  report: DiffReport;
}

/** A run's RunAgentInput, with fresh ids every time, as a real client would send. */
function runInput(): Record<string, unknown> {
  return {
    threadId: `thread-${randomUUID()}`,
    runId: `run-${randomUUID()}`,
    state: {},
    messages: [{ id: randomUUID(), role: 'user', content: 'What is the weather in Paris?' }],
    tools: [{ name: 'get_weather', description: 'Current weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
    context: [],
    forwardedProps: {},
  };
}

async function runOnce(url: string): Promise<void> {
  const response = await fetch(`${url}/agent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(runInput()),
  });
  await response.text();
}

/**
 * `agent-proxy demo`: the whole loop with no agent of your own. Starts the bundled AG-UI agent, records a
 * run through the proxy (live view), replays the recording and records a run against the replay,
 * then diffs the two recordings, which are equal after normalization.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const { style } = options;
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const say = (line = '') => write(line + '\n');
  const dir = options.dir ? resolve(options.dir) : mkdtempSync(join(tmpdir(), 'agent-proxy-demo-'));
  makeFolders(dir);
  const recorded = join(dir, 'run-1.db');
  const replayed = join(dir, 'run-2.db');

  const record = async (target: string, out: string): Promise<RecordingTotals> => {
    let totals: () => RecordingTotals = () => ({ exchanges: 0, messages: 0, invalid: 0, findings: 0 });
    const view = options.liveView(() => totals());
    const recorder = await startRecorder({ target, listen: 0, out, overwrite: true, listener: view.listener });
    totals = () => recorder.totals();
    say(style.dim(`  proxy ${recorder.url} -> ${target}, recording to ${out}`));
    try {
      await runOnce(recorder.url);
    } finally {
      await recorder.close().finally(() => view.clearStatus());
    }
    return recorder.totals();
  };

  say(style.bold('1/5 starting the bundled AG-UI agent'));
  const agent = await startDemoAgent();
  say(style.dim(`  agent listening on ${agent.url} (it makes one deliberate protocol mistake)`));
  let first: RecordingTotals;
  try {
    say(style.bold('2/5 recording a scripted run through the proxy'));
    first = await record(agent.url, recorded);
  } finally {
    await agent.close();
  }
  say(`  ${count(first.exchanges, 'exchange')}, ${count(first.messages, 'message')}, ${first.invalid > 0 ? style.red(`${first.invalid} invalid`) : '0 invalid'}, ${count(first.findings, 'finding')}`);

  say(style.bold('3/5 replaying the recording (no agent now) and recording a fresh run against the replay'));
  // The client mints a fresh id for its own user message every run; replay ignores it when matching.
  const replay = await startReplay({ recording: recorded, listen: 0, timing: 'none' });
  say(style.dim(`  replay serving ${recorded} on ${replay.url}; the new run has new threadId/runId`));
  let second: RecordingTotals;
  try {
    second = await record(replay.url, replayed);
  } finally {
    await replay.close();
  }
  say(`  ${count(second.exchanges, 'exchange')}, ${count(second.messages, 'message')}`);

  say(style.bold('4/5 diffing the two recordings'));
  const report = diffRecordingFiles(recorded, replayed);
  write(renderText(report, style).trimEnd().replace(/^/gm, '  ') + '\n');

  say(style.bold('5/5 try next'));
  const rel = (p: string) => {
    const r = relative(process.cwd(), p);
    return shellWord(r.startsWith('..') ? p : r);
  };
  const cmd = (args: string) => say(`  ${options.command} ${args}`);
  cmd(`view ${rel(recorded)}                       # the inspector: exchanges, events and verdicts in the browser`);
  cmd(`view ${rel(recorded)} --diff ${rel(replayed)}   # … with the diff of the two runs`);
  cmd(`show ${rel(recorded)}                       # one row per exchange`);
  cmd(`show ${rel(recorded)} --exchange 1          # every event with its verdict`);
  cmd(`replay ${rel(recorded)} --listen 8788       # serve it as a mock agent`);
  cmd(`diff ${rel(recorded)} ${rel(replayed)} --format markdown`);
  cmd(`export ${rel(recorded)} --format ndjson --out run-1.ndjson   # the text form to commit`);
  cmd(`export ${rel(recorded)} --format har --out run-1.har`);
  cmd(`record --target http://127.0.0.1:8000 --listen 8788   # your own agent`);
  return { dir, recorded, replayed, report };
}
