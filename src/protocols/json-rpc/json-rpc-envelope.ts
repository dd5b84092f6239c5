import { error, type Finding } from '../../core/finding.js';
import { isJsonObject } from '../../core/json.js';
import { isJsonRpcId } from './json-rpc-message.js';
import { JSON_RPC_RULES as RULES } from './json-rpc-rules.js';

/**
 * What is wrong with one JSON-RPC 2.0 message's envelope (§4–§5), `at` the pointer of the message
 * (inside a batch, its index): the members the spec defines and their types, nothing else. Members
 * it does not define are left alone, as peers leave them.
 */
export function envelopeFindings(value: unknown, at = ''): Finding[] {
  if (!isJsonObject(value)) return [error(RULES.notAnObject, at, `a JSON-RPC message is a JSON object; this is ${describe(value)}`)];
  const findings: Finding[] = [];
  if (value.jsonrpc !== '2.0') findings.push(error(RULES.version, `${at}/jsonrpc`, `\`jsonrpc\` must be exactly "2.0"; it is ${describe(value.jsonrpc)}`));
  if ('id' in value && !isJsonRpcId(value.id)) findings.push(error(RULES.invalidId, `${at}/id`, `\`id\` must be a string, a number or null; it is ${describe(value.id)}`));
  if ('method' in value) {
    if (typeof value.method !== 'string') findings.push(error(RULES.invalidMethod, `${at}/method`, `\`method\` must be a string; it is ${describe(value.method)}`));
    if ('params' in value && !(typeof value.params === 'object' && value.params !== null)) {
      findings.push(error(RULES.invalidParams, `${at}/params`, `\`params\` must be an object or an array when present; it is ${describe(value.params)}`));
    }
    return findings;
  }
  if (!('result' in value) && !('error' in value) && !('id' in value)) {
    findings.push(error(RULES.notAMessage, at, 'this object has no `method` (a request or notification) and no `result`, `error` or `id` (a response)'));
  }
  if ('error' in value && !isErrorObject(value.error)) {
    findings.push(error(RULES.invalidError, `${at}/error`, '`error` must be an object with an integer `code` and a string `message`'));
  }
  return findings;
}

function isErrorObject(value: unknown): boolean {
  return isJsonObject(value) && Number.isInteger(value.code) && typeof value.message === 'string';
}

function describe(value: unknown): string {
  if (value === undefined) return 'absent';
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'string' ? JSON.stringify(value) : `${typeof value} ${JSON.stringify(value)}`;
}
