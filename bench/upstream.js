// The upstream side of bench/record.js, run as its own process so the proxy and the client
// do not share its event loop. Prints `{"port":N}` once listening.
//   POST /sse?n=N            an AG-UI run of N text deltas, written as fast as the socket takes them
//   POST /sse?n=N&per=1      the same, one event per write(), as an agent writes each token as it comes
//   POST /sse-paced?n=N&gap=MS  the same, one event every MS milliseconds, each stamped with its send time
//   GET  /rest               a small JSON envelope
//   WS   /ws?n=N             N small JSON text frames, then close 1000
//   POST /v1/chat/completions?n=N  an OpenAI chat completion streamed as a model does: N content chunks, one per
//                            write(), then the finish chunk, the usage chunk and `data: [DONE]`
//   POST /v1/messages?n=N    an Anthropic message streamed the same way: message_start, a text block of N
//                            deltas, one per write(), its stop, message_delta and message_stop
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';

const THREAD = 'bench-thread';
const RUN = 'bench-run';
const frame = (event) => `data: ${JSON.stringify(event)}\n\n`;
const START = frame({ type: 'RUN_STARTED', threadId: THREAD, runId: RUN }) + frame({ type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' });
const END = frame({ type: 'TEXT_MESSAGE_END', messageId: 'm1' }) + frame({ type: 'RUN_FINISHED', threadId: THREAD, runId: RUN });
const delta = (i, sentNs) => frame({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: sentNs === undefined ? `tok${i % 1000} ` : `t${sentNs}` });

function sse(res, n, perWrite) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(START);
  let i = 0;
  const pump = () => {
    while (i < n) {
      // 64 events per write by default, as a busy model server batches tokens into socket writes.
      let chunk = '';
      for (let k = 0; k < perWrite && i < n; k++, i++) chunk += delta(i);
      if (!res.write(chunk)) return res.once('drain', pump);
    }
    res.end(END);
  };
  pump();
}

function paced(res, n, gapMs) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(START);
  let i = 0;
  const timer = setInterval(() => {
    if (i >= n) {
      clearInterval(timer);
      res.end(END);
      return;
    }
    res.write(delta(i++, process.hrtime.bigint()));
  }, gapMs);
  res.on('close', () => clearInterval(timer));
}

const CHAT_HEAD = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_760_000_000, model: 'gpt-bench', system_fingerprint: 'fp_bench' };
const chatChunk = (delta, finish) => `data: ${JSON.stringify({ ...CHAT_HEAD, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null })}\n\n`;

/** A streamed chat completion of `n` content chunks, one chunk per write() as a model streams its tokens. */
function chatStream(res, n) {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.write(chatChunk({ role: 'assistant', content: '', refusal: null }, null));
  let i = 0;
  const pump = () => {
    while (i < n) if (!res.write(chatChunk({ content: `tok${i++ % 1000} ` }, null))) return res.once('drain', pump);
    res.write(chatChunk({}, 'stop'));
    res.write(`data: ${JSON.stringify({ ...CHAT_HEAD, choices: [], usage: { prompt_tokens: 12, completion_tokens: n, total_tokens: 12 + n } })}\n\n`);
    res.end('data: [DONE]\n\n');
  };
  pump();
}

const anthropicEvent = (data) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
const MESSAGE_START = anthropicEvent({
  type: 'message_start',
  message: { id: 'msg_bench', type: 'message', role: 'assistant', model: 'claude-bench', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } },
});

/** A streamed Anthropic message of one text block of `n` deltas, one delta per write() as a model streams its tokens. */
function messageStream(res, n) {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.write(MESSAGE_START);
  res.write(anthropicEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }));
  let i = 0;
  const pump = () => {
    while (i < n) if (!res.write(anthropicEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `tok${i++ % 1000} ` } }))) return res.once('drain', pump);
    res.write(anthropicEvent({ type: 'content_block_stop', index: 0 }));
    res.write(anthropicEvent({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: n } }));
    res.end(anthropicEvent({ type: 'message_stop' }));
  };
  pump();
}

const REST_BODY = JSON.stringify({ apiVersion: '1.0', requestId: 'bench', hostInstanceId: '00000000-0000-4000-8000-000000000000', ok: true, data: { ready: true } });

const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  req.resume();
  req.on('end', () => {
    if (url.pathname === '/sse') return sse(res, Number(url.searchParams.get('n')), Number(url.searchParams.get('per') ?? 64));
    if (url.pathname === '/v1/chat/completions') return chatStream(res, Number(url.searchParams.get('n')));
    if (url.pathname === '/v1/messages') return messageStream(res, Number(url.searchParams.get('n')));
    if (url.pathname === '/sse-paced') return paced(res, Number(url.searchParams.get('n')), Number(url.searchParams.get('gap')));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(REST_BODY) });
    res.end(REST_BODY);
  });
});
server.keepAliveTimeout = 60_000;

const wss = new WebSocketServer({ server, perMessageDeflate: false, handleProtocols: (p) => [...p][0] ?? false });
wss.on('connection', (ws, req) => {
  const n = Number(new URL(req.url, 'http://x').searchParams.get('n'));
  let i = 0;
  const pump = () => {
    while (i < n) {
      if (ws.bufferedAmount > 1 << 20) return setImmediate(pump);
      ws.send(JSON.stringify({ type: 'queue_update', steering: [], followUp: [`msg ${i++}`] }));
    }
    ws.close(1000, 'done');
  };
  pump();
});

server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n'));
