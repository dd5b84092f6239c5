import { compactJsonStringMember, hasCompactJsonMember } from '../core/compact-json-member.js';
import { isJsonObject } from '../core/json.js';

/**
 * The schema ref an NDJSON version 3 line leaves out: the one its protocol's checker judges the most
 * frequent messages by, chosen by the exchange's protocol and the message's own type field alone (a
 * token stream's events, a WebSocket session's frames). A line leaves its verdict's `schemaRef` out
 * only when it equals this ref, and the import puts this ref back: a message judged by another ref
 * (older rules, an unusual choice) keeps its ref written, so nothing is lost.
 *
 * This is part of the file format, not of the checkers: what a version 3 file means must not change
 * when a checker does. A checker that comes to choose another ref only makes its lines longer (their
 * refs are written again); test/store/ndjson-derived-ref.test.ts checks that these refs are the
 * checkers' on every protocol's stand-in traffic. Changing this function needs a new NDJSON version.
 */
export function derivedSchemaRef(protocol: string | null, sender: 'client' | 'server', carrier: string, value: unknown): string | undefined {
  if (!isJsonObject(value)) return undefined;
  valueMembers.value = value;
  return refByMembers(protocol, sender, carrier, valueMembers);
}

/**
 * derivedSchemaRef of the value of a JSON text in JSON.stringify's form (one isCompactJson accepts),
 * read from the text without parsing it (export, once per message): the same ref, by the same rules.
 */
export function derivedSchemaRefOfText(protocol: string | null, sender: 'client' | 'server', carrier: string, text: string): string | undefined {
  // An object's text starts with `{` (isJsonObject).
  if (text.charCodeAt(0) !== 0x7b) return undefined;
  textMembers.text = text;
  return refByMembers(protocol, sender, carrier, textMembers);
}

/** The top-level members of a JSON object that the derived ref reads: its string fields, and whether it has a field. */
interface ObjectMembers {
  string(key: string): string | undefined;
  has(key: string): boolean;
}

/** The members of a parsed object (one for every call: no object is made per message). */
const valueMembers = new (class implements ObjectMembers {
  value: Record<string, unknown> = {};
  string(key: string): string | undefined {
    const member = this.value[key];
    return typeof member === 'string' ? member : undefined;
  }
  has(key: string): boolean {
    return key in this.value;
  }
})();

/** The members of an object's compact JSON text, read from the text (compactJsonMember). */
const textMembers = new (class implements ObjectMembers {
  text = '';
  string(key: string): string | undefined {
    return compactJsonStringMember(this.text, key);
  }
  has(key: string): boolean {
    return hasCompactJsonMember(this.text, key);
  }
})();

/** derivedSchemaRef's rules, on an object's members however they are read. */
function refByMembers(protocol: string | null, sender: 'client' | 'server', carrier: string, members: ObjectMembers): string | undefined {
  switch (protocol) {
    case 'agui': {
      if (sender === 'client') return carrier === 'body' ? `${AGUI}#RunAgentInput` : undefined;
      const type = members.string('type');
      return type === undefined ? undefined : aguiEventRef(type);
    }
    case 'pi-daemon-rpc': {
      const kind = members.string('kind');
      return kind === undefined ? undefined : PI_FRAME_REFS.get(kind);
    }
    case 'openai':
      return sender === 'server' && carrier === 'event' && members.string('object') === 'chat.completion.chunk' && !members.has('error') ? OPENAI_CHUNK_REF : undefined;
    case 'anthropic': {
      if (sender !== 'server' || carrier !== 'event') return undefined;
      const type = members.string('type');
      return type === undefined ? undefined : ANTHROPIC_EVENT_REFS.get(type);
    }
    default:
      return undefined;
  }
}

const AGUI = 'https://ag-ui.com/spec/draft/schema.json';
const PI_SESSION_API = 'https://a.skh.am/pi-daemon/session-api.schema.json';
const OPENAI = 'https://agent-proxy.dev/schemas/openai-api-2.3.0.schema.json';
const ANTHROPIC = 'https://agent-proxy.dev/schemas/anthropic-messages.schema.json';

/** An AG-UI event's ref by its type, `TEXT_MESSAGE_CONTENT` → `…#TextMessageContentEvent`; made once per type (a stream repeats a few). */
function aguiEventRef(type: string): string | undefined {
  let ref = aguiEventRefs.get(type);
  if (ref !== undefined || !/^[A-Z]+(_[A-Z]+)*$/.test(type)) return ref;
  let name = '';
  for (const word of type.split('_')) name += word[0] + word.slice(1).toLowerCase();
  ref = `${AGUI}#${name}Event`;
  // Kept for the types a stream repeats, not for every made-up type a peer sends.
  if (aguiEventRefs.size < 100) aguiEventRefs.set(type, ref);
  return ref;
}

const aguiEventRefs = new Map<string, string>();

const OPENAI_CHUNK_REF = `${OPENAI}#/$defs/CreateChatCompletionStreamResponse`;

/** A Pi daemon RPC frame's `$def`, by its `kind`. */
const PI_FRAME_DEFS: Readonly<Record<string, string>> = {
  command: 'rpcCommandFrame',
  extension_ui_response: 'rpcExtensionUiResponseFrame',
  tree_navigate: 'rpcTreeNavigateFrame',
  control: 'rpcControlFrame',
  attach_ready: 'rpcAttachReadyFrame',
  response: 'rpcResponseFrame',
  event: 'rpcEventFrame',
  replay_gap: 'rpcReplayGapFrame',
  tree_navigate_result: 'rpcTreeNavigateResultFrame',
};

const PI_FRAME_REFS = new Map(Object.entries(PI_FRAME_DEFS).map(([kind, def]) => [kind, `${PI_SESSION_API}#/$defs/${def}`]));

/** An Anthropic Messages stream event's `$def`, by its `type`. */
const ANTHROPIC_EVENT_DEFS: Readonly<Record<string, string>> = {
  message_start: 'MessageStartEvent',
  content_block_start: 'ContentBlockStartEvent',
  content_block_delta: 'ContentBlockDeltaEvent',
  content_block_stop: 'ContentBlockStopEvent',
  message_delta: 'MessageDeltaEvent',
  message_stop: 'MessageStopEvent',
  ping: 'PingEvent',
  error: 'ErrorResponse',
};

const ANTHROPIC_EVENT_REFS = new Map(Object.entries(ANTHROPIC_EVENT_DEFS).map(([type, def]) => [type, `${ANTHROPIC}#/$defs/${def}`]));
