import type { ProtocolId } from '../protocols/catalog.js';
import { protocolById } from '../protocols/modules.js';
import type { SchemaRegistry } from '../schema/schema-registry.js';
import { judgeInput, type ValidationReport } from './judge-input.js';
import type { LoadedInput } from './message-source.js';

export type { JudgedMessage, ValidationReport, ValidationSummary } from './judge-input.js';

/**
 * Judges every message of a loaded input (judge-input.ts), at once: every protocol's module is at
 * hand. The package API's; the CLI's `validate` loads only the modules of the protocols its input
 * has (judgeInputLoading).
 */
export function validateInput(input: LoadedInput, registry: SchemaRegistry, forced?: ProtocolId): ValidationReport {
  return validateInputReporting(input, registry, forced);
}

/** validateInput, telling `onMessage` of each message judged. */
export function validateInputReporting(input: LoadedInput, registry: SchemaRegistry, forced?: ProtocolId, onMessage?: () => void): ValidationReport {
  return judgeInput(input, registry, protocolById, forced, onMessage);
}
