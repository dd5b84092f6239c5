/*
 * The roles a protocol gives its fields, declared once per field in its facts (ProtocolFacts.fields)
 * and read from here by record (what is redacted or digested at rest), replay (what matching
 * ignores, what it substitutes) and diff (what it labels, what it drops), never by naming a protocol
 * or guessing from a field's name.
 *
 * A field is named as `--ignore` names it (core/field-specs.ts): by its key (`runId`: that key at
 * any depth) or by a JSON pointer (`/command/id`; `*` matches any one key or index).
 */

/**
 * - `client-id`: an id the client mints anew each run (a JSON-RPC request id, an AG-UI runId):
 *   ignored when a replay matches requests, labelled by diff (`runId#1`) rather than compared.
 * - `echoed-client-id`: a client id its peer's answers echo: also rewritten by a replay in what it
 *   serves, to the value the live request has there.
 * - `{ echoedFrom }`: a client id echoed from other places of the request than the field itself (a
 *   header, a pointer narrower than its key): the places a replay reads the live value from.
 * - `server-id`: an id the server mints: labelled by diff, but compared when matching, since a
 *   replay serves the recorded one and the client sends that back.
 * - `answer-id`: an id an answer minted that the client's later requests echo (a model's tool call
 *   ids, sent back with the tool's result): matched by where it recurs, not by its value (each is
 *   labelled by first appearance within the request, so a tool result must still name the call it
 *   answers, whatever that call's id), and labelled by diff.
 * - `volatile`: no id, but different on every run (a timestamp): ignored when matching, dropped by diff.
 * - `write-only`: stored as a digest (the module's redactForStorage): a recorded value matches any
 *   live one, and diff labels it by first appearance, as digests are keyed per recording.
 * - `secret`: stored as `<redacted>` in every message of every recording.
 */
export type FieldRole = 'client-id' | 'echoed-client-id' | EchoedFrom | 'server-id' | 'answer-id' | 'volatile' | 'write-only' | 'secret';

/** A client id echoed from the listed request places: a field spec, or `header:<name>`, a request header. */
export interface EchoedFrom {
  readonly echoedFrom: readonly string[];
}

/** A protocol's fields, each with its role, in the order echo fields are learnt. */
export type FieldRoles = { readonly [field: string]: FieldRole };

/** What the helpers read: a protocol's facts, or anything else that declares fields. */
export interface DeclaresFields {
  readonly fields?: FieldRoles;
}

function isClientId(role: FieldRole): boolean {
  return role === 'client-id' || role === 'echoed-client-id' || typeof role === 'object';
}

type RoleTest = (role: FieldRole) => boolean;

const IGNORED_WHEN_MATCHING: RoleTest = (role) => isClientId(role) || role === 'volatile';
const MATCHED_BY_PLACE: RoleTest = (role) => role === 'answer-id';
const WRITE_ONLY: RoleTest = (role) => role === 'write-only';
const VOLATILE: RoleTest = (role) => role === 'volatile';
const LABELLED: RoleTest = (role) => isClientId(role) || role === 'server-id' || role === 'answer-id' || role === 'write-only';
const SECRET: RoleTest = (role) => role === 'secret';

/** Each protocol's lists, made once: replay and the stored form ask per message. */
const listsOf = new WeakMap<FieldRoles, Map<RoleTest, readonly string[]>>();
const NONE: readonly string[] = [];

function fieldsWhere(protocol: DeclaresFields | undefined, test: RoleTest): readonly string[] {
  const fields = protocol?.fields;
  if (fields === undefined) return NONE;
  let lists = listsOf.get(fields);
  if (lists === undefined) listsOf.set(fields, (lists = new Map()));
  let list = lists.get(test);
  if (list === undefined) lists.set(test, (list = Object.entries(fields).flatMap(([field, role]) => (test(role) ? [field] : []))));
  return list;
}

/** The fields a replay ignores when it matches a request: client ids and volatile fields. */
export function matchIgnoredFieldsOf(protocol: DeclaresFields | undefined): readonly string[] {
  return fieldsWhere(protocol, IGNORED_WHEN_MATCHING);
}

/** The fields a replay matches by where their values recur in a request, not by the values: ids an earlier answer minted. */
export function matchLabelledFieldsOf(protocol: DeclaresFields | undefined): readonly string[] {
  return fieldsWhere(protocol, MATCHED_BY_PLACE);
}

/** The request places (field specs, `header:<name>`) whose values the answers echo, which a replay substitutes. */
export function echoFieldsOf(protocol: DeclaresFields | undefined): readonly string[] {
  return Object.entries(protocol?.fields ?? {}).flatMap(([field, role]) => (role === 'echoed-client-id' ? [field] : typeof role === 'object' ? role.echoedFrom : []));
}

/** The fields stored only as digests: a recorded value there matches any live one. */
export function writeOnlyFieldsOf(protocol: DeclaresFields | undefined): readonly string[] {
  return fieldsWhere(protocol, WRITE_ONLY);
}

/** The fields diff drops: volatile and no id. */
export function diffDroppedFieldsOf(protocol: DeclaresFields | undefined): readonly string[] {
  return fieldsWhere(protocol, VOLATILE);
}

/** The fields diff labels by first appearance, over every protocol, each once: ids of either side, and write-only fields. */
export function labelledFieldsOf(protocols: readonly DeclaresFields[]): readonly string[] {
  return unique(protocols.flatMap((p) => fieldsWhere(p, LABELLED)));
}

/** The secret fields over every protocol, each once. */
export function secretFieldsOf(protocols: readonly DeclaresFields[]): readonly string[] {
  return unique(protocols.flatMap((p) => fieldsWhere(p, SECRET)));
}

function unique(specs: readonly string[]): readonly string[] {
  return [...new Set(specs)];
}
