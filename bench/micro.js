// Micro benchmarks of the recording pipeline's parts, each on the real modules of a build's dist,
// so that a change is measured where it acts. Each figure is the median CPU time per operation
// (process.cpuUsage(), user + system, all threads: the GC an operation's garbage causes is in it)
// over several rounds after a warm-up, with the operations per CPU second it gives (bench/lib/micro-timer.js).
//   framers (ns per event, line or frame): SseFramer over an AG-UI stream of TEXT_MESSAGE_CONTENT
//     events, 64 per chunk (`sse64`) and one per chunk (`sse1`); LineFramer over Pi RPC NDJSON lines,
//     64 per chunk (`lines`); LengthPrefixedFramer over AG-UI protobuf frames, 64 per chunk (`proto`).
//   judge (µs per message): MessagePipeline.read + verdict, as the recorder's worker reads and judges
//     one message with its stream's MessageJudge: an AG-UI TEXT_MESSAGE_CONTENT event on an SSE
//     stream (`judge-agui`), a Pi RPC queue_update text frame on a `pi-rpc.v1` WebSocket
//     (`judge-pi-rpc`), a 372-byte Pi daemon REST ticket envelope, GET /v1/ticket/{id} → 200 (`judge-pi-rest`),
//     an MCP server's notifications/message line on stdio, judged by the 2025-11-25 schema (`judge-mcp`).
//     An AG-UI STATE_DELTA that cannot apply to a ~1 MB run-input state, failing at its first
//     operation (`judge-agui-bad-delta`) or its second (`judge-agui-bad-delta2`); one like those of
//     test/hostile/deep-json.test.ts, a value 400 levels deep added 800 levels down a 401-deep state (`judge-agui-deep-delta`).
//   writer (µs per message or exchange): RecordingWriter on a fresh temp file, SQLite included: the
//     62-byte frame with its JSON text and a valid verdict (`writer-ws`); a whole reconcile exchange,
//     beginExchange + updateExchange + 2 addMessage + endExchange (`writer-rest`). Rows are written in
//     one transaction per 1000 queued rows, the writer's default batch (a flush once 1000 are queued;
//     --batch N for another size: the recording worker may pass the writer a smaller maxBatch);
//     the floor under them, an SSE event's messages row inserted by better-sqlite3 alone, 16 rows per
//     statement and 1000 per transaction, without the writer (`sqlite-insert`).
//   worker (µs per message, event or exchange): the worker's side of recording, inline: a
//     TrafficRecorder with a real writer judging and storing the same frame (`worker-ws`), the same
//     reconcile exchange as the forwarder hands it over (`worker-rest`), and AG-UI events pushed through
//     the SSE tap, 64 per chunk (`worker-sse64`). Framing + judging + redaction + writing, without the
//     hand-over from the capture thread (bench/record-pipeline.js measures that).
//   facts (ns per object): what a message's recording makes per message, on its own: a WebSocket text frame's
//     facts in the worker (`facts-preset`), a judged NDJSON line's (`facts-line`), an unchecked verdict with
//     an error (`facts-unchecked`), an OpenAI route looked up as classify and the checker do (`facts-route`).
//   handover (µs per exchange or frame): a REST exchange's headers crossing to the recording worker: made and
//     encoded on the capture thread (`handover-headers`), decoded and made the stored text in the
//     worker (`worker-headers`); a WebSocket's text frames' record ops, 64 per batch, encoded on the
//     capture thread (`handover-ws`) and decoded in the worker (`worker-ws-ops`).
// Run (after a build):  node bench/micro.js [--quick | --smoke] [--dist PATH] [--only a,b] [--rounds N] [--batch N]
//   --quick: a fifth of the iterations, 3 rounds; --smoke: every case once, a hundredth of them, 1 round
//   (no figure worth reading: test/bench/bench-smoke.test.ts runs it so that a case cannot rot); --dist: another build's dist folder (e.g. a copy of an
//   earlier one, kept inside the checkout so that its imports find node_modules), for before/after; --only: cases or groups (framers, facts, handover, judge, writer, worker), comma-separated.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { measureCpu } from './lib/micro-timer.js';

const argValue = (name) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const quick = process.argv.includes('--quick');
const smoke = process.argv.includes('--smoke');
const DIST = resolve(argValue('--dist') ?? new URL('../dist', import.meta.url).pathname);
const ONLY = argValue('--only')?.split(',');
const ROUNDS = Number(argValue('--rounds') ?? (smoke ? 1 : quick ? 3 : 5));
const SCALE = smoke ? 0.01 : quick ? 0.2 : 1;
/** Rows written in one transaction: by default the writer's default maxBatch (the worker may set fewer). */
const BATCH_ROWS = Number(argValue('--batch') ?? 1000);
if (!Number.isInteger(BATCH_ROWS) || BATCH_ROWS < 1) {
  console.error(`--batch ${argValue('--batch')}: a number of rows, 1 or more`);
  process.exit(2);
}

const load = (path) => import(pathToFileURL(join(DIST, path)).href);

// --- The traffic --------------------------------------------------------------------------------

/** An AG-UI text delta as the bench upstream writes it (bench/upstream.js). */
/** One AG-UI text delta's bytes, as a messages row holds them. */
const SSE_ROW_RAW = Buffer.from('data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"tok12 "}\n\n');
const sseEvent = (i) => `data: ${JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: `tok${i % 1000} ` })}\n\n`;
const SSE_START = [
  { type: 'RUN_STARTED', threadId: 'bench-thread', runId: 'bench-run' },
  { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
]
  .map((event) => `data: ${JSON.stringify(event)}\n\n`)
  .join('');
const RUN_INPUT = { threadId: 'bench-thread', runId: 'bench-run', state: {}, messages: [], tools: [], context: [], forwardedProps: {} };
/** A ~1.1 MB agent state (8,000 items). */
const bigState = () => ({ items: Array.from({ length: 8000 }, (_, i) => ({ id: i, title: `item ${i}`, tags: ['a', 'b', 'c'], note: 'x'.repeat(80) })) });
/** `{ a: { a: … 1 } }`, `levels` objects deep. */
const nested = (levels) => {
  let value = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
};

const sseChunk = (events) => Buffer.from(Array.from({ length: events }, (_, i) => sseEvent(i)).join(''));

/** A Pi RPC text delta, shaped like those `pi --mode rpc` prints. */
const piLine = (i) =>
  `${JSON.stringify({
    type: 'message_update',
    message: { role: 'assistant', content: [{ type: 'text', text: `tok${i} ` }] },
    assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta: `tok${i} ` },
  })}\n`;
const linesChunk = (lines) => Buffer.from(Array.from({ length: lines }, (_, i) => piLine(i)).join(''));

/** Length-prefixed frames with a 32-byte payload, the size of a short protobuf TEXT_MESSAGE_CONTENT. */
function protoChunk(frames) {
  const frame = Buffer.alloc(4 + 32);
  frame.writeUInt32BE(32, 0);
  for (let i = 4; i < frame.length; i++) frame[i] = (i * 37) & 0xff;
  return Buffer.concat(Array.from({ length: frames }, () => frame));
}

/** A Pi RPC event on a `pi-rpc.v1` WebSocket: 62 bytes. */
const WS_TEXT = '{"type":"queue_update","steering":[],"followUp":["message 1"]}';
const WS_FRAME = Buffer.from(WS_TEXT);
const WS_HINT = { transport: 'ws', method: 'GET', path: '/v1/session/agent-a/rpc', subprotocol: 'pi-rpc.v1' };

const TICKET_PATH = '/v1/ticket/ticket-bench';
const ticketEnvelope = (state) =>
  JSON.stringify({
    apiVersion: '1.0',
    requestId: 'req-1',
    hostInstanceId: 'host-1',
    ok: true,
    data: {
      ticketId: 'ticket-bench',
      requestId: 'req-1',
      idempotencyKey: 'key-1',
      operation: 'prompt',
      state,
      submittedAt: '2026-12-02T06:00:00.000Z',
      updatedAt: '2026-12-02T06:00:01.000Z',
      sessionId: 'agent-a',
      links: { self: TICKET_PATH, session: '/v1/session/agent-a' },
    },
  });
/** An MCP session's initialize, its result and notifications/initialized, then a server's log line. */
const MCP_OPENING = [
  ['client', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }],
  ['server', { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', capabilities: { logging: {}, tools: {} }, serverInfo: { name: 'bench', version: '1' } } }],
  ['client', { jsonrpc: '2.0', method: 'notifications/initialized' }],
];
const MCP_LOG_LINE = Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'bench', data: { step: 3, of: 10, note: 'indexing the workspace' } } }));

/** GET /v1/ticket/{id} → 200: the judge's REST message. */
const TICKET_BODY = Buffer.from(ticketEnvelope('running'));
/** POST /v1/ticket/{id}/reconcile and its 200: the writer's and the worker's REST exchange. */
const RECONCILE_PATH = `${TICKET_PATH}/reconcile`;
const RECONCILE_REQUEST = Buffer.from(JSON.stringify({ requestId: 'req-1', state: 'succeeded', evidence: { piEntryIds: ['entry-1'] } }));
const RECONCILE_RESPONSE = Buffer.from(ticketEnvelope('succeeded'));
const REQUEST_HEADERS = ['Host', '127.0.0.1:8788', 'User-Agent', 'bench', 'Content-Type', 'application/json', 'Authorization', 'Bearer secret', 'X-Request-Id', 'req-1', 'Idempotency-Key', 'key-1'];
const RESPONSE_HEADERS = ['content-type', 'application/json', 'content-length', String(RECONCILE_RESPONSE.length), 'Date', 'Wed, 02 Dec 2026 06:00:00 GMT', 'Connection', 'keep-alive'];

/** 8 KB of prose and JSON-ish text, with near misses of credential prefixes (`sk-learn`, a short `eyJ`). */
const TEXT_BODY = Buffer.from('The agent said: see sk-learn and task-force notes; eyJ is base64 for {". '.repeat(110).slice(0, 8192));
const PI_API = 'https://a.skh.am/pi-daemon/session-api.schema.json';
const valid = (def) => ({ status: 'valid', schemaRef: `${PI_API}#/$defs/${def}`, findings: [] });

// --- Shared set-up ------------------------------------------------------------------------------

let scratch;
/** A folder for the recordings, removed at exit. */
function scratchDir() {
  scratch ??= mkdtempSync(join(tmpdir(), 'agent-proxy-micro-'));
  return scratch;
}
process.on('exit', () => scratch && rmSync(scratch, { recursive: true, force: true }));

/** Never writes in the background: the bench flushes itself, so that every write is timed. */
const NO_BACKGROUND_WRITES = { later: () => () => {}, soon: () => () => {} };

let files = 0;
/** Makes writers, each on a fresh file, with how to close and remove it. */
async function writerFactory(registry) {
  const { RecordingWriter } = await load('store/recording-writer.js');
  const { TOOL_VERSION } = await load('core/version.js');
  return () => {
    const file = join(scratchDir(), `r${files++}.db`);
    const meta = { toolVersion: TOOL_VERSION, target: 'http://127.0.0.1:1', mode: 'record', schemaHashes: registry?.hashes() ?? {}, startedAt: new Date() };
    // maxBatch as the bench flushes: the writer's backstop (eight batches) never writes for it.
    const writer = RecordingWriter.open(file, meta, { schedule: NO_BACKGROUND_WRITES, maxBatch: BATCH_ROWS });
    const close = () => {
      writer.close(new Date());
      for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(file + suffix, { force: true });
    };
    return { writer, close };
  };
}

let registryLoaded;
const loadRegistry = async () => {
  // The catalog declares the protocols' schemas (a build before it loaded them itself).
  await load('protocols/catalog.js');
  const { SchemaRegistry } = await load('schema/schema-registry.js');
  // As the worker loads it, without $AGENT_PROXY_SCHEMAS: the figures do not depend on the shell.
  return (registryLoaded ??= SchemaRegistry.load({ useEnv: false }));
};

/** Throws unless `verdict` is valid: a case must measure the path it names, not an error path. */
function expectValid(name, verdict) {
  if (verdict.status !== 'valid') throw new Error(`${name}: the message was judged ${verdict.status}: ${JSON.stringify(verdict)}`);
}

// --- The cases ----------------------------------------------------------------------------------

/**
 * Each case: its name, its group, what one operation is, how many iterations a round has (each of
 * `ops` operations), and `prepare`, which loads the modules and returns measureCpu's setup/iterate.
 */
const CASES = [
  framerCase('sse64', 'SseFramer, AG-UI events, 64 per chunk', 'event', 14_000, 'framing/sse-framer.js', 'SseFramer', sseChunk(64), 64),
  framerCase('sse1', 'SseFramer, AG-UI events, 1 per chunk', 'event', 800_000, 'framing/sse-framer.js', 'SseFramer', sseChunk(1), 1),
  framerCase('lines', 'LineFramer, Pi RPC NDJSON lines, 64 per chunk', 'line', 16_000, 'framing/line-framer.js', 'LineFramer', linesChunk(64), 64),
  framerCase('proto', 'LengthPrefixedFramer, 36-byte frames, 64 per chunk', 'frame', 10_000, 'framing/length-prefixed-framer.js', 'LengthPrefixedFramer', protoChunk(64), 64),
  handoverCase('handover-headers', "capture: a REST exchange's open and update ops, encoded", (batch) => batch.encode()),
  handoverCase('worker-headers', 'worker: the same decoded, headers to stored text', (batch) => batch.decode()),
  framesHandoverCase('handover-ws', "capture: 64 WebSocket text frames' record ops, encoded", (batch) => batch.encode()),
  framesHandoverCase('worker-ws-ops', 'worker: the same decoded, each frame a Buffer', (batch) => batch.decode()),
  judgeCase('judge-agui', 'AG-UI TEXT_MESSAGE_CONTENT on SSE', 600_000, async (pipeline, chooseProtocol) => {
    const module = chooseProtocol({ hint: { transport: 'sse', method: 'POST', path: '/agent', contentType: 'text/event-stream', requestBody: RUN_INPUT } });
    const judge = pipeline.judgeFor(module, RUN_INPUT, { transport: 'sse', path: '/agent' });
    const event = (text) => ({ raw: Buffer.from(text), facts: { carrier: 'event', payload: text.slice('data: '.length, -2) } });
    // The run and the message are open, as in a stream: each delta after them is valid.
    for (const text of SSE_START.split(/(?<=\n\n)/)) {
      const { raw, facts } = event(text);
      expectValid('judge-agui', pipeline.verdict(pipeline.read('server', raw, facts, undefined), facts, judge));
    }
    return { judge, ...event(sseEvent(7)), http: undefined };
  }),
  failedDeltaCase('judge-agui-bad-delta', 'AG-UI STATE_DELTA failing at its first operation, 1 MB state', bigState, [{ op: 'replace', path: '/missing', value: 1 }]),
  failedDeltaCase('judge-agui-bad-delta2', 'AG-UI STATE_DELTA failing at its second operation, 1 MB state', bigState, [
    { op: 'add', path: '/fresh', value: 1 },
    { op: 'test', path: '/items/0/id', value: -1 },
  ]),
  // test/hostile/deep-json.test.ts's deltas: each adds a value 400 levels deep 400 levels below the last one.
  failedDeltaCase('judge-agui-deep-delta', 'AG-UI STATE_DELTA 800 levels down a 401-deep state', () => nested(401), [{ op: 'add', path: '/a'.repeat(801), value: nested(400) }]),
  judgeCase('judge-pi-rpc', 'Pi RPC queue_update frame, pi-rpc.v1', 600_000, async (pipeline, chooseProtocol) => {
    const module = chooseProtocol({ hint: WS_HINT });
    const judge = pipeline.judgeFor(module, undefined, { transport: 'ws', path: WS_HINT.path });
    return { judge, raw: WS_FRAME, facts: { carrier: 'frame', channel: 'text' }, http: undefined };
  }),
  judgeCase('judge-pi-rest', `Pi REST ticket envelope, ${TICKET_BODY.length} bytes`, 100_000, async (pipeline, chooseProtocol) => {
    const module = chooseProtocol({ hint: { transport: 'http', method: 'GET', path: TICKET_PATH, contentType: 'application/json' } });
    const judge = pipeline.judgeFor(module, undefined, { transport: 'http', path: TICKET_PATH });
    const http = { method: 'GET', path: TICKET_PATH, status: 200, requestHeaders: { 'x-request-id': 'req-1' }, responseHeaders: { 'content-type': 'application/json' } };
    return { judge, raw: TICKET_BODY, facts: { carrier: 'body', json: true, totalBytes: TICKET_BODY.length, http }, http };
  }),
  judgeCase('judge-mcp', `MCP notifications/message line on stdio, ${MCP_LOG_LINE.length} bytes`, 300_000, async (pipeline, chooseProtocol) => {
    const module = chooseProtocol({ hint: { transport: 'stdio', sniffed: { protocol: 'mcp', evidence: 'MCP method initialize' } } });
    const judge = pipeline.judgeFor(module, undefined, { transport: 'stdio' });
    const line = (value) => ({ raw: Buffer.from(JSON.stringify(value)), facts: { carrier: 'line', payload: JSON.stringify(value) } });
    // The session is initialized, as in a running server: its log lines are judged by the negotiated version.
    for (const [sender, value] of MCP_OPENING) {
      const { raw, facts } = line(value);
      expectValid('judge-mcp', pipeline.verdict(pipeline.read(sender, raw, facts, undefined), facts, judge));
    }
    return { judge, raw: MCP_LOG_LINE, facts: { carrier: 'line', payload: MCP_LOG_LINE.toString('utf8') }, http: undefined };
  }),
  factsCase('facts-preset', "a WebSocket text frame's facts, in the worker", 'record/worker/recorder-ops.js', (ops) => {
    const http = { method: 'GET', path: WS_HINT.path };
    // An older build made them with a spread in the worker's op loop: the same here.
    const of = ops.presetRecordOptions ?? ((index, at, context) => ({ ...ops.RECORD_PRESETS[index], at, http: context }));
    return (i) => of(0, i, http);
  }),
  factsCase('facts-line', "a judged NDJSON line's facts", 'record/pipeline/line-record.js', ({ recordLine }) => {
    let facts;
    const exchange = { record: (_sender, _raw, options) => (facts = options) };
    const frame = { raw: MCP_LOG_LINE, text: MCP_LOG_LINE.toString('utf8'), totalBytes: MCP_LOG_LINE.length, unterminated: false, invalidUtf8: false };
    return (i) => {
      recordLine(exchange, { sender: 'server', channel: 'stdout', frame, at: i, judge: true });
      return facts;
    };
  }),
  factsCase('facts-route', 'an OpenAI chat route found in its path', 'protocols/openai/routes.js', ({ routeOf }) => () => routeOf('POST', '/v1/chat/completions')),
  factsCase('facts-unchecked', 'an unchecked verdict with an error', 'core/verdict.js', ({ unchecked }) => {
    const findings = [{ severity: 'error', code: 'id-mismatch', pointer: '/id', message: '/id: no request has this id' }];
    return (i) => unchecked('no schema for this method', findings, i & 1 ? 'https://example.com/schema.json#/$defs/Request' : undefined);
  }),
  {
    name: 'writer-ws',
    group: 'writer',
    what: `addMessage, ${WS_FRAME.length}-byte WebSocket text frame`,
    unit: 'message',
    iterations: 100_000,
    async prepare() {
      const newWriter = await writerFactory();
      const value = JSON.parse(WS_TEXT);
      const verdict = valid('piRpcEvent');
      return {
        setup() {
          const opened = newWriter();
          const exchangeId = opened.writer.beginExchange({ transport: 'ws', method: 'GET', path: WS_HINT.path, subprotocol: WS_HINT.subprotocol, tOffsetMs: 0 });
          opened.writer.flush();
          return { ...opened, exchangeId };
        },
        iterate({ writer, exchangeId }, i) {
          // With where its text is in raw, as the recorder gives it (a build before that ignores it).
          writer.addMessage({ exchangeId, sender: 'server', carrier: 'frame', channel: 'text', tOffsetMs: i, raw: WS_FRAME, json: value, jsonText: WS_TEXT, jsonTextAt: 0, verdict });
          if (writer.pending >= BATCH_ROWS) writer.flush();
        },
        finish: ({ writer }) => writer.flush(),
        teardown: ({ close }) => close(),
      };
    },
  },
  {
    name: 'writer-text',
    group: 'writer',
    what: `addMessage, ${TEXT_BODY.length}-byte text body (no credential; every stored text is scanned for one)`,
    unit: 'message',
    iterations: 20_000,
    async prepare() {
      const newWriter = await writerFactory();
      const verdict = { status: 'unchecked', findings: [], reason: 'not a JSON message' };
      return {
        setup() {
          const opened = newWriter();
          const exchangeId = opened.writer.beginExchange({ transport: 'http', method: 'POST', path: '/notes', tOffsetMs: 0 });
          opened.writer.flush();
          return { ...opened, exchangeId };
        },
        iterate({ writer, exchangeId }, i) {
          writer.addMessage({ exchangeId, sender: 'client', carrier: 'body', tOffsetMs: i, raw: TEXT_BODY, verdict });
          if (writer.pending >= BATCH_ROWS) writer.flush();
        },
        finish: ({ writer }) => writer.flush(),
        teardown: ({ close }) => close(),
      };
    },
  },
  {
    name: 'writer-rest',
    group: 'writer',
    what: 'begin + update + 2 addMessage + end, reconcile',
    unit: 'exchange',
    iterations: 30_000,
    async prepare() {
      const newWriter = await writerFactory();
      const { HeaderRedactor } = await load('judge/header-redaction.js');
      const redactor = new HeaderRedactor();
      const requestHeaders = redactor.record(REQUEST_HEADERS);
      const responseHeaders = redactor.record(RESPONSE_HEADERS);
      const request = { raw: RECONCILE_REQUEST, text: RECONCILE_REQUEST.toString(), value: JSON.parse(RECONCILE_REQUEST.toString()) };
      const response = { raw: RECONCILE_RESPONSE, text: RECONCILE_RESPONSE.toString(), value: JSON.parse(RECONCILE_RESPONSE.toString()) };
      const requestVerdict = { status: 'valid', schemaRef: 'session-api.openapi.json#/paths/~1ticket~1{ticketId}~1reconcile/post/requestBody', findings: [] };
      const responseVerdict = valid('ticketEnvelope');
      return {
        setup: newWriter,
        iterate({ writer }, i) {
          const at = i * 2;
          const id = writer.beginExchange({ transport: 'http', method: 'POST', path: RECONCILE_PATH, url: RECONCILE_PATH, requestHeaders, tOffsetMs: at });
          writer.updateExchange(id, { protocol: 'pi-rest' });
          writer.addMessage({ exchangeId: id, sender: 'client', carrier: 'body', tOffsetMs: at, raw: request.raw, json: request.value, jsonText: request.text, verdict: requestVerdict });
          writer.updateExchange(id, { status: 200, responseHeaders });
          writer.addMessage({ exchangeId: id, sender: 'server', carrier: 'body', tOffsetMs: at + 1, raw: response.raw, json: response.value, jsonText: response.text, verdict: responseVerdict });
          writer.endExchange(id, { outcome: 'complete', tOffsetMs: at + 1 });
          if (writer.pending >= BATCH_ROWS) writer.flush();
        },
        finish: ({ writer }) => writer.flush(),
        teardown: ({ close }) => close(),
      };
    },
  },
  {
    // The floor under every stored message: better-sqlite3 alone, no writer, no JSON, no redaction.
    name: 'sqlite-insert',
    group: 'writer',
    what: `an SSE event's messages row (${SSE_ROW_RAW.length} bytes raw), INSERT of 16 rows per statement, 1000 per transaction, better-sqlite3 alone`,
    unit: 'row',
    iterations: 200_000 / 16,
    ops: 16,
    async prepare() {
      const [{ openDatabase }, { migrate }, columns, { MESSAGE_COLUMNS }] = await Promise.all([
        load('store/open-database.js'),
        load('store/migrations.js'),
        load('store/columns.js'),
        load('store/schema.js'),
      ]);
      // The row as the writer queues it; the statement of the columns the writer binds for it (a build before it bound only those: all of them).
      const fields = ['id', 'exchangeId', 'seq', 'sender', 'carrier', 'channel', 'tOffsetMs', 'raw', 'status', 'findingCount', 'jsonAt', 'schemaRefId'];
      const written = columns.nullTest ? columns.pickColumns(MESSAGE_COLUMNS, fields) : MESSAGE_COLUMNS;
      // A stream's chunk shares sender, carrier, channel, status and finding count: a build that has
      // sqlLiteral writes them into the statement, binding only the rest.
      const SHARED = { sender: "'server'", carrier: "'event'", channel: 'NULL', status: "'valid'", findingCount: '0.0' };
      const literals = columns.sqlLiteral ? SHARED : {};
      const bound = columns.pickColumns(written, Object.keys(written).filter((field) => literals[field] === undefined));
      return {
        setup() {
          const file = join(scratchDir(), `s${files++}.db`);
          const db = openDatabase(file);
          migrate(db, file);
          db.exec("INSERT INTO exchanges (id, transport, started_ms) VALUES (1, 'sse', 0)");
          const statement = db.prepare(columns.insertSql('messages', written, 16, literals));
          const bind = columns.rowsBinder(bound, 16);
          let id = 1;
          const rows = [];
          const insert = db.transaction((chunks) => {
            for (let c = 0; c < chunks; c++) {
              rows.length = 0;
              for (let k = 0; k < 16; k++, id++) {
                rows.push({ id, exchangeId: 1, seq: id, sender: 'server', carrier: 'event', channel: null, tOffsetMs: id / 64, raw: SSE_ROW_RAW, rawTruncatedFrom: null, json: null, status: 'valid', schemaRef: null, reason: null, findingCount: 0, jsonAt: 6, schemaRefId: 1 });
              }
              statement.run(bind(rows));
            }
          });
          const close = () => {
            db.close();
            for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(file + suffix, { force: true });
          };
          return { insert, queued: 0, close };
        },
        iterate(state) {
          // 1000 rows per transaction, as the worker's writer under a flood (its backstop: 8 × 128).
          if (++state.queued * 16 >= 1000) {
            state.insert(state.queued);
            state.queued = 0;
          }
        },
        finish: (state) => state.queued > 0 && state.insert(state.queued),
        teardown: ({ close }) => close(),
      };
    },
  },
  workerCase('worker-ws', 'TrafficRecorder, the Pi RPC frame', 'message', 50_000, 1, (recorder, _redactor, ops) => {
    const exchange = recorder.openExchange({ transport: 'ws', method: 'GET', path: WS_HINT.path, url: WS_HINT.path, subprotocol: WS_HINT.subprotocol }, 0);
    exchange.classify(WS_HINT);
    // As the worker hands a frame on (recording-worker-main.ts): the text preset's facts with the capture's
    // time, written out as the worker makes them (an older build's worker spread them, and so does this then).
    const facts = ops.presetRecordOptions ?? ((index, at, http) => ({ ...ops.RECORD_PRESETS[index], at, http }));
    return (i) => exchange.record('server', WS_FRAME, facts(0, i, undefined));
  }),
  workerCase('worker-rest', 'TrafficRecorder, the whole reconcile exchange', 'exchange', 10_000, 1, (recorder, redactor) => {
    const route = { method: 'POST', path: RECONCILE_PATH };
    // The ops the HTTP forwarder sends for it (bench/record-pipeline.js), as the worker applies them.
    return (i) => {
      const at = i * 2;
      // As capture hands them over: the redacted pairs (a build before that: their record), new for each exchange.
      const requestHeaders = redactor.recordPairs ? redactor.recordPairs(REQUEST_HEADERS) : redactor.record(REQUEST_HEADERS);
      const responseHeaders = redactor.recordPairs ? redactor.recordPairs(RESPONSE_HEADERS) : redactor.record(RESPONSE_HEADERS);
      const exchange = recorder.openExchange({ transport: 'http', ...route, query: undefined, url: RECONCILE_PATH, requestHeaders }, at);
      exchange.classify({ transport: 'http', ...route });
      exchange.record('client', RECONCILE_REQUEST, { carrier: 'body', json: true, totalBytes: RECONCILE_REQUEST.length, at, http: { ...route } });
      exchange.update({ status: 200, transport: 'http', responseHeaders });
      exchange.classify({ transport: 'http', ...route, contentType: 'application/json' });
      exchange.record('server', RECONCILE_RESPONSE, { carrier: 'body', json: true, totalBytes: RECONCILE_RESPONSE.length, at: at + 1, http: { ...route, status: 200 } });
      exchange.end({ outcome: 'complete', errorCode: undefined, errorMessage: undefined }, at + 1);
    };
  }),
  workerCase('worker-sse64', 'TrafficRecorder, SSE tap, 64 AG-UI events per chunk', 'event', 1_250, 64, (recorder) => {
    const route = { method: 'POST', path: '/agent' };
    const exchange = recorder.openExchange({ transport: 'http', ...route, url: route.path, requestHeaders: {} }, 0);
    exchange.classify({ transport: 'http', ...route });
    const input = Buffer.from(JSON.stringify(RUN_INPUT));
    exchange.record('client', input, { carrier: 'body', json: true, totalBytes: input.length, at: 0, http: { ...route } });
    exchange.update({ status: 200, transport: 'sse', responseHeaders: { 'content-type': 'text/event-stream' } });
    exchange.classify({ transport: 'sse', ...route, contentType: 'text/event-stream' });
    const tap = exchange.tap({ kind: 'sse', sender: 'server' });
    tap.push(Buffer.from(SSE_START), 0);
    const chunk = sseChunk(64);
    return (i) => tap.push(chunk, i);
  }),
];

/**
 * One object a message's recording makes (its facts, its verdict), made 1,000 times per iteration: `make(i)`
 * from `prepare(module)`. Spreads that add keys are V8's slow path on Node 20; these are written out.
 */
function factsCase(name, what, path, prepare) {
  return {
    name,
    group: 'facts',
    what,
    unit: 'object',
    iterations: 2_000,
    ops: 1_000,
    async prepare() {
      const make = prepare(await load(path));
      return {
        setup: () => ({ kept: undefined }),
        iterate(state) {
          for (let i = 0; i < 1_000; i++) state.kept = make(i);
        },
      };
    },
  };
}

function framerCase(name, what, unit, iterations, path, className, chunk, perChunk) {
  return {
    name,
    group: 'framers',
    what,
    unit,
    iterations,
    ops: perChunk,
    async prepare() {
      const Framer = (await load(path))[className];
      const check = new Framer().push(chunk).length;
      if (check !== perChunk) throw new Error(`${name}: the framer found ${check} messages in a chunk of ${perChunk}`);
      return {
        setup: () => ({ framer: new Framer(), found: 0 }),
        iterate(state) {
          state.found += state.framer.push(chunk).length;
        },
      };
    },
  };
}

/**
 * The hand-over of an HTTP exchange's headers, ten exchanges per batch as under load: on the capture
 * thread, the headers as the forwarder makes them (HeaderRedactor) in the exchange's open and update
 * ops, encoded and packed (`handover-headers`); in the worker, the batch decoded and each header set
 * turned into the text the store writes (`worker-headers`). The rest of the exchange is not in it.
 */
function handoverCase(name, what, step) {
  return {
    name,
    group: 'handover',
    what,
    unit: 'exchange',
    iterations: 20_000,
    ops: 10,
    async prepare() {
      const [{ HeaderRedactor }, ops, { encodeOps, packBatch, decodeBatch }, json] = await Promise.all([
        load('judge/header-redaction.js'),
        load('record/worker/recorder-ops.js'),
        load('record/worker/op-batch.js'),
        load('core/serialised-json.js').catch(() => ({})),
      ]);
      const redactor = new HeaderRedactor();
      // A build before the pairs crossed: the record crossed, and the store serialised it again.
      const headers = (raw) => (redactor.recordPairs ? redactor.recordPairs(raw) : redactor.record(raw));
      const toStart = ops.toWireStart ?? ((start) => start);
      const toUpdate = ops.toWireUpdate ?? ((update) => update);
      const fromWire = ops.fromWireHeaders ?? ((given) => given);
      const storedText = json.jsonTextOf ?? ((given) => JSON.stringify(given));
      const encode = () => {
        const batch = [];
        for (let k = 0; k < 10; k++) {
          batch.push([ops.OP.open, k, k, toStart({ transport: 'http', method: 'POST', path: RECONCILE_PATH, url: RECONCILE_PATH, requestHeaders: headers(REQUEST_HEADERS) })]);
          batch.push([ops.OP.update, k, toUpdate({ status: 200, transport: 'http', responseHeaders: headers(RESPONSE_HEADERS) })]);
        }
        return packBatch(encodeOps(batch, 0));
      };
      const packed = encode();
      let text = 0;
      const decode = () => {
        for (const op of decodeBatch(packed)) text += storedText(fromWire(op[0] === ops.OP.open ? op[3].requestHeaders : op[2].responseHeaders)).length;
      };
      return {
        iterate: () => step({ encode, decode }),
        teardown: () => {
          if (name === 'worker-headers' && text === 0) throw new Error(`${name}: no header text made`);
        },
      };
    },
  };
}

/**
 * A WebSocket's frames crossing to the recording worker, 64 per batch as one socket read of the relay
 * brings them: the record ops capture makes (the text preset, each frame a view into the read) encoded
 * and packed (`encode`), and the worker's decoding of them (`decode`).
 */
function framesHandoverCase(name, what, step) {
  return {
    name,
    group: 'handover',
    what,
    unit: 'frame',
    iterations: 20_000,
    ops: 64,
    async prepare() {
      const [ops, { encodeOps, packBatch, decodeBatch }] = await Promise.all([load('record/worker/recorder-ops.js'), load('record/worker/op-batch.js')]);
      const read = Buffer.concat(Array.from({ length: 64 }, () => Buffer.concat([Buffer.from([0x81, WS_FRAME.length]), WS_FRAME])));
      const frames = Array.from({ length: 64 }, (_, k) => read.subarray(k * (WS_FRAME.length + 2) + 2, (k + 1) * (WS_FRAME.length + 2)));
      const encode = () => {
        const batch = [];
        for (let k = 0; k < 64; k++) batch.push([ops.OP.record, 1, 'server', frames[k], 1000.125 + k, 0, null]);
        return packBatch(encodeOps(batch, 64 * WS_FRAME.length));
      };
      const packed = encode();
      let bytes = 0;
      const decode = () => {
        for (const op of decodeBatch(packed)) bytes += op[3].length;
      };
      return {
        iterate: () => step({ encode, decode }),
        teardown: () => {
          if (name === 'worker-ws-ops' && bytes === 0) throw new Error(`${name}: no frame decoded`);
        },
      };
    },
  };
}

/** `open(pipeline, chooseProtocol)` returns the stream's judge, the message's bytes, its facts and route. */
/**
 * A STATE_DELTA that cannot apply to an agent state (the run input's), judged again and again:
 * the tracker warns (P1) and keeps the state, so every iteration fails the same way.
 */
function failedDeltaCase(name, what, makeState, delta) {
  return judgeCase(name, what, 100, async (pipeline, chooseProtocol) => {
    const input = { ...RUN_INPUT, state: makeState() };
    const module = chooseProtocol({ hint: { transport: 'sse', method: 'POST', path: '/agent', contentType: 'text/event-stream', requestBody: input } });
    const judge = pipeline.judgeFor(module, input, { transport: 'sse', path: '/agent' });
    const event = (value) => {
      const text = `data: ${JSON.stringify(value)}\n\n`;
      return { raw: Buffer.from(text), facts: { carrier: 'event', payload: text.slice('data: '.length, -2) } };
    };
    const started = event({ type: 'RUN_STARTED', threadId: 'bench-thread', runId: 'bench-run' });
    expectValid(name, pipeline.verdict(pipeline.read('server', started.raw, started.facts, undefined), started.facts, judge));
    const failing = event({ type: 'STATE_DELTA', delta });
    const verdict = pipeline.verdict(pipeline.read('server', failing.raw, failing.facts, undefined), failing.facts, judge);
    if (!verdict.findings.some((f) => f.pointer?.startsWith('/delta/'))) throw new Error(`${name}: the delta did not fail: ${JSON.stringify(verdict)}`);
    return { judge, ...failing, http: undefined };
  });
}

function judgeCase(name, what, iterations, open) {
  return {
    name,
    group: 'judge',
    what,
    unit: 'message',
    iterations,
    async prepare() {
      const [{ MessagePipeline }, { chooseProtocol }, { parseBudgetBytes }, { DEFAULT_MAX_BODY_BYTES }] = await Promise.all([
        load('judge/message-pipeline.js'),
        load('judge/protocol-choice.js'),
        load('record/worker/recorder-memory.js'),
        load('record/pipeline/recording-sink.js'),
      ]);
      const registry = await loadRegistry();
      // As TrafficRecorder makes it, with the default --max-body.
      const pipeline = new MessagePipeline({ registry, maxBodyBytes: DEFAULT_MAX_BODY_BYTES, parseBudget: parseBudgetBytes(DEFAULT_MAX_BODY_BYTES) });
      // chooseProtocol answers the module, or (since protocol evidence) { module, evidence }.
      const choose = (evidence) => {
        const chosen = chooseProtocol(evidence);
        return chosen?.module ?? chosen;
      };
      const { judge, raw, facts, http } = await open(pipeline, choose);
      const judgeOne = () => pipeline.verdict(pipeline.read('server', raw, facts, http), facts, judge);
      expectValid(name, judgeOne());
      return {
        setup: () => ({ last: undefined }),
        iterate(state) {
          state.last = judgeOne();
        },
        teardown: (state) => expectValid(name, state.last),
      };
    },
  };
}

/** `start(recorder, redactor, recorderOps)` opens what a round records into and returns one iteration. */
function workerCase(name, what, unit, iterations, ops, start) {
  return {
    name,
    group: 'worker',
    what,
    unit,
    iterations,
    ops,
    async prepare() {
      const [{ TrafficRecorder }, { RecordingClock }, { HeaderRedactor }, recorderOps] = await Promise.all([
        load('record/pipeline/traffic-recorder.js'),
        load('core/recording-clock.js'),
        load('judge/header-redaction.js'),
        load('record/worker/recorder-ops.js'),
      ]);
      const registry = await loadRegistry();
      const newWriter = await writerFactory(registry);
      const redactor = new HeaderRedactor();
      return {
        setup() {
          const { writer, close } = newWriter();
          const recorder = new TrafficRecorder({ writer, registry, clock: new RecordingClock() });
          const step = start(recorder, redactor, recorderOps);
          writer.flush();
          return { writer, close, step };
        },
        iterate({ writer, step }, i) {
          step(i);
          if (writer.pending >= BATCH_ROWS) writer.flush();
        },
        finish: ({ writer }) => writer.flush(),
        teardown({ writer, close }) {
          const { invalid, findings } = writer.totals;
          close();
          if (invalid > 0 || findings > 0) throw new Error(`${name}: ${invalid} invalid messages, ${findings} findings: not the path meant`);
        },
      };
    },
  };
}

// --- Run ----------------------------------------------------------------------------------------

const GROUPS = [...new Set(CASES.map((c) => c.group))];
const unknown = ONLY?.filter((name) => !GROUPS.includes(name) && !CASES.some((c) => c.name === name)) ?? [];
if (unknown.length > 0) {
  console.error(`--only: no case or group named ${unknown.join(', ')} (cases: ${CASES.map((c) => c.name).join(', ')}; groups: ${GROUPS.join(', ')})`);
  process.exit(2);
}
const chosen = CASES.filter((c) => !ONLY || ONLY.includes(c.name) || ONLY.includes(c.group));

console.log(
  `micro benchmarks: median CPU per operation (all threads) of ${ROUNDS} rounds after a warm-up, ${BATCH_ROWS} rows per SQLite transaction${argValue('--dist') ? `, ${DIST}` : ''}`,
);
const perUnit = (ns, unit) => (unit === 'ns' ? `${ns.toFixed(0)} ns` : `${(ns / 1000).toFixed(2)} µs`);
const rate = (perSecond) => (perSecond >= 1e6 ? `${(perSecond / 1e6).toFixed(2)} M/s` : `${(perSecond / 1e3).toFixed(1)} k/s`);
let group;
for (const c of chosen) {
  if (c.group !== group) {
    group = c.group;
    console.log(group);
  }
  const iterations = Math.max(1, Math.round(c.iterations * SCALE));
  const ops = c.ops ?? 1;
  let line;
  try {
    const plan = await c.prepare();
    const result = measureCpu({ iterations, rounds: ROUNDS, opsPerIteration: ops, ...plan });
    const unit = c.group === 'framers' || c.group === 'facts' ? 'ns' : 'µs';
    const spread = `${perUnit(Math.min(...result.rounds), unit)}–${perUnit(Math.max(...result.rounds), unit)}`;
    line = `${perUnit(result.nsPerOp, unit).padStart(10)} per ${c.unit.padEnd(8)} ${rate(result.opsPerSecond).padStart(10)}   (${(iterations * ops).toLocaleString('en-US')} per round, rounds ${spread})`;
  } catch (error) {
    // An older build (--dist) may lack a module or an API: the other cases still run. This build's
    // own cases must all run: a case that cannot is a broken bench, and the exit code says so.
    line = `not measured: ${error.message.split('\n')[0]}`;
    if (argValue('--dist') === undefined) process.exitCode = 1;
  }
  console.log(`  ${c.name.padEnd(14)} ${c.what.padEnd(52)} ${line}`);
}
