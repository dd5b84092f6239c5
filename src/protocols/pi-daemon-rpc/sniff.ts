import { isJsonObject } from '../../core/json.js';
import { frameKindOf } from './frame-kinds.js';

const SURE = 0.9;
/** A frame kind we know, but without the payload that makes it ours. */
const UNSURE = 0.3;

/**
 * How sure we are that a lone value is a framed Pi daemon RPC frame. unix-ndjson responses and
 * events also carry `kind: "response"|"event"`, but always with `protocolVersion`, which frames
 * never have; and their `event` is a name, where a frame's is an object.
 */
export function sniffPiDaemonFrame(value: unknown): number {
  const kind = frameKindOf(value);
  if (kind === undefined) return 0;
  const frame = value as Record<string, unknown>;
  if ('protocolVersion' in frame) return 0;
  if (kind === 'response') return isJsonObject(frame.response) ? SURE : UNSURE;
  if (kind === 'event') return isJsonObject(frame.event) ? SURE : UNSURE;
  return SURE;
}
