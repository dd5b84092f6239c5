import { isUtf8 } from 'node:buffer';
import { error, warning, type Finding } from '../core/finding.js';
import { cutBelow, MAX_JSON_DEPTH, tooDeepToWalk, valueNestsDeeperThan } from '../core/json-depth.js';
import { jsonParseCost } from '../core/json-parse-cost.js';
import { messageLabel, type LabelPlace } from '../core/message-label.js';
import type { Carrier, HttpContext, InboundMessage, Sender } from '../core/message.js';
import { unchecked, type Verdict } from '../core/verdict.js';
import type { CheckerContext, ProtocolChecker, ProtocolModule, StreamEnd } from '../protocols/protocol.js';
import { PROTOCOL_IDS } from '../protocols/catalog.js';
import { RecordingScope } from '../protocols/recording-scope.js';
import type { SchemaRegistry } from '../schema/schema-registry.js';
import { FieldRedactor } from './field-redaction.js';
import { MessageJudge } from './message-judge.js';
import { QueryRedactor } from './query-redaction.js';
import { SecretTracker } from './secret-tracker.js';
import { tooDeepVerdict } from './too-deep.js';
import { StoredForm } from './stored-form.js';

/** `--redact-query` and `--redact-field`: more query parameter names, and JSON fields (key names or pointers); `--keep-secrets-matching`. */
export interface StorageRedactionOptions {
  queryParams?: readonly string[];
  fields?: readonly string[];
  /** `--keep-secrets-matching`: regular expressions (as written) of credentials the writer stores as they are (store/stored-credentials.ts). */
  keepSecrets?: readonly string[];
}

export interface MessagePipelineOptions {
  registry: SchemaRegistry;
  /** Messages larger than this are not parsed (record stores them truncated). */
  maxBodyBytes: number;
  /** Heap one message's parse may take; a message that would take more is not parsed. */
  parseBudget: number;
  redact?: StorageRedactionOptions;
  /** Record's pipeline, judging traffic as it comes: the recording-wide scope is bounded (RecordingScope.live). */
  live?: boolean;
}

/** What the framer knows of one message besides its bytes (record's RecordOptions are one). */
export interface MessageFacts {
  carrier: Carrier;
  /** ws opcode or stdio stream name. */
  channel?: string;
  /** An already-parsed or decoded value: not parsed again. */
  value?: unknown;
  /** Why decoding failed, when the caller decoded (protobuf), or why the message is cut off. */
  parseError?: string;
  /** What parsing would take, when the caller did not parse because that is over the budget. */
  parseCost?: number;
  /** The text to parse when it is not the raw bytes themselves (an SSE frame's joined data lines). */
  payload?: string;
  /** The message's real size when the bytes are only a prefix of it. */
  totalBytes?: number;
  /** False for bodies not meant to be JSON (HTML, octet-stream): not judged. */
  json?: boolean;
  /** False for control rows (a WebSocket close): no protocol judges them. */
  judge?: boolean;
}

/** What the verdict depends on besides the message read. */
export type VerdictFacts = Pick<MessageFacts, 'channel' | 'parseError' | 'json' | 'judge'>;

/** One message read: what the judge sees, and what reading it found out. */
export interface ReadMessage extends InboundMessage {
  /** Its size in bytes, whole. */
  size: number;
  /** Over maxBodyBytes: not parsed, not judged. */
  oversized: boolean;
  /** What parsing it would cost, when over the budget (then it was not parsed); else 0. */
  parseCost: number;
  /** Valid UTF-8 text that is not JSON (its parseError is JSON's syntax error, not a broken transport's). */
  textNotJson?: boolean;
}

/**
 * Channels record stores but never judges (a WebSocket close, a child's stderr): a recording's
 * message on one of them is not judged when it is read again either.
 */
export const UNJUDGED_CHANNELS: ReadonlySet<string> = new Set(['close', 'stderr']);

/** The reason of a message no protocol module claimed (as record has always stored it). */
export const NO_PROTOCOL_REASON = `no known protocol recognised this exchange: none of ${PROTOCOL_IDS.join(', ')} found its own route, subprotocol, media type, request body or message types in it`;

/**
 * The one way a message becomes a verdict and a stored form, for `record` (live, in its worker or
 * inline) and `validate` (files and recordings) alike: read (UTF-8, parse cost, JSON) → judge (the
 * protocol's checker through MessageJudge: schemas, behaviour, leaked secrets) → stored form
 * (judge/stored-form.ts: write-only fields, --redact-field, registered secrets). One pipeline per recording or validated input: its
 * secrets, its recording-wide checker scope and its recording-scoped checkers span every stream.
 */
export class MessagePipeline {
  readonly secrets = new SecretTracker();
  /** State checkers share across channels (Pi extension UI requests per daemon session). */
  readonly scope: RecordingScope;
  readonly queryRedactor: QueryRedactor;
  private readonly storedForm: StoredForm;
  readonly maxBodyBytes: number;
  readonly parseBudget: number;
  private readonly recordingJudges = new Map<string, MessageJudge>();
  /** The judge of each checker made here that hands findings from one stream to another (endElsewhere), to find it by its checker. */
  private readonly judges = new WeakMap<ProtocolChecker, MessageJudge>();

  constructor(private readonly options: MessagePipelineOptions) {
    this.scope = new RecordingScope(options.live === true);
    this.maxBodyBytes = options.maxBodyBytes;
    this.parseBudget = options.parseBudget;
    this.queryRedactor = new QueryRedactor(options.redact?.queryParams);
    this.storedForm = new StoredForm(this.secrets, new FieldRedactor(options.redact?.fields), this.queryRedactor);
  }

  /**
   * The judge of one stream: its own checker, or for a protocol whose `checkerScope` is
   * 'recording' (Pi REST) the one checker every stream of it shares.
   */
  judgeFor(module: ProtocolModule, requestBody: unknown, channel?: CheckerContext['channel']): MessageJudge {
    const context: CheckerContext = { registry: this.options.registry, secrets: this.secrets, requestBody, channel, scope: this.scope };
    if (module.checkerScope !== 'recording') {
      const checker = module.createChecker(context);
      const judge = new MessageJudge(checker, this.secrets);
      // Findings are handed only to checkers that hand findings too (an MCP session's exchanges): the others are never looked up.
      if (judge.handsFindings) this.judges.set(checker, judge);
      return judge;
    }
    let judge = this.recordingJudges.get(module.id);
    if (!judge) {
      judge = new MessageJudge(module.createChecker(context), this.secrets);
      this.recordingJudges.set(module.id, judge);
    }
    return judge;
  }

  /** Stream-level findings when a stream ends; none from a recording-scoped checker, whose stream goes on. */
  endOfStream(module: ProtocolModule, judge: MessageJudge, how: 'complete' | 'aborted'): Finding[] {
    return module.checkerScope === 'recording' ? [] : judge.end(how);
  }

  /**
   * Findings a stream's end gives to other streams' last messages (an MCP session ended by a DELETE,
   * which carries no message), each with the judge of the stream it goes to.
   */
  endElsewhere(module: ProtocolModule, judge: MessageJudge, end: StreamEnd): Array<{ judge: MessageJudge; findings: Finding[] }> {
    if (module.checkerScope === 'recording') return [];
    const out: Array<{ judge: MessageJudge; findings: Finding[] }> = [];
    for (const { to, findings } of judge.endElsewhere(end)) {
      const target = this.judges.get(to);
      if (target && findings.length > 0) out.push({ judge: target, findings });
    }
    return out;
  }

  /** Reads one message from its bytes: parsed unless it is too big, too costly, not UTF-8 or already given. */
  read(sender: Sender, raw: Buffer, facts: MessageFacts, http: HttpContext | undefined): ReadMessage {
    const size = facts.totalBytes ?? raw.length;
    const oversized = size > this.maxBodyBytes;
    let value: unknown = facts.value;
    let parseError: string | undefined = facts.parseError;
    let text: string | undefined = facts.payload;
    let parseCost = facts.parseCost ?? 0;
    let textNotJson = false;
    if (value === undefined && parseError === undefined && facts.json !== false && !oversized && parseCost === 0) {
      if (text === undefined && !isUtf8(raw)) parseError = 'the message is not valid UTF-8';
      else {
        text ??= raw.toString('utf8');
        parseCost = jsonParseCost(text, this.parseBudget);
        if (parseCost <= this.parseBudget) {
          parseCost = 0;
          try {
            value = JSON.parse(text);
          } catch (error) {
            parseError = `the message is not valid JSON: ${(error as Error).message}`;
            textNotJson = true;
          }
        }
      }
    }
    // Too deep to walk: not judged, and what later messages are judged against is its top only.
    const tooDeep = value !== undefined && (text !== undefined ? tooDeepToWalk(text) : valueNestsDeeperThan(value, MAX_JSON_DEPTH));
    const message: ReadMessage = { sender, carrier: facts.carrier, value, parseError, text, http, tooDeep, size, oversized, parseCost };
    // Set only when true, as before, without spreading an object into every message read.
    if (textNotJson) message.textNotJson = true;
    return message;
  }

  /**
   * A message that was parsed already (validate's inputs): read as record reads it, without parsing
   * again. `walkable`: its value is known not to nest too deep (its text was scanned), so it is not walked to find out.
   */
  parsed(sender: Sender, carrier: Carrier, value: unknown, text: string | undefined, http: HttpContext | undefined, walkable = false): ReadMessage {
    const tooDeep = walkable ? false : text !== undefined ? tooDeepToWalk(text) : valueNestsDeeperThan(value, MAX_JSON_DEPTH);
    return { sender, carrier, value, text, http, tooDeep, size: 0, oversized: false, parseCost: 0 };
  }

  /** The verdict of a read message; `judge` is its stream's, when a protocol claimed the stream. */
  verdict(message: ReadMessage, facts: VerdictFacts, judge: MessageJudge | undefined): Verdict {
    if (message.oversized) {
      const { size } = message;
      const max = this.maxBodyBytes;
      const tooBig = warning('oversized-message', '', `the message is ${size} bytes, more than the ${max}-byte limit; it was forwarded whole and stored truncated`);
      // What the caller already knows is wrong with it (a line cut off by a disconnect) still counts.
      return facts.parseError
        ? { status: 'invalid', findings: [error('invalid-json', '', facts.parseError), tooBig] }
        : unchecked(`message of ${size} bytes is over --max-body ${max}; stored truncated, not judged`, [tooBig]);
    }
    if (message.parseCost > 0) {
      const cost = mib(message.parseCost);
      const budget = mib(this.parseBudget);
      return unchecked(`message of ${message.size} bytes would take about ${cost} MiB to parse, more than the recorder's ${budget} MiB; stored whole, not judged`, [
        warning(
          'complex-message',
          '',
          `the message is ${message.size} bytes of so many small values that parsing it would take about ${cost} MiB of memory, more than the recorder's ${budget} MiB; it was forwarded and stored whole, not judged`,
        ),
      ]);
    }
    if (facts.judge === false) return unchecked(`${facts.channel ?? 'control'} frame, not a protocol message`);
    if (facts.json === false && message.value === undefined && message.parseError === undefined) return unchecked('not a JSON message');
    if (judge) return judge.judge(message);
    // An unclaimed stream's event, frame or line of text that is not JSON breaks no rule anyone made for
    // it (OpenAI's `data: [DONE]`). A body is parsed because its content type says JSON, so broken JSON
    // there is a fault of its own, as are text that is not UTF-8 and a line cut off.
    if (message.textNotJson && message.carrier !== 'body') return unchecked(`${NO_PROTOCOL_REASON}; not JSON (${message.parseError})`);
    if (message.parseError) return { status: 'invalid', findings: [error('invalid-json', '', message.parseError)] };
    if (message.tooDeep) return tooDeepVerdict();
    return unchecked(NO_PROTOCOL_REASON);
  }

  /** The value a stream's checker is given as its request: its top only when it nests too deep to walk. */
  requestBodyOf(message: Pick<InboundMessage, 'value' | 'tooDeep'>): unknown {
    return message.tooDeep ? cutBelow(message.value, MAX_JSON_DEPTH) : message.value;
  }

  /**
   * What may be written to disk: write-only fields replaced (the protocol's, then secret fields), and
   * no registered secret anywhere. Called after judging, which saw the real values.
   */
  storable(message: InboundMessage, raw: Buffer, protocol: ProtocolModule | undefined, channel: string | undefined, json: boolean): { raw: Buffer; value: unknown } {
    return this.storedForm.of(message, raw, protocol, channel, json);
  }

  /** The message's label (core/message-label.ts), with no registered secret in it. */
  label(value: unknown, place: LabelPlace): string {
    const label = messageLabel(value, place);
    return this.secrets.size > 0 ? this.secrets.scrub(label) : label;
  }
}

function mib(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(0);
}
