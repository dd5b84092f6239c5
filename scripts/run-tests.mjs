#!/usr/bin/env node
// Runs vitest (`vitest run`, with the arguments given) under the Node that runs this script, and
// when tests fail, says which at the very end of the output, where a CI log's tail shows it, then
// runs the failed files once more on their own. A file that passes then is reported as FLAKY, by
// name, and does not fail the run: a test that fails once in many runs is a defect to fix, but it
// must not cost every other change its landing. AGENT_PROXY_NO_RERUN=1 turns the second run off;
// AGENT_PROXY_TEST_SUMMARY=<file> appends a line per failed or flaky file to it (scripts/test-node.sh
// prints them after every version's run).
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const VITEST = 'node_modules/vitest/vitest.mjs';
const MESSAGE_LINES = 12;

const args = process.argv.slice(2);
const first = await runVitest(args);
if (first.code === 0) process.exit(0);

say(`vitest failed (exit ${first.code})`);
if (first.errors) process.stderr.write(`\n===== errors outside any test =====\n${first.errors}\n`);
if (first.failed === undefined) {
  note('FAILED: vitest wrote no results (it crashed or was killed): see the output above');
  process.exit(first.code || 1);
}
printFailures(first.failed);
if (first.failed.length === 0) {
  note(`FAILED: ${first.errors ? 'errors outside any test, above' : 'no test failed: see the output above'}`);
  process.exit(first.code || 1);
}
if (process.env.AGENT_PROXY_NO_RERUN === '1') process.exit(first.code || 1);

const files = first.failed.map((file) => file.path);
say(`running the ${files.length} failed file(s) once more on their own`);
const second = await runVitest(files);
if (second.code === 0 && !first.errors) {
  for (const file of first.failed) note(`FLAKY: ${file.path} failed (${file.tests.map((test) => test.name).join('; ') || file.message.split('\n')[0]}), then passed on its own`);
  process.exit(0);
}
say(`the failed file(s) failed again (exit ${second.code})`);
if (second.failed !== undefined) printFailures(second.failed);
for (const file of second.failed ?? first.failed) note(`FAILED: ${file.path} (${file.tests.map((test) => test.name).join('; ') || file.message.split('\n')[0]})`);
process.exit(second.code || 1);

/**
 * One vitest run, its output shown as it goes, with its failed files (undefined when it wrote no
 * results) and what it said of errors outside any test (vitest fails a run on an unhandled error
 * even when every test passed).
 */
async function runVitest(vitestArgs) {
  const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-tests-'));
  const results = join(dir, 'results.json');
  try {
    const child = spawn(process.execPath, [VITEST, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...vitestArgs], { stdio: ['inherit', 'pipe', 'pipe'] });
    const said = [];
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      said.push(chunk);
    });
    child.stderr.on('data', (chunk) => {
      process.stderr.write(chunk);
      said.push(chunk);
    });
    const code = await new Promise((resolve) => child.on('close', (status) => resolve(status ?? 1)));
    const errors = unhandledErrors(Buffer.concat(said).toString('utf8'));
    let report;
    try {
      report = JSON.parse(readFileSync(results, 'utf8'));
    } catch {
      return { code, failed: undefined, errors };
    }
    return { code, failed: failedFiles(report), errors };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** vitest's "Unhandled Errors" section, without colours, or '' when there is none. */
function unhandledErrors(output) {
  const lines = output.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
  const start = lines.findIndex((line) => /Unhandled (Error|Rejection)/.test(line));
  if (start < 0) return '';
  const end = lines.findIndex((line, index) => index > start && /^\s*Test Files\s/.test(line));
  return firstLines(lines.slice(start, end < 0 ? undefined : end).join('\n'), 60);
}

/** The files of a vitest JSON report that failed, each with its failed tests and their first lines. */
function failedFiles(report) {
  return (report.testResults ?? [])
    .filter((file) => file.status === 'failed')
    .map((file) => ({
      path: relative(process.cwd(), file.name),
      // A file that failed outside any test (an import, a hook) says so in its message.
      message: file.message ?? '',
      tests: (file.assertionResults ?? []).filter((test) => test.status === 'failed').map((test) => ({ name: test.fullName, messages: test.failureMessages ?? [] })),
    }));
}

function printFailures(failed) {
  process.stderr.write('\n===== failed tests =====\n');
  for (const file of failed) {
    process.stderr.write(`\nFAIL ${file.path}\n`);
    if (file.message) process.stderr.write(indent(firstLines(file.message)));
    for (const test of file.tests) {
      process.stderr.write(`  × ${test.name}\n`);
      for (const message of test.messages) process.stderr.write(indent(firstLines(message), '      '));
    }
  }
  process.stderr.write('\n');
}

function firstLines(text, count = MESSAGE_LINES) {
  // The test's own lines, not the test runner's frames.
  const lines = text.split('\n').filter((line) => !/^\s*(at|❯) .*(node_modules|new Promise|node:internal)/.test(line));
  return lines.slice(0, count).join('\n') + (lines.length > count ? '\n…' : '');
}

function indent(text, prefix = '    ') {
  return text.split('\n').map((line) => prefix + line).join('\n') + '\n';
}

/** A line for the end of the output, and for AGENT_PROXY_TEST_SUMMARY. */
function note(line) {
  say(line);
  if (process.env.AGENT_PROXY_TEST_SUMMARY) appendFileSync(process.env.AGENT_PROXY_TEST_SUMMARY, `${line}\n`);
}

function say(line) {
  process.stderr.write(`run-tests: ${line}\n`);
}
