import { stringifyJson } from '../core/json-text.js';
import type { InboundMessage } from '../core/message.js';
import type { ProtocolModule } from '../protocols/protocol.js';
import { writeOnlyFieldsOf } from '../protocols/field-roles.js';
import type { FieldRedactor } from './field-redaction.js';
import type { QueryRedactor } from './query-redaction.js';
import type { SecretTracker } from './secret-tracker.js';
import { UnparsedWriteOnly } from './unparsed-write-only.js';

/** The form of a judged message that may be stored: the last step of judge/message-pipeline.ts. */
export class StoredForm {
  private readonly writeOnlyScanners = new Map<string, UnparsedWriteOnly>();

  constructor(
    private readonly secrets: SecretTracker,
    private readonly fields: FieldRedactor,
    private readonly query: QueryRedactor,
  ) {}

  /**
   * What may be written to disk: write-only fields replaced (the protocol's, then secret fields), and
   * no registered secret anywhere. Called after judging, which saw the real values.
   */
  of(message: InboundMessage, raw: Buffer, protocol: ProtocolModule | undefined, channel: string | undefined, json: boolean): { raw: Buffer; value: unknown } {
    let value = message.value;
    let bytes = raw;
    let text = message.text;
    const secrets = this.secrets;
    const replacement = value !== undefined ? protocol?.redactForStorage?.(message, secrets) : undefined;
    if (replacement !== undefined) {
      value = replacement;
      text = stringifyJson(replacement)!;
      bytes = Buffer.from(text);
    }
    if (value !== undefined) {
      const redacted = this.fields.redact(value, bytes, text, channel);
      if (redacted) ({ value, raw: bytes } = redacted);
    } else if (message.carrier === 'body' && isFormBody(message)) {
      // A form body is a query string: OAuth token requests carry client_secret and password this way.
      const form = bytes.toString('latin1');
      const redacted = this.query.redact(form);
      if (redacted !== form) bytes = Buffer.from(redacted, 'latin1');
    } else if (channel !== 'proto' && (json || (message.carrier === 'body' && looksLikeJson(bytes)))) {
      // Not parsed (over --max-body, too costly to parse), not valid JSON, or JSON under another
      // content type (fetch() sends a string body as text/plain): its text is still scanned for
      // secret fields, from its first bracket to where it ends. (A protobuf frame that did not
      // decode is binary, with no JSON text to scan.)
      const writeOnly = message.sender === 'client' ? this.unparsedWriteOnly(protocol) : undefined;
      if (writeOnly) bytes = writeOnly.redact(bytes, (key, found) => secrets.registerEnv({ [key]: found })) ?? bytes;
      bytes = this.fields.redactTruncated(bytes) ?? bytes;
    }
    if (secrets.size > 0) {
      bytes = secrets.scrubBytes(bytes);
      value = secrets.scrubValue(value);
    }
    return { raw: bytes, value };
  }

  /** The scanner for a protocol's write-only fields in messages that were not parsed, if it has any. */
  private unparsedWriteOnly(protocol: ProtocolModule | undefined): UnparsedWriteOnly | undefined {
    const pointers = writeOnlyFieldsOf(protocol);
    if (!protocol || pointers.length === 0) return undefined;
    let scanner = this.writeOnlyScanners.get(protocol.id);
    if (!scanner) this.writeOnlyScanners.set(protocol.id, (scanner = new UnparsedWriteOnly(pointers)));
    return scanner;
  }
}

function isFormBody(message: InboundMessage): boolean {
  const headers = message.sender === 'client' ? message.http?.requestHeaders : message.http?.responseHeaders;
  if (!headers) return false;
  for (const [name, value] of Object.entries(headers)) {
    if (name.length === 12 && name.toLowerCase() === 'content-type') {
      return String(Array.isArray(value) ? value[0] : value).toLowerCase().startsWith('application/x-www-form-urlencoded');
    }
  }
  return false;
}

/** Does this body begin as a JSON object or array does, whatever its content type says? */
function looksLikeJson(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length && i < 64; i++) {
    const c = bytes[i];
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    return c === 0x7b || c === 0x5b;
  }
  return false;
}
