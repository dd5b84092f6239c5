// The upstream side of bench/record.js, run as its own process so the proxy and the client
// do not share its event loop. Prints `{"port":N}` once listening.
//   POST /sse?n=N            an AG-UI run of N text deltas, written as fast as the socket takes them
//   POST /sse?n=N&per=1      the same, one event per write(), as an agent writes each token as it comes
//   POST /sse-paced?n=N&gap=MS  the same, one event every MS milliseconds, each stamped with its send time
//   GET  /rest               a small JSON envelope
//   WS   /ws?n=N             N small JSON text frames, then close 1000
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

const REST_BODY = JSON.stringify({ apiVersion: '1.0', requestId: 'bench', hostInstanceId: '00000000-0000-4000-8000-000000000000', ok: true, data: { ready: true } });

const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  req.resume();
  req.on('end', () => {
    if (url.pathname === '/sse') return sse(res, Number(url.searchParams.get('n')), Number(url.searchParams.get('per') ?? 64));
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
