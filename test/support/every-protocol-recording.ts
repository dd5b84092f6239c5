/**
 * A recording of every protocol's stand-in traffic (test/protocols/protocol-examples.ts), written by the
 * store's writer as record writes it: what the NDJSON and storage tests read back every form from.
 */
import { error } from '../../src/core/finding.js';
import { verdictFrom, type Verdict } from '../../src/core/verdict.js';
import { RULES_VERSION } from '../../src/core/rules-version.js';
import { TOOL_VERSION } from '../../src/core/version.js';
import { SecretTracker } from '../../src/judge/secret-tracker.js';
import { PROTOCOLS } from '../../src/protocols/modules.js';
import type { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { PROTOCOL_EXAMPLES } from '../protocols/protocol-examples.js';
import { meta } from '../store/store-fixtures.js';

const valid = { status: 'valid' as const, findings: [] };
const AGUI = 'https://ag-ui.com/spec/draft/schema.json';
const RUN_STARTED = `${AGUI}#RunStartedEvent`;

/**
 * Every protocol's stand-in conversation (protocol-examples.ts), each message judged by its checker as
 * record judges it and stored with its framing, then AG-UI messages whose line keeps its verdict: judged
 * by another ref than the derived one, invalid, not JSON, nested deeper than is handed out parsed.
 */
export function recordEveryProtocol(file: string, registry: SchemaRegistry): void {
  const w = RecordingWriter.open(file, meta({ toolVersion: TOOL_VERSION, schemaHashes: registry.hashes(), rulesVersion: RULES_VERSION }));
  let t = 0;
  for (const module of PROTOCOLS) {
    const examples = PROTOCOL_EXAMPLES[module.id]();
    const channel = examples.channels[0];
    const requestBody = examples.channels.find((c) => c.requestBody !== undefined)?.requestBody;
    const checker = module.createChecker({ registry, secrets: new SecretTracker(), requestBody, channel: { transport: channel.transport, path: channel.path } });
    const transport = channel.transport === 'file' ? 'stdio' : channel.transport;
    const id = w.beginExchange({ transport, method: channel.method, path: channel.path, subprotocol: channel.subprotocol, tOffsetMs: t++ });
    w.updateExchange(id, { protocol: module.id, status: transport === 'ws' ? 101 : transport === 'stdio' || transport === 'ndjson' ? undefined : 200 });
    for (const m of examples.conversation) {
      const text = JSON.stringify(m.value);
      const raw = m.carrier === 'event' ? `data: ${text}\n\n` : m.carrier === 'line' ? `${text}\n` : text;
      w.addMessage({ exchangeId: id, sender: m.sender, carrier: m.carrier, tOffsetMs: t++, raw: Buffer.from(raw), json: m.value, verdict: checker.judge(m) });
    }
    w.endExchange(id, { outcome: 'complete', tOffsetMs: t++ });
  }
  const agui = w.beginExchange({ transport: 'sse', method: 'POST', path: '/agent', tOffsetMs: t++ });
  w.updateExchange(agui, { protocol: 'agui', status: 200 });
  const event = (raw: string, json: unknown, verdict: Verdict) => w.addMessage({ exchangeId: agui, sender: 'server', carrier: 'event', tOffsetMs: t++, raw: Buffer.from(raw), json, verdict });
  const started = { type: 'RUN_STARTED', threadId: 't', runId: 'r' };
  event(`data: ${JSON.stringify(started)}\n\n`, started, { ...valid, schemaRef: `${AGUI}#Event` });
  event('data: {"type":"RUN_STARTED"}\n\n', { type: 'RUN_STARTED' }, verdictFrom([error('schema.required', '', 'threadId is required')], RUN_STARTED));
  event('data: [DONE]\n\n', undefined, { status: 'unchecked', reason: 'not JSON', findings: [] });
  const deep = `{"type":"RUN_FINISHED","a":${'['.repeat(600)}${']'.repeat(600)}}`;
  event(`data: ${deep}\n\n`, JSON.parse(deep), { status: 'unchecked', reason: 'nested too deep', findings: [] });
  w.endExchange(agui, { outcome: 'complete', tOffsetMs: t++ });
  w.close(new Date('2026-01-02T03:05:00.000Z'));
}

