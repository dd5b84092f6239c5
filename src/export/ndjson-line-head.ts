import type { Verdict } from '../core/verdict.js';
import { messageValue } from '../store/message-value.js';
import { derivedSchemaRef, derivedSchemaRefOfText } from '../store/ndjson-derived-ref.js';
import type { MessageTextRow } from '../store/store-types.js';

// A message line's head (export/ndjson-export.ts): what comes before its JSON text, most of it
// shared by the messages of a recording, so made once per export.

/**
 * The parts of a message's line that most messages of a recording share, each made once: the line's
 * start up to its `seq` by exchange, its route up to `tOffsetMs` by sender, carrier and channel, a
 * plain verdict's text (RecordingReader shares one frozen verdict per status and ref) by the ref
 * derived for the message, and a short `rawBefore` or `rawAfter` (an Anthropic event's
 * `event: …\ndata: `). One for each export; bounded: past KEPT_PARTS, a part is made each time.
 */
export class LineHeads {
  private readonly exchanges = new Map<number, string>();
  private readonly routes = new Map<string, Map<string, Map<string | null, string>>>();
  private readonly verdicts = new WeakMap<Verdict, Map<string | undefined, string>>();
  private readonly members = new Map<string, Map<string, string>>();
  private kept = 0;

  exchange(id: number): string {
    let text = this.exchanges.get(id);
    if (text === undefined) {
      text = `{"type":"message","exchange":${id},"seq":`;
      if (this.keep()) this.exchanges.set(id, text);
    }
    return text;
  }

  route(sender: string, carrier: string, channel: string | null): string {
    let byCarrier = this.routes.get(sender);
    let byChannel = byCarrier?.get(carrier);
    let text = byChannel?.get(channel);
    if (text === undefined) {
      text = `,"sender":${quoted(sender)},"carrier":${quoted(carrier)}${channel === null ? '' : `,"channel":${JSON.stringify(channel)}`},"tOffsetMs":`;
      if (this.keep()) {
        if (byCarrier === undefined) this.routes.set(sender, (byCarrier = new Map()));
        if (byChannel === undefined) byCarrier.set(carrier, (byChannel = new Map()));
        byChannel.set(channel, text);
      }
    }
    return text;
  }

  /** verdictText, kept for a verdict shared by many messages (frozen) with the ref derived for this one. */
  verdict(m: MessageTextRow, protocol: string | null): string {
    const derived = derivedRef(m, protocol);
    if (!Object.isFrozen(m.verdict)) return verdictText(m.verdict, derived);
    let byDerived = this.verdicts.get(m.verdict);
    let text = byDerived?.get(derived);
    if (text === undefined) {
      text = verdictText(m.verdict, derived);
      if (this.keep()) {
        if (byDerived === undefined) this.verdicts.set(m.verdict, (byDerived = new Map()));
        byDerived.set(derived, text);
      }
    }
    return text;
  }

  /** `name` and `value` as JSON, kept when `value` is short (what comes around a JSON text repeats). */
  member(name: string, value: string): string {
    if (value.length > SHORT_MEMBER) return `${name}${JSON.stringify(value)}`;
    let byValue = this.members.get(name);
    let text = byValue?.get(value);
    if (text === undefined) {
      text = `${name}${JSON.stringify(value)}`;
      if (this.keep()) {
        if (byValue === undefined) this.members.set(name, (byValue = new Map()));
        byValue.set(value, text);
      }
    }
    return text;
  }

  private keep(): boolean {
    return this.kept++ < KEPT_PARTS;
  }
}

/** At most this many parts are kept (a recording of many exchanges makes the rest each time). */
const KEPT_PARTS = 4096;
/** A `rawBefore` or `rawAfter` of up to this many characters is kept. */
const SHORT_MEMBER = 64;

/** A number as JSON.stringify writes it (String's text for a finite one), without the serializer's entry. */
export function numberText(x: number): string {
  return Number.isFinite(x) ? `${x}` : 'null';
}

/**
 * `,"verdict":{…}`, or nothing for a plain valid verdict (no reason, no findings) whose ref is the one
 * derived for the message (`derived`: derivedRef's); its `schemaRef` only when it is not that one
 * (null: the verdict has none, though one is derived).
 */
function verdictText(verdict: Verdict, derived: string | undefined): string {
  const { status, schemaRef, reason, findings } = verdict;
  const ref = schemaRef === derived ? '' : `,"schemaRef":${JSON.stringify(schemaRef ?? null)}`;
  if (status === 'valid' && ref === '' && reason === undefined && findings.length === 0) return '';
  let text = `,"verdict":{"status":${quoted(status)}${ref}`;
  if (reason !== undefined) text += `,"reason":${JSON.stringify(reason)}`;
  if (findings.length > 0) text += `,"findings":${JSON.stringify(findings.map((f) => ({ rule: f.rule, severity: f.severity, pointer: f.pointer, message: f.message })))}`;
  return `${text}}`;
}

/**
 * The ref the import derives for the message (derivedSchemaRef): from its JSON text when the line
 * takes it as it is (in JSON.stringify's form: read without parsing it), else from its value, a deep
 * one's too (rare; parsed once more here).
 */
function derivedRef(m: MessageTextRow, protocol: string | null): string | undefined {
  if (m.jsonText !== undefined) return derivedSchemaRefOfText(protocol, m.sender, m.carrier, m.jsonText);
  const value = m.json !== undefined ? m.json : m.deepJson !== undefined ? messageValue(m) : undefined;
  return value === undefined ? undefined : derivedSchemaRef(protocol, m.sender, m.carrier, value);
}

/** A sender, carrier or status as JSON: one of a few words, quoted as they are. */
function quoted(word: string): string {
  return QUOTED.get(word) ?? JSON.stringify(word);
}

const QUOTED = new Map(['client', 'server', 'body', 'event', 'frame', 'line', 'valid', 'invalid', 'unchecked'].map((word) => [word, `"${word}"`]));
