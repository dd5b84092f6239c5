import type { ProtocolId } from '../../protocols/catalog.js';
import { echoFieldsOf, learnCorrelation, Substitution } from '../../match/correlation.js';
import { FieldSpecs } from '../../core/field-specs.js';
import { canonicalJson, jsonDifferences, normalizerFor, writeOnlyFieldsOf } from '../../match/normalize.js';
import { RedactionMask } from '../../match/redacted-values.js';
import type { ScriptMessage } from '../replay-script.js';
import { parseJsonBody } from '../http/request-body.js';
import { bodyEcho, type BodyEcho } from '../http/request-limits.js';
import { substituteOnce } from '../../match/token-substitution.js';

const NO_MASK = new RedactionMask();

/** A frame as the live client sent it. */
export interface LiveFrame {
  channel: 'text' | 'binary' | 'ping' | 'pong';
  data: Buffer;
}

export function isControl(channel: string | null): boolean {
  return channel === 'ping' || channel === 'pong';
}

/** What a miss report shows of a frame: its JSON or text cut to a few KiB, and its size. */
export function describeFrame(frame: LiveFrame): BodyEcho {
  if (frame.channel === 'binary') return { body: `<${frame.data.length} binary bytes>`, bodyBytes: frame.data.length };
  return bodyEcho(frame.data, frame.channel === 'text' ? parseJsonBody : () => undefined);
}

/**
 * The per-connection memory of a replayed WebSocket: it compares live client frames with recorded
 * ones (volatile fields and `--ignore` fields dropped) and learns which live ids stand for which
 * recorded ones, so the server frames it sends echo the live ids. Pairs accumulate over the
 * connection: a response may come several frames after its request.
 */
export class FrameCorrelator {
  private readonly normalize: (value: unknown) => unknown;
  private readonly writeOnly: FieldSpecs;
  private readonly echoFields: readonly string[];
  private readonly substitution = new Substitution();
  /** Where each recorded frame (by its parsed value) has redacted values. */
  private readonly masks = new WeakMap<object, RedactionMask>();
  private redactedMatched = 0;

  constructor(protocol: ProtocolId | undefined, ignore: readonly string[]) {
    this.normalize = normalizerFor(protocol, ignore);
    this.echoFields = echoFieldsOf(protocol);
    this.writeOnly = new FieldSpecs(writeOnlyFieldsOf(protocol));
  }

  /** Correlation pairs in force. */
  get substitutions(): number {
    return this.substitution.size;
  }

  /** Live values that matched a redacted recorded value, over the frames that matched. */
  get redacted(): number {
    return this.redactedMatched;
  }

  /**
   * Where the live frame differs from the recorded one: `[]` when it matches. `channel` when the
   * frame type differs, JSON pointers for JSON text, `body` for other bytes. Ping and pong payloads
   * are never compared: clients fill them with counters and clocks.
   */
  differences(recorded: ScriptMessage, live: LiveFrame): string[] {
    if (recorded.channel !== live.channel) return ['channel'];
    if (isControl(live.channel)) return [];
    if (recorded.truncated) return live.data.subarray(0, recorded.raw.length).equals(recorded.raw) ? [] : ['body'];
    const liveJson = live.channel === 'text' ? parseJsonBody(live.data) : undefined;
    if (recorded.json !== undefined && liveJson !== undefined) {
      // The recorded frame may echo ids the server handed out: compare it with the live ids in place.
      // A value the recording redacted matches any live value: the live one is masked at its place.
      const masked = this.maskOf(recorded.json).apply(liveJson);
      const expected = this.normalize(this.substitution.applyValue(recorded.json));
      const actual = this.normalize(masked.value);
      if (canonicalJson(expected) !== canonicalJson(actual)) return jsonDifferences(expected, actual);
      this.redactedMatched += masked.masked;
      return [];
    }
    return this.substitute(recorded).equals(live.data) ? [] : ['body'];
  }

  private maskOf(recorded: unknown): RedactionMask {
    if (recorded === null || typeof recorded !== 'object') return NO_MASK;
    let mask = this.masks.get(recorded);
    if (!mask) this.masks.set(recorded, (mask = new RedactionMask().addRecorded(recorded, this.writeOnly)));
    return mask;
  }

  /** Learns the echo values a matched live frame carries in place of the recorded ones. */
  learn(recorded: ScriptMessage, live: LiveFrame): void {
    if (this.echoFields.length === 0 || live.channel !== 'text' || recorded.json === undefined) return;
    const liveJson = parseJsonBody(live.data);
    if (liveJson === undefined) return;
    this.substitution.add(learnCorrelation(this.echoFields, { body: recorded.json }, { body: liveJson }));
  }

  /** A recorded server text frame with the live ids in place; other frames go out as recorded. */
  substitute(message: ScriptMessage): Buffer {
    if (message.channel !== 'text' || this.substitution.size === 0) return message.raw;
    return substituteOnce(message.raw, this.substitution.list());
  }
}
