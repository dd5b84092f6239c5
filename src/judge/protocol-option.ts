// Light on purpose (the catalog's names, not even its facts: catalog-summary.ts): the CLI checks its options with it before anything starts.
import { ProtocolUnknownError } from '../core/errors.js';
import type { ProtocolId } from '../protocols/catalog.js';
import { CATALOG_SUMMARY } from '../protocols/catalog-summary.js';

const { ids: PROTOCOL_IDS, families: PROTOCOL_FAMILIES } = CATALOG_SUMMARY;

/** What a recording command's `--protocol` takes: auto, a family (`pi-daemon`), or a protocol's id. */
export const RECORDING_PROTOCOL_CHOICES: readonly string[] = ['auto', ...PROTOCOL_FAMILIES, ...PROTOCOL_IDS];

/**
 * A recording command's `--protocol`: a family (ProtocolFacts.family, `pi-daemon`) means its
 * protocols are told apart per exchange, as `auto` (undefined) does; else as parseProtocolOption.
 */
export function parseRecordingProtocolOption(value: string | undefined): ProtocolId | undefined {
  return value !== undefined && PROTOCOL_FAMILIES.includes(value) ? undefined : parseProtocolOption(value, PROTOCOL_FAMILIES);
}

/**
 * `--protocol`, as `record` and `validate` take it: a protocol id, or `auto` (undefined: classify);
 * anything else is ProtocolUnknownError. `names`: what else the command takes (record's families),
 * handled by the caller, named in the error.
 */
export function parseProtocolOption(value: string | undefined, names: readonly string[] = []): ProtocolId | undefined {
  if (value === undefined || value === 'auto') return undefined;
  if (!isProtocolId(value)) throw new ProtocolUnknownError(`unknown protocol '${value}'; expected ${['auto', ...names].join(', ')} or one of ${PROTOCOL_IDS.join(', ')}`);
  return value;
}

/**
 * A protocol id given through the API (`startRecorder({protocol})`, `validateInput`), checked before
 * anything starts: JavaScript callers and casts get past the type. `where` names the option.
 */
export function checkProtocolOption(value: string | undefined, where: string): ProtocolId | undefined {
  if (value === undefined || isProtocolId(value)) return value;
  throw new ProtocolUnknownError(`${where}: unknown protocol '${value}'; expected one of ${PROTOCOL_IDS.join(', ')}`);
}

export function isProtocolId(value: string): value is ProtocolId {
  return (PROTOCOL_IDS as readonly string[]).includes(value);
}
