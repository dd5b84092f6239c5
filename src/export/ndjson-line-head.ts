import type { Verdict } from '../core/verdict.js';
import { messageValue } from '../store/message-value.js';
import { derivedSchemaRef, derivedSchemaRefOfText } from '../store/ndjson-derived-ref.js';
import type { MessageTextRow } from '../store/store-types.js';

// A message line's head (export/ndjson-export.ts): what comes before its JSON text, most of it
// shared by the messages of a recording, so made once per export.

/**
 * A part of a line's head: its text, and, for a part kept (made once, used by many lines), its UTF-8
 * bytes, which the byte chunks copy as they are instead of encoding the text again for every line.
 */
export interface HeadPart {
  readonly text: string;
  readonly bytes: Uint8Array | undefined;
}

/** A part with nothing in it (a plain verdict's, most messages'). */
export const NO_PART: HeadPart = Object.freeze({ text: '', bytes: Buffer.alloc(0) });

/** A part kept: its bytes made once. */
function keptPart(text: string): HeadPart {
  return text === '' ? NO_PART : { text, bytes: Buffer.from(text, 'utf8') };
}

/** A part made for one line only: its text, encoded where it is written. */
function onePart(text: string): HeadPart {
  return text === '' ? NO_PART : { text, bytes: undefined };
}

/**
 * The parts of a message's line that most messages of a recording share, each made once: the line's
 * start up to its `seq` by exchange, its route up to `tOffsetMs` by sender, carrier and channel, a
 * plain verdict's text (RecordingReader shares one frozen verdict per status and ref) by the ref
 * derived for the message, and a short `rawBefore` or `rawAfter` (an Anthropic event's
 * `event: …\ndata: `). One for each export; bounded: past KEPT_PARTS, a part is made each time.
 */
export class LineHeads {
  private readonly exchanges = new Map<number, HeadPart>();
  private readonly routes = new Map<string, Map<string, Map<string | null, HeadPart>>>();
  private readonly verdicts = new WeakMap<Verdict, Map<string | undefined, HeadPart>>();
  private readonly members = new Map<string, Map<string, HeadPart>>();
  private kept = 0;

  exchange(id: number): HeadPart {
    let part = this.exchanges.get(id);
    if (part === undefined) {
      const text = `{"type":"message","exchange":${id},"seq":`;
      if (!this.keep()) return onePart(text);
      this.exchanges.set(id, (part = keptPart(text)));
    }
    return part;
  }

  route(sender: string, carrier: string, channel: string | null): HeadPart {
    let byCarrier = this.routes.get(sender);
    let byChannel = byCarrier?.get(carrier);
    let part = byChannel?.get(channel);
    if (part === undefined) {
      const text = `,"sender":${quoted(sender)},"carrier":${quoted(carrier)}${channel === null ? '' : `,"channel":${JSON.stringify(channel)}`},"tOffsetMs":`;
      if (!this.keep()) return onePart(text);
      if (byCarrier === undefined) this.routes.set(sender, (byCarrier = new Map()));
      if (byChannel === undefined) byCarrier.set(carrier, (byChannel = new Map()));
      byChannel.set(channel, (part = keptPart(text)));
    }
    return part;
  }

  /** verdictText, kept for a verdict shared by many messages (frozen) with the ref derived for this one. */
  verdict(m: MessageTextRow, protocol: string | null): HeadPart {
    const derived = derivedRef(m, protocol);
    if (!Object.isFrozen(m.verdict)) return onePart(verdictText(m.verdict, derived));
    let byDerived = this.verdicts.get(m.verdict);
    let part = byDerived?.get(derived);
    if (part === undefined) {
      const text = verdictText(m.verdict, derived);
      if (!this.keep()) return onePart(text);
      if (byDerived === undefined) this.verdicts.set(m.verdict, (byDerived = new Map()));
      byDerived.set(derived, (part = keptPart(text)));
    }
    return part;
  }

  /** `name` and `value` as JSON, kept when `value` is short (what comes around a JSON text repeats). */
  member(name: string, value: string): HeadPart {
    if (value.length > SHORT_MEMBER) return onePart(`${name}${JSON.stringify(value)}`);
    let byValue = this.members.get(name);
    let part = byValue?.get(value);
    if (part === undefined) {
      const text = `${name}${JSON.stringify(value)}`;
      if (!this.keep()) return onePart(text);
      if (byValue === undefined) this.members.set(name, (byValue = new Map()));
      byValue.set(value, (part = keptPart(text)));
    }
    return part;
  }

  private keep(): boolean {
    return this.kept++ < KEPT_PARTS;
  }
}

/** At most this many parts are kept (a recording of many exchanges makes the rest each time). */
const KEPT_PARTS = 4096;
/** A `rawBefore` or `rawAfter` of up to this many characters is kept. */
const SHORT_MEMBER = 64;

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
