import type { Finding } from '../core/finding.js';
import { SchemaRegistry } from '../schema/schema-registry.js';
import { openRecording } from '../store/open-recording.js';
import { jsonDifferences } from '../match/normalize.js';
import { parseIgnoreOption, parsePointer } from '../core/field-specs.js';
import { align } from './align.js';
import type { DiffOptions, DiffStep } from './diff-options.js';
import type { DiffReport, ExchangeDiff, MessageDiff, MessageRef, ValueChange, VerdictChange } from './diff-report.js';
import type { RecordingReader } from '../store/recording-reader.js';
import type Database from 'better-sqlite3';
import { exchangeFromRecord } from '../store/exchange-record.js';
import { openDatabase } from '../store/open-database.js';
import { prepareScanQueries, type ScanQueries } from '../store/queries/scan-queries.js';
import { readingRows } from '../store/store-errors.js';
import { loadRows } from './load-rows.js';
import { CanonicalTexts } from './canonical-texts.js';
import { commonStart, type LoadFrom } from './common-prefix.js';
import { IdCanonicalizer } from './id-canonicalizer.js';
import { judgeAgain, judgedAsNow, type VerdictsNow } from './judge-again.js';
import { DropSpecs, loadExchange, type SideExchange, type SideMessage, type SideOptions } from './load-side.js';
import { LaterValues } from './later-value.js';
import { scanSides } from './scan-parallel.js';
import { isDeliveryField } from './semantic.js';
import type { Meta, SideScan } from './scan-side.js';

/** Most differences reported per message; the rest are summed up in the count of the last one. */
const MAX_DIFFERENCES = 20;

/**
 * Diffs two recording files (.db or .ndjson), in two passes so that memory stays flat however long
 * the recordings are:
 * 1. each side is streamed once (scanSide) into a short key per exchange: its loose key and a hash
 *    of everything compared after normalization;
 * 2. the exchanges are aligned on those keys, and only the pairs that differ are loaded in full
 *    again, one at a time, with the id labels restored to where they were at that exchange.
 */
export function diffRecordingFiles(a: string, b: string, options: DiffOptions = {}): DiffReport {
  return diffRecordingFilesReporting(a, b, options);
}

/** diffRecordingFiles, telling `progress` how far it is (the CLI's progress line on a terminal). */
export function diffRecordingFilesReporting(a: string, b: string, options: DiffOptions, progress?: (step: DiffStep) => void): DiffReport {
  const ignore = parseIgnoreOption(options.ignore ?? []);
  const sideOptions: SideOptions = { ignore, semantic: Boolean(options.semantic) };
  const readers: RecordingReader[] = [];
  try {
    for (const file of [a, b]) readers.push(openRecording(file));
    const files = [a, b];
    const totals = progress ? readers.map((r) => r.totals().messages) : [0, 0];
    const step = (phase: 'judging' | 'reading', i: number) => (messages: number) => progress?.({ phase, side: i === 0 ? 'a' : 'b', file: files[i], messages, of: totals[i] });
    const verdicts = verdictsNow(readers, options.schemas, (i) => step('judging', i));
    const scans = scanSides({ file: a, dbFile: readers[0].file, verdicts: verdicts?.[0] }, { file: b, dbFile: readers[1].file, verdicts: verdicts?.[1] }, sideOptions, (side, n) =>
      step('reading', side === 'a' ? 0 : 1)(n),
    );
    const loaders = [0, 1].map((i) => new SideLoader(scans[i], readers[i], sideOptions, verdicts?.[i]));
    try {
      return diffScans(loaders[0], loaders[1], sideOptions, verdicts ? 'judged-now' : 'recorded', progress);
    } finally {
      for (const loader of loaders) loader.close();
    }
  } finally {
    for (const reader of readers) reader.close();
  }
}

/**
 * A diff compares traffic, not the conditions it was judged under: unless both sides were judged by
 * this version with the schemas loaded now (the defaults, AGENT_PROXY_SCHEMAS and `schemas`), both
 * are judged again with those, and their verdicts are compared as judged now. Both or neither: a
 * side judged again is read from its stored (truncated, redacted) form, which live judging never saw.
 */
function verdictsNow(readers: RecordingReader[], schemas: string[] | undefined, progress: (side: number) => (messages: number) => void): [VerdictsNow, VerdictsNow] | undefined {
  const registry = SchemaRegistry.load({ extraDirs: schemas ?? [] });
  if (judgedAsNow(readers.map((r) => r.recording()), registry)) return undefined;
  return [judgeAgain(readers[0], registry, progress(0)), judgeAgain(readers[1], registry, progress(1))];
}

/** Loads exchanges of one side in full, in increasing order, restoring the id labels from the scan. */
class SideLoader {
  private readonly ids = new IdCanonicalizer();
  private readonly drop: DropSpecs;
  private readonly later: LaterValues;
  private readonly metas = new Map<string, Meta>();
  /** Opened when a first exchange differs: the first pass's reads, which cost a message a third of a full row. */
  private db: Database.Database | undefined;
  private queries: ScanQueries | undefined;

  constructor(
    readonly scan: SideScan,
    private readonly reader: RecordingReader,
    private readonly options: SideOptions,
    private readonly verdicts: VerdictsNow | undefined,
  ) {
    this.drop = new DropSpecs(options.ignore, options.semantic);
    this.ids.useRoles(scan.idRoles);
    this.later = new LaterValues(this.ids, scan.idRoles);
  }

  /** Exchange `index` of the side; `from`: its first messages left out (they compare equal to the other side's, common-prefix.ts). */
  load(index: number, from?: LoadFrom): SideExchange {
    const key = this.scan.keys[index];
    this.ids.restore(this.scan.idLog, key.checkpoint);
    this.queries ??= prepareScanQueries((this.db = openDatabase(this.reader.file, { readonly: true })));
    const queries = this.queries;
    return readingRows(this.reader.file, () => {
      const record = queries.exchange(key.id);
      if (!record) throw new Error(`exchange ${key.id} of ${this.scan.file} disappeared while diffing`);
      const row = exchangeFromRecord(record);
      // Streamed: a long exchange's rows are not all held while it is loaded.
      // Texts repeated in the exchange are parsed and walked once (CanonicalTexts: the ids only move forward from here).
      const texts = new CanonicalTexts(this.ids);
      const reuse = { texts, matcher: this.drop.matcherFor(row.protocol), shareValues: !this.options.semantic };
      const rows = loadRows(queries, key.id, this.verdicts, this.metas, reuse, from?.skip);
      const resume = from && { log: this.scan.idLog, idsBefore: from.idsBefore };
      return loadExchange(row, rows, this.ids, this.drop, this.later, this.options.semantic, texts, resume);
    });
  }

  close(): void {
    this.db?.close();
  }
}

/** Aligns the exchanges of two scanned sides by LCS, then diffs the messages of each pair that differs. */
function diffScans(a: SideLoader, b: SideLoader, options: SideOptions, verdicts: DiffReport['options']['verdicts'], progress?: (step: DiffStep) => void): DiffReport {
  const ka = a.scan.keys;
  const kb = b.scan.keys;
  const report: DiffReport = {
    format: 'agent-proxy/diff',
    version: 1,
    a: { file: a.scan.file, exchanges: ka.length, messages: a.scan.messageCount },
    b: { file: b.scan.file, exchanges: kb.length, messages: b.scan.messageCount },
    options: { semantic: options.semantic, ignore: [...options.ignore], verdicts },
    equal: true,
    summary: { exchanges: { equal: 0, changed: 0, added: 0, removed: 0 }, messages: { changed: 0, added: 0, removed: 0 }, regressions: 0, fixes: 0 },
    exchanges: [],
  };
  const ops = align(
    ka.map((e) => e.exact),
    kb.map((e) => e.exact),
    ka.map((e) => e.loose),
    kb.map((e) => e.loose),
  );
  // Each exchange that differs is read again and its messages aligned: a long one takes a while.
  const messages = a.scan.messageCount + b.scan.messageCount;
  const differing = ops.filter((op) => op.kind !== 'equal').length;
  let compared = 0;
  for (const op of ops) {
    if (op.kind === 'equal') {
      report.summary.exchanges.equal++;
      continue;
    }
    progress?.({ phase: 'comparing', messages, exchanges: compared++, of: differing });
    let diff: ExchangeDiff;
    if (op.kind === 'removed') diff = oneSided('removed', a.load(op.a));
    else if (op.kind === 'added') diff = oneSided('added', b.load(op.b));
    else {
      // Both start with the same messages for a while: read from near where they part.
      const from = commonStart(ka[op.a].prefixes, kb[op.b].prefixes);
      diff = changedExchange(a.load(op.a, from?.a), b.load(op.b, from?.b), options.semantic);
    }
    if (diff.fields.length === 0 && diff.messages.length === 0 && diff.change === 'changed') {
      report.summary.exchanges.equal++;
      continue;
    }
    report.summary.exchanges[diff.change]++;
    for (const m of diff.messages) {
      report.summary.messages[m.change]++;
      if (m.verdict?.change === 'regression') report.summary.regressions++;
      if (m.verdict?.change === 'fixed') report.summary.fixes++;
    }
    report.exchanges.push(diff);
  }
  report.equal = report.exchanges.length === 0;
  return report;
}

function oneSided(change: 'added' | 'removed', e: SideExchange): ExchangeDiff {
  const messages: MessageDiff[] = e.messages.map((m) => messageOnlyIn(change, m, null, null));
  return { change, a: change === 'removed' ? e.ref : null, b: change === 'added' ? e.ref : null, fields: [], messages };
}

function changedExchange(a: SideExchange, b: SideExchange, semantic: boolean): ExchangeDiff {
  let fields = differences(a.fields, b.fields);
  // A model call streamed and the same call answered whole (paired under --semantic): how each travelled is the result's `stream`.
  if (semantic && a.ref.transport !== b.ref.transport) fields = fields.filter((d) => !isDeliveryField(d.pointer));
  const ops = align(
    a.messages.map((m) => m.exact),
    b.messages.map((m) => m.exact),
    a.messages.map((m) => m.loose),
    b.messages.map((m) => m.loose),
  );
  const messages: MessageDiff[] = [];
  // Context: the nearest equal message before and after each change (A's numbering); under
  // --semantic, of the change's own stream (client, server, stderr), each a sequence of its own.
  const streamOf = (op: (typeof ops)[number]) => (!semantic ? 0 : op.kind === 'added' ? b.messages[op.b].stream : a.messages[op.a].stream);
  const equalBefore: Array<MessageRef | null> = [];
  const lastEqual = new Map<number, MessageRef>();
  for (const op of ops) {
    equalBefore.push(lastEqual.get(streamOf(op)) ?? null);
    if (op.kind === 'equal') lastEqual.set(streamOf(op), a.messages[op.a].ref);
  }
  const equalAfter: Array<MessageRef | null> = new Array(ops.length).fill(null);
  const nextEqual = new Map<number, MessageRef>();
  for (let i = ops.length - 1; i >= 0; i--) {
    const op = ops[i];
    equalAfter[i] = nextEqual.get(streamOf(op)) ?? null;
    if (op.kind === 'equal') nextEqual.set(streamOf(op), a.messages[op.a].ref);
  }
  ops.forEach((op, i) => {
    if (op.kind === 'equal') return;
    if (op.kind === 'removed') messages.push(messageOnlyIn('removed', a.messages[op.a], equalBefore[i], equalAfter[i], true));
    else if (op.kind === 'added') messages.push(messageOnlyIn('added', b.messages[op.b], equalBefore[i], equalAfter[i], true));
    else {
      const ma = a.messages[op.a];
      const mb = b.messages[op.b];
      const diff: MessageDiff = { change: 'changed', a: ma.ref, b: mb.ref, differences: named(differences(ma.value, mb.value), ma, mb), before: equalBefore[i], after: equalAfter[i] };
      const verdict = verdictChange(ma, mb);
      if (verdict) diff.verdict = verdict;
      if (diff.differences.length > 0 || diff.verdict || ma.ref.sender !== mb.ref.sender) messages.push(diff);
    }
  });
  return { change: 'changed', a: a.ref, b: b.ref, fields, messages };
}

function messageOnlyIn(change: 'added' | 'removed', m: SideMessage, before: MessageRef | null, after: MessageRef | null, withContent = false): MessageDiff {
  const differences = withContent ? contentOf(change, m.value) : [];
  const diff: MessageDiff = { change, a: change === 'removed' ? m.ref : null, b: change === 'added' ? m.ref : null, differences, before, after };
  if (m.ref.status === 'invalid') {
    diff.verdict =
      change === 'added'
        ? { change: 'regression', a: null, b: 'invalid', findings: m.errorFindings }
        : { change: 'fixed', a: 'invalid', b: null, findings: m.errorFindings };
  }
  return diff;
}

/**
 * What a message only one side of a changed exchange has says (normalized): each top-level field of a
 * JSON object as a pointer with its value on that side, or the whole value at "" (a string, raw text).
 * An exchange only one side has lists its messages without their content.
 */
function contentOf(change: 'added' | 'removed', value: unknown): ValueChange[] {
  const side = change === 'added' ? 'b' : 'a';
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [{ pointer: '', [side]: value }];
  return Object.entries(value as Record<string, unknown>)
    .slice(0, MAX_DIFFERENCES)
    .map(([key, v]) => ({ pointer: `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, [side]: v }));
}

/** The differences of a `--semantic` result, each with the name its protocol gives that place. */
function named(list: ValueChange[], a: SideMessage, b: SideMessage): ValueChange[] {
  const describe = a.describe ?? b.describe;
  if (!describe) return list;
  return list.map((d) => {
    const name = describe(d.pointer, a.value, b.value);
    return name === undefined ? d : { ...d, name };
  });
}

/** How the verdict moved between two aligned messages, if it did. */
export function verdictChange(a: SideMessage, b: SideMessage): VerdictChange | undefined {
  const sa = a.ref.status;
  const sb = b.ref.status;
  const newRules = b.errorRules.filter((r) => !a.errorRules.includes(r));
  const goneRules = a.errorRules.filter((r) => !b.errorRules.includes(r));
  if (sa === sb && newRules.length === 0 && goneRules.length === 0) return undefined;
  const pick = (list: Finding[], rules: string[]) => list.filter((f) => rules.includes(f.rule));
  if (sb === 'invalid' && (sa !== 'invalid' || newRules.length > 0)) {
    return { change: 'regression', a: sa, b: sb, findings: sa === 'invalid' ? pick(b.errorFindings, newRules) : b.errorFindings };
  }
  if (sa === 'invalid' && (sb !== 'invalid' || goneRules.length > 0)) {
    return { change: 'fixed', a: sa, b: sb, findings: sb === 'invalid' ? pick(a.errorFindings, goneRules) : a.errorFindings };
  }
  return { change: 'changed', a: sa, b: sb, findings: [] };
}

/** Pointers where two normalized values differ, with the value on each side (absent when missing there). */
export function differences(a: unknown, b: unknown): ValueChange[] {
  return jsonDifferences(a, b, MAX_DIFFERENCES).map((pointer) => {
    const change: ValueChange = { pointer };
    const va = valueAt(a, pointer);
    const vb = valueAt(b, pointer);
    if (va.found) change.a = va.value;
    if (vb.found) change.b = vb.value;
    return change;
  });
}

function valueAt(root: unknown, pointer: string): { found: boolean; value?: unknown } {
  let value = root;
  for (const segment of parsePointer(pointer)) {
    if (value === null || typeof value !== 'object') return { found: false };
    if (!Object.prototype.hasOwnProperty.call(value, segment)) return { found: false };
    value = (value as Record<string, unknown>)[segment];
  }
  return value === undefined ? { found: false } : { found: true, value };
}
