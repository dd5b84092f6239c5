import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../core/errors.js';
import { count } from '../core/plural.js';
import { EXIT_OK, oneLine } from './exit-codes.js';
import { warnIfReachable } from './exposure-warning.js';
import { LINE_PREFIX } from '../core/program-name.js';
import { modeText } from '../fixture/fixture-mode.js';
import { planLineFixture, settleLineRecording, type LineFixturePlan } from '../fixture/line-fixture.js';
import type { FixtureMode } from '../fixture/fixture-mode.js';
import { exitCodeOf } from '../record/relay/stdio-recorder.js';
import { runNdjsonRecord, runNdjsonReplay, runStdioRecord, runStdioReplay, type LineReplayFlags } from './stdio-commands.js';
import { unreportedRecording } from './report-flag.js';
import { createLiveView } from './live-view.js';
import { styleFor } from '../core/style.js';

/** What `fixture --stdio` and `fixture --ndjson` take, already checked by the fixture command. */
export interface LineFixtureFlags extends Pick<LineReplayFlags, 'reports' | 'reportAs' | 'shutdownGraceMs'> {
  mode?: FixtureMode;
  timing: string;
  strict?: boolean;
  ignore: string[];
  maxRequestBytes?: number;
  protocol: string;
  schemas: string[];
  maxBody?: number;
  redactFields?: string[];
  keepSecretsMatching?: string[];
  json?: boolean;
  quiet?: boolean;
}

/**
 * `fixture --stdio <recording> -- <agent command…>`: stands in for the agent on our stdin and stdout,
 * as the mode says: plays the recorded conversation (the command is not run), or runs the agent and
 * records it, or runs it without recording. stdout is the protocol's: what we say goes to stderr.
 */
export async function runStdioFixture(recording: string, command: string[], flags: LineFixtureFlags): Promise<number> {
  const plan = planLineFixture(recording, flags.mode, '--stdio', command.length > 0 ? command.join(' ') : undefined);
  warnOf(plan);
  const say = (text: string) => {
    if (!flags.quiet) process.stderr.write(`${LINE_PREFIX}${modeText(plan.chosen)}: ${text}\n`);
  };
  switch (plan.action) {
    case 'replay':
      say(`replaying ${plan.recording} (timing ${flags.timing}); the agent is not run`);
      return runStdioReplay(plan.recording, flags);
    case 'forward':
      say(`running ${command.join(' ')}; nothing is recorded`);
      return noReport(flags, 'forward', await runAgent(command));
    case 'record':
      say(recordingText(plan, command.join(' ')));
      return published(plan, async () => noReport(flags, 'record', await runStdioRecord(command, { ...flags, out: plan.out, shownAs: plan.recording, overwrite: plan.overwrite })));
  }
}

/**
 * `fixture --ndjson <recording> --target unix:… --listen unix:…`: serves the recorded socket
 * connections, or relays the daemon's socket and records it, until SIGINT or SIGTERM.
 */
export async function runNdjsonFixture(recording: string, flags: LineFixtureFlags & { target?: string; listen?: string }): Promise<number> {
  const plan = planLineFixture(recording, flags.mode, '--ndjson', flags.target);
  warnOf(plan);
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  const say = (text: string) => {
    if (!flags.quiet && !flags.json) process.stderr.write(`${LINE_PREFIX}${modeText(plan.chosen)}: ${text}\n`);
  };
  switch (plan.action) {
    case 'replay':
      say(`replaying ${plan.recording} (timing ${flags.timing}); nothing reaches the daemon`);
      return runNdjsonReplay(plan.recording, flags, stopped);
    case 'forward':
      say(`forwarding to ${flags.target}; nothing is recorded`);
      return noReport(flags, 'forward', await forwardNdjson(flags.target!, flags, stopped));
    case 'record': {
      say(recordingText(plan, flags.target!));
      const view = createLiveView({ json: Boolean(flags.json), quiet: Boolean(flags.quiet), style: styleFor(process.stdout), startedAt: new Date() });
      return published(plan, async () => noReport(flags, 'record', await runNdjsonRecord({ ...flags, out: plan.out, shownAs: plan.recording, overwrite: plan.overwrite, listener: view.listener, onStopped: view.stopped }, stopped)));
    }
  }
}

function recordingText(plan: LineFixturePlan, from: string): string {
  return plan.chosen.mode === 'record' ? `recording ${plan.recording} again from ${from} (the old recording is replaced)` : `${plan.recording} does not exist: recording it from ${from}`;
}

/** Records, then writes a fixture committed as NDJSON back from its work copy (see settleLineRecording); a run that fails leaves it as it was. */
async function published(plan: LineFixturePlan, record: () => Promise<number>): Promise<number> {
  let code: number;
  try {
    code = await record();
  } catch (error) {
    plan.work?.discard();
    throw error;
  }
  settleLineRecording(plan);
  return code;
}

/**
 * Passthrough over the NDJSON socket: the relay of `record --ndjson`, into a file of its own in a
 * temporary folder that is removed when it stops, so nothing is kept.
 */
async function forwardNdjson(target: string, flags: { listen?: string; json?: boolean; shutdownGraceMs?: number }, stopped: Promise<NodeJS.Signals>): Promise<number> {
  if (!flags.listen) throw new UsageError('--ndjson needs --listen unix:/path/proxy.sock');
  const { startNdjsonRecorder } = await import('../record/relay/ndjson-relay.js');
  const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-passthrough-'));
  try {
    const relay = await startNdjsonRecorder({ target, listen: flags.listen, out: join(dir, 'discarded.db'), shutdownGraceMs: flags.shutdownGraceMs });
    warnIfReachable('record', flags.listen, relay.url);
    const print = (line: string) => process.stdout.write(line + '\n');
    print(flags.json ? JSON.stringify({ event: 'listening', url: relay.url, target, action: 'forward' }) : `listening on ${relay.url} -> ${target}`);
    const signal = await stopped;
    const { exchanges } = await relay.close();
    print(flags.json ? JSON.stringify({ event: 'summary', signal, forwarded: exchanges }) : `stopped (${signal}): ${count(exchanges, 'connection')} forwarded to ${target}, nothing recorded`);
    return EXIT_OK;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Passthrough over stdio: the agent on our own stdin, stdout and stderr; its exit code is ours. */
function runAgent(command: string[]): Promise<number> {
  const child = spawn(command[0]!, command.slice(1), { stdio: 'inherit', detached: true });
  const forward = (signal: NodeJS.Signals) => () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  const onInt = forward('SIGINT');
  const onTerm = forward('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return new Promise<number>((resolve) => {
    child.once('error', (error) => {
      process.stderr.write(`${LINE_PREFIX}could not start ${command[0]}: ${error.message}\n`);
      resolve(127);
    });
    child.once('close', (exitCode, signal) => resolve(exitCodeOf(exitCode, signal)));
  }).finally(() => {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  });
}

/** A fixture that recorded or forwarded writes no `--report`, and says so; resolves to its exit code. */
function noReport(flags: LineFixtureFlags, action: 'record' | 'forward', code: number): number {
  if ((flags.reports ?? []).length > 0) unreportedRecording(action);
  return code;
}

/** Said whatever --quiet says, as the HTTP fixture says its warnings: episodes recovered from a killed fixture. */
function warnOf(plan: LineFixturePlan): void {
  for (const warning of plan.warnings) process.stderr.write(`${LINE_PREFIX}warning: ${oneLine(warning)}\n`);
}
