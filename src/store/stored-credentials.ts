import type { Finding } from '../core/finding.js';
import { REDACTED, REDACTED_IN_QUERY } from '../core/redacted.js';
import { CredentialScrubber, type CredentialHit } from '../core/credential-scrubber.js';
import { MIN_CREDENTIAL_LENGTH } from '../core/credential-formats.js';
import { secretInTraffic } from '../core/secret-in-traffic.js';
import { findString } from '../core/find-string.js';
import { parsedValue, SerialisedJson } from '../core/serialised-json.js';
import type { ExchangeFields, Headers } from './schema.js';
import type { GivenHeaders } from './store-types.js';

/** An exchange's fields as the writer is given them: headers as an object or as their JSON text. */
type ScrubbedExchangeFields = Partial<Omit<ExchangeFields, 'requestHeaders' | 'responseHeaders'>> & {
  requestHeaders?: GivenHeaders | null;
  responseHeaders?: GivenHeaders | null;
};

/** Channels whose bytes are binary with lengths inside (protobuf): a credential in them is masked at its own length. */
const BINARY_CHANNELS: ReadonlySet<string> = new Set(['proto', 'binary']);

/** What a message becomes on its way to disk. */
export interface StoredMessageText {
  raw: Buffer;
  json: string | null;
  findings: Finding[];
}

/**
 * The writer's last step before the disk: every text it stores (message bytes and JSON, headers,
 * URLs, error and close texts, finding texts) with well-known credentials (core/credential-formats.ts)
 * replaced. Every path that writes a recording (record, fixture, replay's new episodes, import)
 * goes through RecordingWriter, so none stores one. A message's own credentials become
 * `secret-in-traffic` findings on it; those of an exchange's headers and URL wait for the next
 * message of the exchange (or go to its last one when it ends), since a finding sits on a message.
 */
export class StoredCredentials {
  private readonly scrubber: CredentialScrubber | undefined;
  /** Exchange id → findings of its headers, URL or close, waiting for a message to sit on. */
  private readonly pending = new Map<number, Finding[]>();
  /** The last text given to `text` and what it became. */
  private lastText: string | undefined;
  private lastScrubbed = '';
  /** The last request and response header texts found to hold no credential. */
  private readonly cleanHeaderTexts: [request: string | undefined, response: string | undefined] = [undefined, undefined];

  /** `keep`: credentials to store as they are; `all`: a copy of a file as it is (a scratch copy to read, a fixture's episodes). */
  constructor(keep: readonly RegExp[] | 'all' = []) {
    this.scrubber = keep === 'all' ? undefined : new CredentialScrubber(keep);
  }

  /**
   * A message's bytes and JSON text as stored, and what was found in them. `jsonFromWire`: the JSON
   * text is what came on the wire (the raw bytes, or an SSE event's data lines), so it holds a
   * credential only where the raw bytes do, and is scanned only then. `textAt`: the JSON text is the
   * UTF-8 text of raw from there to its end, less trailing white space (RecordingWriter's wholeTextAt).
   */
  message(raw: Uint8Array, json: string | null, value: unknown, channel: string | undefined, jsonFromWire = false, textAt: number | null = null): StoredMessageText {
    const bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    const scrubber = this.scrubber;
    if (!scrubber) return { raw: bytes, json, findings: NONE_FINDINGS };
    if (textAt !== null && json !== null && !scrubber.mayHold(json) && onlyFieldNameBefore(bytes, textAt)) return { raw: bytes, json, findings: NONE_FINDINGS };
    const binary = channel !== undefined && BINARY_CHANNELS.has(channel);
    const scrubbed = scrubber.scrubBytes(bytes, binary);
    const jsonHits = json === null || (jsonFromWire && scrubbed.hits.length === 0) ? NONE : scrubber.find(json);
    // A binary frame's strings sit between length bytes, which may be letters or digits: what its
    // decoded JSON holds is masked in it wherever it occurs, at its own length.
    if (binary && jsonHits.length > 0) scrubbed.bytes = maskEach(scrubbed.bytes, jsonHits.map((hit) => unescaped(json!.slice(hit.start, hit.end))));
    if (scrubbed.hits.length === 0 && jsonHits.length === 0) return { raw: bytes, json, findings: NONE_FINDINGS };
    // One finding per format and place: in plain text nothing tells two keys of a format apart.
    const findings: Finding[] = [];
    const add = (finding: Finding) => {
      if (!findings.some((f) => f.message === finding.message)) findings.push(finding);
    };
    // Where in the parsed value, found by the credential's text up to its first escape.
    for (const hit of jsonHits) add(secretInTraffic(hit.format, 'this message', pointerOf(value, json!, hit)));
    if (jsonHits.length === 0) {
      const text = bytes.toString('latin1');
      // JSON that was not parsed as such (a text/plain body): parsed now, for the places only.
      const parsed = value !== undefined ? value : parsedForPlaces(bytes);
      for (const hit of scrubbed.hits) add(secretInTraffic(hit.format, 'this message', pointerOf(parsed, text, hit)));
    }
    return { raw: scrubbed.bytes, json: json === null ? null : scrubber.replace(json, jsonHits), findings };
  }

  /**
   * An exchange's fields as stored: credentials out of its path, query, URL (a stdio command line),
   * headers, error message and close reason. What was found waits in `pending` for a message.
   */
  exchange<T extends ScrubbedExchangeFields>(id: number, fields: T): T {
    const scrubber = this.scrubber;
    if (!scrubber) return fields;
    // Every exchange passes here (start, response headers, end): nothing is allocated unless a credential
    // is found, and its fields are read by name (the start, update and end records differ in shape, and
    // a field read by a key held in a variable costs a lookup of its own on each).
    let out: T | undefined;
    if (holdsText(fields.path) || holdsText(fields.query) || holdsText(fields.url) || holdsText(fields.errorMessage) || holdsText(fields.closeReason)) {
      out = this.exchangeTexts(id, fields, scrubber);
    }
    const { requestHeaders, responseHeaders } = fields;
    if (requestHeaders !== null && requestHeaders !== undefined) {
      const scrubbed = this.exchangeHeaders(id, requestHeaders, 'request', scrubber);
      if (scrubbed !== requestHeaders) (out ??= { ...fields }).requestHeaders = scrubbed as never;
    }
    if (responseHeaders !== null && responseHeaders !== undefined) {
      const scrubbed = this.exchangeHeaders(id, responseHeaders, 'response', scrubber);
      if (scrubbed !== responseHeaders) (out ??= { ...fields }).responseHeaders = scrubbed as never;
    }
    return out ?? fields;
  }

  /** The exchange's free texts as stored, once one of them is long enough to hold a credential; undefined: none holds one. */
  private exchangeTexts<T extends ScrubbedExchangeFields>(id: number, fields: T, scrubber: CredentialScrubber): T | undefined {
    let out: T | undefined;
    // A stdio exchange's url is the agent's command line.
    const stdio = fields.transport === 'stdio';
    for (const [key, where, marker] of TEXT_FIELDS) {
      const text = fields[key];
      if (typeof text !== 'string') continue;
      const hits = scrubber.find(text);
      if (hits.length === 0) continue;
      (out ??= { ...fields })[key] = scrubber.replace(text, hits, marker ?? (stdio ? REDACTED : REDACTED_IN_QUERY)) as never;
      this.hold(id, hits, key === 'url' && stdio ? "the agent's command line" : where);
    }
    return out;
  }

  /**
   * One side's headers as stored. Headers given as their JSON text are parsed only when it may hold a
   * credential, and a text that is the one before it on the same side (a client's same headers on every
   * request) is known to hold none without its scan.
   */
  private exchangeHeaders(id: number, given: GivenHeaders, side: 'request' | 'response', scrubber: CredentialScrubber): GivenHeaders {
    if (given instanceof SerialisedJson) {
      const text = given.text;
      const index = side === 'request' ? 0 : 1;
      if (text === this.cleanHeaderTexts[index]) return given;
      if (!scrubber.mayHold(text)) {
        this.cleanHeaderTexts[index] = text;
        return given;
      }
    }
    const headers = parsedValue(given);
    return this.headers(id, headers, side);
  }

  /** Text the store keeps about a message (a finding's sentence, a verdict's reason): scrubbed, not reported again. */
  text(text: string): string {
    if (!this.scrubber) return text;
    // The same text comes again and again: every message of an exchange no protocol claims has the
    // same 222-character reason, and scanning it costs more than the rest of its verdict.
    if (text !== this.lastText) {
      this.lastScrubbed = this.scrubber.scrub(text);
      this.lastText = text;
    }
    return this.lastScrubbed;
  }

  /** The recording's target (a command line may hold a key): scrubbed. */
  target(target: string | undefined): string | undefined {
    return target === undefined || !this.scrubber ? target : this.scrubber.scrub(target);
  }

  /** The findings of exchange `id` still waiting for a message, handed over once. */
  take(id: number): Finding[] | undefined {
    if (this.pending.size === 0) return undefined;
    const findings = this.pending.get(id);
    if (findings !== undefined) this.pending.delete(id);
    return findings;
  }

  private headers(id: number, headers: Headers, side: 'request' | 'response'): Headers {
    const scrubber = this.scrubber!;
    let out: Headers | undefined;
    for (const name in headers) {
      const value = headers[name];
      if (typeof value === 'string') {
        const hits = scrubber.find(value);
        if (hits.length === 0) continue;
        (out ??= { ...headers })[name] = scrubber.replace(value, hits);
        this.hold(id, hits, `${side} header '${name}'`);
      } else {
        const values = value.map((item) => {
          const hits = scrubber.find(item);
          if (hits.length === 0) return item;
          this.hold(id, hits, `${side} header '${name}'`);
          return scrubber.replace(item, hits);
        });
        if (values.some((item, i) => item !== value[i])) (out ??= { ...headers })[name] = values;
      }
    }
    return out ?? headers;
  }

  private hold(id: number, hits: readonly CredentialHit[], where: string): void {
    let list = this.pending.get(id);
    if (!list) this.pending.set(id, (list = []));
    for (const hit of hits) {
      const finding = secretInTraffic(hit.format, where);
      if (!list.some((f) => f.message === finding.message)) list.push(finding);
    }
  }
}

/** Exchange columns of free text, what a finding calls each, and its marker (undefined: the URL's, by transport). */
const TEXT_FIELDS: ReadonlyArray<readonly [key: 'path' | 'query' | 'url' | 'errorMessage' | 'closeReason', where: string, marker: string | undefined]> = [
  ['path', 'the request URL', REDACTED_IN_QUERY],
  ['query', 'the request URL', REDACTED_IN_QUERY],
  ['url', 'the request URL', undefined],
  ['errorMessage', "the exchange's error message", REDACTED],
  ['closeReason', 'the WebSocket close reason', REDACTED],
];

const NONE: readonly CredentialHit[] = [];

/** A text long enough to hold a credential (the scan's own first test, for a field that is usually a short path or absent). */
function holdsText(text: string | null | undefined): boolean {
  return typeof text === 'string' && text.length >= MIN_CREDENTIAL_LENGTH;
}
const NONE_FINDINGS: Finding[] = [];

/** A credential as found in JSON text, as its string holds it (`\\n` of a PEM block a line break). */
function unescaped(text: string): string {
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return text;
  }
}

const DATA_FIELD = Buffer.from('data: ');

/**
 * Whether raw's bytes before its JSON text at `at` are nothing or an SSE event's `data:` (`data: `). Then
 * a credential in raw is one in the text: none starts in those bytes or in the white space after the
 * text (every format starts with `sk-`, `gh`, `A`, `xox`, `eyJ` or `-----`, and is made of more than
 * white space), and the text, valid UTF-8, holds raw's ASCII as it is. So a text with no credential's
 * prefix (CredentialScrubber.mayHold) means raw holds none, without the latin1 copy its scan makes.
 */
function onlyFieldNameBefore(raw: Buffer, at: number): boolean {
  if (at === 0) return true;
  if (at !== 5 && at !== 6) return false;
  for (let i = 0; i < at; i++) if (raw[i] !== DATA_FIELD[i]) return false;
  return true;
}

/** The most of an unparsed message parsed to name the places of its credentials. */
const MAX_PARSED_FOR_PLACES = 1024 * 1024;

/** A message's bytes as JSON, when they are small JSON text; else undefined (its findings name no pointer). */
function parsedForPlaces(bytes: Buffer): unknown {
  if (bytes.length > MAX_PARSED_FOR_PLACES) return undefined;
  const first = bytes.find((c) => c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d);
  if (first !== 0x7b && first !== 0x5b) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** `bytes` with every occurrence of each text (UTF-8) overwritten by the marker padded to its length. */
function maskEach(bytes: Buffer, texts: readonly string[]): Buffer {
  let out = bytes;
  for (const text of texts) {
    const needle = Buffer.from(text);
    for (let at = out.indexOf(needle); at >= 0; at = out.indexOf(needle, at + needle.length)) {
      if (out === bytes) out = Buffer.from(bytes);
      out.write((REDACTED + '*'.repeat(needle.length)).slice(0, needle.length), at, 'latin1');
    }
  }
  return out;
}

/** The pointer of the string in `value` that holds the hit found in `text` ('' when none does). */
function pointerOf(value: unknown, text: string, hit: CredentialHit): string {
  if (value === undefined) return '';
  let needle = text.slice(hit.start, hit.end);
  const escape = needle.indexOf('\\');
  if (escape >= 0) needle = needle.slice(0, escape);
  return findString(value, needle) ?? '';
}
