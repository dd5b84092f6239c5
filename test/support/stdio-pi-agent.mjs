#!/usr/bin/env node
/**
 * A stand-in for `pi --mode rpc`: reads Pi RPC commands as strict LF-framed JSONL on stdin and
 * answers each with the lines real Pi wrote for the same command type in the captured sessions
 * (../shared/fixtures/pi-rpc/stdio-*.json), with the live command id on its response.
 *
 * Environment: STANDIN_STDERR=<text> writes that line to stderr at start; STANDIN_EXIT=<n> exits
 * with n when stdin ends (default 0). SIGTERM/SIGINT end it by the default signal action.
 */
import { readFileSync } from 'node:fs';

const FIXTURES = new URL('../../../shared/fixtures/pi-rpc/', import.meta.url);
const files = ['stdio-basic-prompt.json', 'stdio-errors.json'];

/** command type → the stdout lines that followed it in a capture; 'parse' for a line that is not JSON. */
const answers = new Map();
for (const file of files) {
  const { records } = JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8'));
  for (let i = 0; i < records.length; i++) {
    if (records[i].dir !== 'in') continue;
    const msg = records[i].msg;
    const key = msg && typeof msg === 'object' && typeof msg.type === 'string' ? msg.type : 'parse';
    const out = [];
    for (let j = i + 1; j < records.length && records[j].dir === 'out'; j++) out.push(records[j].msg);
    if (!answers.has(key)) answers.set(key, { recordedId: msg?.id, out });
  }
}

if (process.env.STANDIN_STDERR) process.stderr.write(process.env.STANDIN_STDERR + '\n');

function send(value) {
  process.stdout.write(JSON.stringify(value) + '\n');
}

function handle(text) {
  let command;
  try {
    command = JSON.parse(text);
  } catch (error) {
    send({ type: 'response', command: 'parse', success: false, error: `Failed to parse command: ${error.message}` });
    return;
  }
  const known = answers.get(command?.type);
  if (!known) {
    send({ ...(command?.id !== undefined ? { id: command.id } : {}), type: 'response', command: command?.type ?? 'unknown', success: false, error: `Unknown command: ${command?.type}` });
    return;
  }
  for (const line of known.out) {
    const isOwnResponse = line.type === 'response' && line.id !== undefined && line.id === known.recordedId;
    if (isOwnResponse) {
      const { id: _recorded, ...rest } = line;
      send(command.id === undefined ? rest : { id: command.id, ...rest });
    } else send(line);
  }
}

let pending = Buffer.alloc(0);
process.stdin.on('data', (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  for (let at = pending.indexOf(10); at >= 0; at = pending.indexOf(10)) {
    let line = pending.subarray(0, at);
    pending = pending.subarray(at + 1);
    if (line.at(-1) === 13) line = line.subarray(0, line.length - 1);
    handle(line.toString('utf8'));
  }
});
process.stdin.on('end', () => {
  process.exitCode = Number(process.env.STANDIN_EXIT ?? 0);
});
