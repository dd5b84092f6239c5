import { Option } from 'commander';
import { parseByteSize } from '../core/byte-size.js';
import { UsageError } from '../core/errors.js';
import { parseIgnoreOption } from '../core/field-specs.js';
import { parseRecordingProtocolOption, RECORDING_PROTOCOL_CHOICES } from '../judge/protocol-option.js';
import { keepPatterns } from '../core/credential-scrubber.js';
import type { RecordingRules } from '../judge/recording-rules.js';
import { collect } from './option-parsers.js';

/** The flags `record` takes for what it stores, as commander hands them over. */
export interface RecordingRuleFlags {
  protocol?: string;
  redactHeader: string[];
  redactQuery: string[];
  redactField: string[];
  keepSecretsMatching: string[];
  maxBody?: string;
  schemas: string[];
}

/**
 * `--redact-header`, `--redact-query`, `--redact-field`, `--max-body`, `--schemas` (and, with
 * `protocol`, `--protocol`) for a command that records `what`, worded as `record` words them.
 */
export function recordingRuleOptions(what: string, protocol: boolean): Option[] {
  return [
    // No commander choices: an unknown id gets our one-line E_PROTOCOL_UNKNOWN, as on `record`.
    ...(protocol ? [new Option('--protocol <id>', `protocol of ${what}: ${RECORDING_PROTOCOL_CHOICES.join(', ')}`).default('auto')] : []),
    new Option('--redact-header <name>', `another header whose value is never stored in ${what} (repeatable)`).argParser(collect).default([]),
    new Option('--redact-query <name>', `another query parameter whose value is never stored in ${what} (repeatable)`).argParser(collect).default([]),
    new Option('--redact-field <field>', `another JSON field whose value is never stored in ${what}: a key name (any depth) or a JSON pointer (repeatable)`).argParser(collect).default([]),
    keepSecretsOption(what),
    new Option('--max-body <size>', `messages in ${what} larger than this are stored truncated: bytes, or with a unit (64KiB, 10MB) (default 10MiB)`),
    new Option('--schemas <dir>', `extra schema directory to judge ${what} with (repeatable); also AGENT_PROXY_SCHEMAS`).argParser(collect).default([]),
  ];
}

/**
 * The API options the flags stand for, checked before anything starts. `lines`: the stdio or NDJSON
 * transport, which carries no URLs (so no query to redact), named in the refusal.
 */
export function recordingRulesOf(flags: RecordingRuleFlags, lines?: '--stdio' | '--ndjson'): RecordingRules {
  const maxBodyBytes = maxBodyOf(flags.maxBody);
  const redactFields = parseIgnoreOption(flags.redactField, '--redact-field');
  const keepSecretsMatching = keepSecretsMatchingOf(flags.keepSecretsMatching);
  for (const name of flags.redactQuery) if (name.trim() === '') throw new UsageError('--redact-query needs a parameter name');
  for (const name of flags.redactHeader) if (name.trim() === '') throw new UsageError('--redact-header needs a header name');
  if (lines && flags.redactQuery.length > 0) throw new UsageError(`--redact-query goes with the HTTP proxy (${lines} carries no URLs)`);
  if (lines && flags.redactHeader.length > 0) throw new UsageError(`--redact-header goes with the HTTP proxy (${lines} carries no headers)`);
  // A family (the daemon's, `pi-daemon`): its protocols are told apart per exchange.
  const protocol = parseRecordingProtocolOption(flags.protocol);
  return {
    ...(protocol ? { protocol } : {}),
    ...(flags.redactHeader.length > 0 ? { redactHeaders: flags.redactHeader } : {}),
    ...(flags.redactQuery.length > 0 ? { redactQuery: flags.redactQuery } : {}),
    ...(redactFields.length > 0 ? { redactFields } : {}),
    ...(keepSecretsMatching.length > 0 ? { keepSecretsMatching } : {}),
    ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
    ...(flags.schemas.length > 0 ? { schemas: flags.schemas } : {}),
  };
}

/** `--keep-secrets-matching <regex>`, worded for a command that stores `what`. */
export function keepSecretsOption(what: string): Option {
  return new Option('--keep-secrets-matching <regex>', `store a credential of a well-known format (sk-…, ghp_…, AKIA…, a JWT …) in ${what} as it is when this regular expression matches it (repeatable; by default every one is redacted)`)
    .argParser(collect)
    .default([]);
}

/** The `--keep-secrets-matching` patterns, each checked to compile: one that does not is a usage error naming it. */
export function keepSecretsMatchingOf(patterns: readonly string[] | undefined): string[] {
  try {
    keepPatterns(patterns);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return [...(patterns ?? [])];
}

/** `--max-body`: a size (`10MB`, `64KiB`, bytes). */
export function maxBodyOf(value: string | undefined): number | undefined {
  return value === undefined ? undefined : parseByteSize(value, '--max-body');
}
