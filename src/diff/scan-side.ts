import { tooDeepToWalk } from '../core/json-depth.js';
import { compactJson } from '../core/json-text.js';
import { exchangeFromRecord } from '../store/exchange-record.js';
import { prepareScanQueries, type ScannedFinding } from '../store/queries/scan-queries.js';
import type { Finding } from '../core/finding.js';
import type { Verdict, VerdictStatus } from '../core/verdict.js';
import { canonicalJson, normalizeJson } from '../match/normalize.js';
import type Database from 'better-sqlite3';
import { openDatabase } from '../store/open-database.js';
import { jsonColumn, readingRows } from '../store/store-errors.js';
import type { ExchangeRow, MessageRow } from '../store/store-types.js';
import type { FieldSpecs } from '../core/field-specs.js';
import type { SemanticFold } from '../protocols/protocol.js';
import { CanonicalTexts, type KnownText } from './canonical-texts.js';
import { ChunkedHash } from './chunked-hash.js';
import { PREFIX_STEP, type PrefixCheckpoint } from './common-prefix.js';
import { type FieldMatcher, IdCanonicalizer } from './id-canonicalizer.js';
import type { IdLogEntry } from './id-roles.js';
import type { VerdictsNow } from './judge-again.js';
import { idRolesOf, OrderWatch } from './id-roles.js';
import { diffLabel, DropSpecs, exchangeFields, exchangeHead, foldedVerdict, materialize, messageLoose, rawText, type SideOptions } from './load-side.js';
import { feedsMaterializer, foldedCarrier, foldedPlace, isFoldedMessage, saysNothing, semanticFoldOf, streamOf } from './semantic.js';

/** One side to scan. */
export interface ScanInput {
  /** The name the report shows. */
  file: string;
  /** The recording database to read (an NDJSON recording imported first). */
  dbFile: string;
  /** Its verdicts as judged now, where they moved (judge-again.ts); undefined: compared as stored. */
  verdicts?: VerdictsNow;
}

/** What the first pass keeps of one exchange: enough to align it, and where to resume the id labels to load it again. */
export interface ExchangeKey {
  /** The exchange id in its recording. */
  id: number;
  /** transport, protocol, method, path template, subprotocol: what alignment pairs changed exchanges by. */
  loose: string;
  /** A hash of everything compared (fields, messages, verdicts) after normalization: equal means nothing to report. */
  exact: string;
  /** The id canonicalizer's size before this exchange (IdCanonicalizer.restore). */
  checkpoint: number;
  /** Its hash every PREFIX_STEP messages, when it is that long (not under --semantic): common-prefix.ts. */
  prefixes?: PrefixCheckpoint[];
}

/** The first pass over one side: a key per exchange, in order, and the ids learnt on the way. */
export interface SideScan {
  file: string;
  keys: ExchangeKey[];
  messageCount: number;
  idLog: readonly IdLogEntry[];
  /** The strings used as ids anywhere in the recording (idRolesOf) when the second pass was needed, to load exchanges with. */
  idRoles: ReadonlyMap<string, string>;
}

/** What a message's meta text (ScanQueries) says. */
export interface Meta {
  sender: MessageRow['sender'];
  carrier: MessageRow['carrier'];
  channel: string | null;
  status: VerdictStatus;
  /** The verdict of a message of this meta with no finding, made once. */
  verdict?: Verdict;
}

const NO_FINDINGS: Finding[] = [];

/** A message kept for the `--semantic` result of its exchange. */
type Folded = { json: unknown; verdict: Verdict; sender: MessageRow['sender']; carrier: MessageRow['carrier']; channel: string | null };

/** The scan's page cache, in KiB. */
const SCAN_CACHE_KIB = 1024;

/** At most this many repeated texts' comparing texts are kept per exchange (ExchangeScan.repeats). */
const MAX_REPEATS = 4096;

/**
 * The first pass of a diff: streams one side exchange by exchange and message by message, and keeps
 * only a short key per exchange. Messages are normalized straight to a canonical text (one walk,
 * IdCanonicalizer.canonicalText), hashed and dropped, so memory does not grow with the messages.
 * The ids are learnt in exactly the order `loadExchange` learns them, so that an exchange can be
 * loaded in full later from its checkpoint (with the same `idRoles`). A side is streamed a second
 * time only when its id labels would otherwise depend on order (see scanRows).
 *
 * `dbFile` is a recording database (an NDJSON recording is imported first, see openRecording);
 * `file` is the name the report shows.
 */
export function scanSide(input: ScanInput, options: SideOptions, progress?: (messages: number) => void): SideScan {
  return readingRows(input.file, () => scanRows(input, options, progress));
}

function scanRows({ file, dbFile, verdicts }: ScanInput, options: SideOptions, progress?: (messages: number) => void): SideScan {
  const db = openDatabase(dbFile, { readonly: true });
  try {
    // Every page is read once, in order: SQLite's page cache (16 MiB by default) would only grow, each of its
    // pages fresh memory the kernel maps on first touch; 1 MiB keeps what the scan reads again (its index's upper levels).
    db.pragma(`cache_size = -${SCAN_CACHE_KIB}`);
    // Ids are labelled in order of first appearance; a string used as an id is labelled wherever it
    // first appears. One pass does that unless a string appeared in a plain field before it was seen
    // as an id; then a second pass, knowing every id of the recording, labels it there too.
    const watch = new OrderWatch();
    const first = scanPass(db, options, verdicts, new Map(), progress, watch);
    if (!watch.alarmed) return { file, ...first };
    return { file, ...scanPass(db, options, verdicts, idRolesOf(first.idLog), progress) };
  } finally {
    db.close();
  }
}

function scanPass(db: Database.Database, options: SideOptions, verdicts: VerdictsNow | undefined, idRoles: ReadonlyMap<string, string>, progress?: (messages: number) => void, watch?: OrderWatch): Omit<SideScan, 'file'> {
  const queries = prepareScanQueries(db);
  const ids = new IdCanonicalizer();
  ids.useRoles(idRoles);
  if (watch) ids.watchOrder(watch);
  const side: SideState = { options, verdicts, ids, texts: new CanonicalTexts(ids), drop: new DropSpecs(options.ignore, options.semantic), metas: new Map() };
  const keys: ExchangeKey[] = [];
  let messageCount = 0;
  // The exchanges come in id order: their findings are read alongside, not a query each.
  const errorFindings = queries.errorFindingsInOrder();
  const messages = queries.messagesInOrder();
  for (const record of queries.exchanges()) {
    const row = exchangeFromRecord(record);
    const scan = new ExchangeScan(row, side, errorFindings(row.id));
    for (let message = messages.next(row.id); message !== undefined; message = messages.next(row.id)) {
      if ((++messageCount & 0x3fff) === 0) progress?.(messageCount);
      scan.message(message[2], message[3], message[4]);
    }
    const key = scan.key();
    if (key !== undefined) keys.push(key);
    progress?.(messageCount);
  }
  return { keys, messageCount, idLog: ids.log(), idRoles };
}

/** What the scan of one side keeps across its exchanges. */
interface SideState {
  options: SideOptions;
  verdicts: VerdictsNow | undefined;
  ids: IdCanonicalizer;
  texts: CanonicalTexts;
  drop: DropSpecs;
  /** Meta texts parsed, by text (a few distinct ones). */
  metas: Map<string, Meta>;
}

/**
 * The scan of one exchange, a message at a time. A class of small methods rather than one loop of the
 * whole side: V8 compiles a hot function whole, and a loop of everything took it ~50 ms of CPU each time
 * it was compiled again (four times a side, and again in the worker's thread).
 */
class ExchangeScan {
  private readonly kind: SemanticFold | undefined;
  private readonly checkpoint: number;
  private readonly head: ReturnType<typeof exchangeHead>;
  private readonly hash = new ChunkedHash();
  /** Under --semantic each stream (client, server, stderr) is hashed on its own: how they interleave is a race the protocols leave open (streamOf). */
  private readonly streams: ChunkedHash[];
  private readonly specs: FieldSpecs;
  private readonly matcher: FieldMatcher;
  private readonly findings: Map<number, Finding[]>;
  private readonly moved: boolean;
  private readonly folded: Folded[] = [];
  private readonly fed: Folded[] = [];
  private request: unknown;
  /** The message's place in its exchange, as show --exchange numbers it: what a damaged row is named by. */
  private seq = 0;
  /** Messages compared one by one (not folded, not left out). */
  private compared = 0;
  private prefixes: PrefixCheckpoint[] | undefined;
  /**
   * The comparing text of the last message of each repeated text (CanonicalTexts) compared with its meta's verdict:
   * a later one of the same text and meta compares the same (its label, loose key and verdict follow from them and
   * the exchange), so it is neither labelled nor put together again.
   */
  private readonly repeats = new Map<KnownText, { meta: Meta; exact: string }>();

  constructor(
    readonly row: ExchangeRow,
    private readonly side: SideState,
    errorFindings: ScannedFinding[],
  ) {
    const { options, ids, drop, verdicts } = side;
    this.kind = options.semantic ? semanticFoldOf(row.protocol, row.transport) : undefined;
    this.checkpoint = ids.size;
    this.head = exchangeHead(row, ids, options.semantic);
    this.hash.add(this.head.loose);
    this.streams = options.semantic ? [this.hash, new ChunkedHash(), new ChunkedHash()] : [this.hash, this.hash, this.hash];
    this.specs = drop.for(row.protocol);
    this.matcher = drop.matcherFor(row.protocol);
    this.findings = findingsByMessage(errorFindings);
    this.moved = verdicts !== undefined && verdicts.size > 0;
  }

  /** Hashes (or, under --semantic, folds) the next message of the exchange. */
  message(metaText: string, body: string | Buffer, id: number): void {
    const seq = ++this.seq;
    const { ids, texts, metas, verdicts } = this.side;
    const idsBefore = ids.size;
    let meta = metas.get(metaText);
    if (meta === undefined) metas.set(metaText, (meta = parseMeta(metaText)));
    const kind = this.kind;
    // A text this side had before, in the same id state: its value and canonical text as then (CanonicalTexts).
    // Under --semantic each message keeps a value of its own (folds are handed them).
    const known = typeof body === 'string' ? texts.get(body, this.matcher) : undefined;
    const parsed = known !== undefined && !kind ? known.value : typeof body === 'string' ? jsonColumn(body, 'json', this.row.id, seq) : undefined;
    // Nested too deep to normalize (a recursive walk): compared by its compact text, as loadExchange does.
    const deep = known === undefined && typeof body === 'string' && tooDeepToWalk(body);
    const json = deep ? undefined : parsed;
    const found = this.findings.size === 0 ? undefined : this.findings.get(id);
    // A repeated text with its meta's verdict compares as its last message of the same meta did (label and all).
    const plain = known !== undefined && found === undefined && !this.moved && !kind;
    if (plain) {
      const same = this.repeats.get(known);
      if (same !== undefined && same.meta === meta) return this.compare(this.streams[streamOf(meta)], same.exact, idsBefore);
    }
    const status = meta.status;
    // A message with no finding shares its meta's verdict (read, never changed).
    const verdict: Verdict = (this.moved && verdicts!.get(id)) || (found === undefined ? (meta.verdict ??= { status, findings: NO_FINDINGS }) : { status, findings: found });
    const m: Folded = { sender: meta.sender, carrier: meta.carrier, channel: meta.channel, json, verdict };
    if (kind && this.folds(kind, m, body, deep)) return;
    const canon = deep ? `raw:${compactJson(body as string)}` : json === undefined ? `raw:${rawText(body as Buffer)}` : (known?.canon ?? texts.make(body as string, json, this.matcher));
    const exact = messageExact(messageLoose(m, diffLabel(parsed, m, this.row, this.head)), canon, verdict);
    if (plain) {
      if (this.repeats.size >= MAX_REPEATS) this.repeats.clear();
      this.repeats.set(known, { meta, exact });
    }
    this.compare(this.streams[streamOf(m)], exact, idsBefore);
  }

  /** Adds a message's comparing text to its stream's hash. */
  private compare(stream: ChunkedHash, exact: string, idsBefore: number): void {
    stream.add(exact);
    this.compared++;
    // One sequence of every message (not --semantic): where a pair of this exchange that differs can start loading.
    if (!this.side.options.semantic && this.compared % PREFIX_STEP === 0) (this.prefixes ??= []).push({ count: this.compared, digest: this.hash.peek(), idsBefore });
  }

  /** Under --semantic: takes what a message feeds the fold; true when it is compared only through the fold, or left out. */
  private folds(kind: SemanticFold, m: Folded, body: string | Buffer, deep: boolean): boolean {
    if (this.request === undefined && m.sender === 'client' && m.json !== undefined) this.request = m.json;
    if (feedsMaterializer(kind, m)) this.fed.push(m);
    if (isFoldedMessage(kind, m)) {
      this.folded.push(m);
      return true;
    }
    return !deep && saysNothing(kind, { json: m.json, status: m.verdict.status }, () => rawText(body as Buffer));
  }

  /** The exchange's key, once its messages are all in; undefined for one left out (an exchange that tells nothing under --semantic). */
  key(): ExchangeKey | undefined {
    const { kind, fed, folded, streams, hash, row, head } = this;
    const { ids, drop, options } = this.side;
    if (kind && fed.length > 0) {
      const result = materialize(kind, fed, this.request);
      // An exchange that tells nothing (an MCP ping's POST over HTTP) is not one to align, unless judged invalid.
      if (this.compared === 0 && foldedVerdict(folded).status !== 'invalid' && kind.isEmpty?.(result) === true) return undefined;
      const canon = canonicalJson(normalizeJson(ids.canonicalize(result), this.specs));
      const last = foldedPlace(fed);
      streams[streamOf(last)].add(messageExact(messageLoose({ ...last, carrier: foldedCarrier(kind, last.carrier) }, result.kind), canon, foldedVerdict(folded)));
    }
    if (options.semantic) for (const stream of streams.slice(1)) hash.add(stream.digest());
    hash.add(JSON.stringify(exchangeFields(row, head, ids, drop.user)));
    const prefixes = this.prefixes;
    return { id: row.id, loose: head.loose, exact: hash.digest(), checkpoint: this.checkpoint, ...(prefixes ? { prefixes } : {}) };
  }
}

export function parseMeta(text: string): Meta {
  const [sender, carrier, status] = text.split(' ', 3);
  const rest = sender.length + carrier.length + status.length + 2;
  return { sender: sender as Meta['sender'], carrier: carrier as Meta['carrier'], status: status as VerdictStatus, channel: text.length > rest ? text.slice(rest + 1) : null };
}

function messageExact(loose: string, canon: string, verdict: Verdict): string {
  let rules = '';
  if (verdict.findings.length > 0) {
    rules = [...new Set(verdict.findings.filter((f) => f.severity === 'error').map((f) => f.rule))].sort().join(',');
  }
  return `${loose}\0${canon}\0${verdict.status}\0${rules}`;
}

export function findingsByMessage(records: ScannedFinding[]): Map<number, Finding[]> {
  const out = new Map<number, Finding[]>();
  for (const f of records) {
    let list = out.get(f.messageId);
    if (!list) out.set(f.messageId, (list = []));
    list.push({ rule: f.rule, severity: f.severity, pointer: f.pointer, message: f.message });
  }
  return out;
}


