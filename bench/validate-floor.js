// `validate` of a recording, part by part, warm and in one process, beside the least each part could cost:
// the rows alone (the reader's own statement, a page of 1,000 at a time, with each JSON text), every JSON text
// parsed, each value checked by the schema validator its verdict names (the floor: JSON.parse + the compiled
// validator alone), the reader's pages (routes, repeated texts, parses), and the whole judging (text report: 'notable', --json: 'all').
// CPU of this process (user + system, all threads), best of --runs after a first round that loads and compiles.
// Run after a build:  node bench/validate-floor.js FILE [--dist DIR] [--runs N]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const file = args[0];
if (file === undefined || file.startsWith('--')) {
  console.error('usage: node bench/validate-floor.js FILE [--dist DIR] [--runs N]');
  process.exit(2);
}
const dist = resolve(option('--dist') ?? new URL('../dist', import.meta.url).pathname);
const runs = Number(option('--runs') ?? 3);
const load = (path) => import(pathToFileURL(`${dist}/${path}`).href);
const { openRecording } = await load('store/open-recording.js');
const { RecordingReader } = await load('store/recording-reader.js');
const { SchemaRegistry } = await load('schema/schema-registry.js');
const { judgeRecordingLoading } = await load('validate/judge-recording.js');
// A build whose statement reads where the JSON text is in its block cuts it in JavaScript; earlier ones took it in SQL.
const { BlockJsonTexts } = await load('store/block-json-texts.js').catch(() => ({}));

const registry = SchemaRegistry.load({ useEnv: false });
// The schema ref each message's verdict names, by message id: the validator the floor runs on its value.
const refs = new Map((await judgeRecordingLoading(file, registry)).messages.map((m) => [m.index + 1, m.verdict.schemaRef]));
const checks = new Map();
const checkOf = (ref) => checks.get(ref) ?? checks.set(ref, registry.check(ref)).get(ref);

/** Every row of the reader's statement for validate, a page at a time: `fn(id, its JSON text or null)`. */
function eachRow(fn) {
  const reader = openRecording(file);
  RecordingReader.readsOnce(reader);
  // The reader's private statement, as messagePagesToJudgeInOrder runs it: rows without what the reader makes of them.
  const statement = reader.stmts.toJudgeInOrderAfter;
  const blockTexts = BlockJsonTexts && new BlockJsonTexts(reader.db);
  try {
    for (let after = Number.MIN_SAFE_INTEGER; ; ) {
      const page = statement.all(after, 1000);
      // A build whose row holds the stored text or its start in one value (7 values) reads it by textOf.
      if (blockTexts?.textOf && page[0]?.length === 7) for (const row of page) fn(row[0], blockTexts.textOf(row[0], row[4], row[3], row[5]));
      else if (blockTexts) for (const row of page) fn(row[0], blockTexts.text(row[0], row[4], row[5], row[6], row[7]));
      else for (const row of page) fn(row[0], row[4]);
      if (page.length < 1000) return;
      after = page[page.length - 1][0];
    }
  } finally {
    reader.close();
  }
}

function eachMessage(fn) {
  const reader = openRecording(file);
  RecordingReader.readsOnce(reader);
  try {
    for (const page of RecordingReader.messagePagesToJudgeInOrder(reader)) for (const m of page) fn(m);
  } finally {
    reader.close();
  }
}

const validateRow = (id, text) => {
  if (text === null) return;
  const value = JSON.parse(text);
  const ref = refs.get(id);
  if (ref !== undefined) checkOf(ref).validate(value);
};

const parts = [
  ['rows', () => eachRow(() => {})],
  ['rows + JSON.parse of every text', () => eachRow((id, text) => text !== null && JSON.parse(text))],
  ['rows + JSON.parse + validator (floor)', () => eachRow(validateRow)],
  ['reader pages (routes, repeated texts, parses)', () => eachMessage(() => {})],
  ['reader pages + validator', () => eachMessage((m) => m.json !== undefined && refs.get(m.id) !== undefined && checkOf(refs.get(m.id)).validate(m.json))],
  ['judgeRecordingLoading, text report', () => judgeRecordingLoading(file, registry, undefined, undefined, 'notable')],
  ['judgeRecordingLoading, --json report', () => judgeRecordingLoading(file, registry)],
];

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
for (const [, run] of parts) await run();
for (const [name, run] of parts) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = cpu();
    await run();
    times.push(cpu() - start);
  }
  console.log(`${name.padEnd(46)} best ${Math.min(...times).toFixed(0).padStart(5)} ms  (${times.map((t) => t.toFixed(0)).join(' / ')})`);
}
