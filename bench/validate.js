// Throughput of the AG-UI verdict path (schema + behaviour) on one core, over a real captured stream.
// Run after a build:  npx tsc -p tsconfig.json && node bench/validate.js [repetitions]
//
// The stream is the .NET capture dotnet-long-text-693-deltas-raw-usage.json (698 events, 693 one-token
// deltas, each with the provider's rawEvent) repeated as sequential runs on one stream: every repetition
// gets its own runId, as a history replay would, so the whole stream stays valid. Exits 1 if any event
// of it is judged anything but valid, or if a stream-level finding appears.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { aguiProtocol } from '../dist/protocols/agui/index.js';
import '../dist/protocols/catalog.js';
import { ACP_SCHEMA_ID } from '../dist/protocols/acp/schemas.js';
import { SchemaRegistry } from '../dist/schema/schema-registry.js';
import { MessageJudge } from '../dist/judge/message-judge.js';
import { SecretTracker } from '../dist/judge/secret-tracker.js';

const FIXTURE = fileURLToPath(new URL('../../shared/fixtures/agui/dotnet-long-text-693-deltas-raw-usage.json', import.meta.url));
const repetitions = Number(process.argv[2] ?? 300);
if (!Number.isInteger(repetitions) || repetitions < 1) {
  console.error(`validate: repetitions must be a positive integer, got '${process.argv[2]}'`);
  process.exit(2);
}

const events = JSON.parse(readFileSync(FIXTURE, 'utf8'));
const first = events[0];
const request = { threadId: first.threadId, runId: first.runId, messages: [], state: {} };

/** The capture repeated: run boundaries get a fresh runId, everything else is the captured object. */
function buildMessages(reps) {
  const messages = [];
  for (let r = 0; r < reps; r++) {
    const runId = r === 0 ? first.runId : `${first.runId}-rep-${r}`;
    for (const event of events) {
      const value = event.type === 'RUN_STARTED' || event.type === 'RUN_FINISHED' ? { ...event, runId } : event;
      messages.push({ sender: 'server', carrier: 'event', value });
    }
  }
  return messages;
}

function judgeAll(registry, messages) {
  const secrets = new SecretTracker();
  const judge = new MessageJudge(aguiProtocol.createChecker({ registry, secrets, requestBody: request }), secrets);
  let valid = 0;
  let invalid = 0;
  let firstBad;
  const start = process.hrtime.bigint();
  for (let i = 0; i < messages.length; i++) {
    const verdict = judge.judge(messages[i]);
    if (verdict.status === 'valid') valid++;
    else {
      if (verdict.status === 'invalid') invalid++;
      firstBad ??= { index: i, verdict };
    }
  }
  const streamFindings = judge.end('complete');
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { valid, invalid, firstBad, streamFindings, seconds };
}

const registry = SchemaRegistry.load({ useEnv: false, without: [ACP_SCHEMA_ID] });
// Warm-up: compile the validators and let the JIT settle before the timed pass.
judgeAll(registry, buildMessages(Math.min(20, repetitions)));

const messages = buildMessages(repetitions);
const { valid, invalid, firstBad, streamFindings, seconds } = judgeAll(registry, messages);
const total = messages.length;
const rate = Math.round(total / seconds);

console.log(`fixture: ${events.length} events × ${repetitions} runs = ${total} events, ${seconds.toFixed(3)} s`);
console.log(`valid: ${valid} of ${total} (${((100 * valid) / total).toFixed(2)} %)`);
if (firstBad) console.log(`first non-valid event #${firstBad.index}: ${JSON.stringify(firstBad.verdict)}`);
if (streamFindings.length > 0) console.log(`stream findings: ${JSON.stringify(streamFindings)}`);
console.log(`validate: ${rate} events/s (schema + behaviour), ${total} events, ${invalid} invalid`);

// What the recorder really does per event: parse the wire text, then judge it.
const texts = messages.map((m) => JSON.stringify(m.value));
const parsedStart = process.hrtime.bigint();
const parsed = judgeAll(registry, texts.map((text) => ({ sender: 'server', carrier: 'event', value: JSON.parse(text), text })));
const parsedSeconds = Number(process.hrtime.bigint() - parsedStart) / 1e9;
console.log(`validate+parse: ${Math.round(total / parsedSeconds)} events/s (JSON.parse + schema + behaviour), ${parsed.invalid} invalid`);
process.exit(invalid > 0 || parsed.invalid > 0 || valid !== total || streamFindings.length > 0 ? 1 : 0);
