import { classifyNdjson } from './ndjson-shape.js';

/** A lone line of the daemon's socket: a command (`operation`), or a response or event of a host, with its `protocolVersion`. */
export function sniffUnixNdjson(value: unknown): number {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 0;
  const r = value as Record<string, unknown>;
  if (typeof r.protocolVersion !== 'string') return 0;
  if (typeof r.operation === 'string') return 0.9;
  if ((r.kind === 'response' || r.kind === 'event') && typeof r.hostInstanceId === 'string') return 0.9;
  return 0;
}

/** What made sniffUnixNdjson claim a line, for `show`. */
export function unixNdjsonMessageEvidence(value: unknown): string {
  return `Pi daemon NDJSON ${classifyNdjson(value).kind}`;
}
