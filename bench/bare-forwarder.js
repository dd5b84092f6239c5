// The reference point for bench/record.js: the least a node:http forwarder can do. It forwards with a
// keep-alive agent, drops hop-by-hop headers and records nothing; WebSocket upgrades are relayed
// message by message with `ws`, both legs terminated as the recorder's relay does, with backpressure.
// Whatever share of direct it gets is the ceiling for any node:http recorder on the same machine.
// Prints `{"url":...}` once listening.
//   node bench/bare-forwarder.js http://127.0.0.1:PORT
import { Agent, createServer, request } from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';

const target = new URL(process.argv[2]);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);
/** The same leg options as the recorder's relay (src/record/relay/ws-relay.ts). */
const LEG_OPTIONS = { perMessageDeflate: false, autoPong: false, skipUTF8Validation: true };
const WS_HIGH_WATER = 1024 * 1024;

const endToEnd = (headers) => Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));

const server = createServer((req, res) => {
  const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...endToEnd(req.headers), host: target.host }, agent }, (upstreamRes) => {
    res.writeHead(upstreamRes.statusCode, endToEnd(upstreamRes.headers));
    upstreamRes.pipe(res);
  });
  upstream.on('error', () => res.destroy());
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
});

/** Relays `from`'s messages to `to`, pausing `from` while `to` has more than a megabyte unsent. */
function relay(from, to) {
  from.on('message', (data, isBinary) => {
    to.send(data, { binary: isBinary });
    if (to.bufferedAmount > WS_HIGH_WATER && !from.isPaused) {
      from.pause();
      to._socket.once('drain', () => from.resume());
    }
  });
  from.on('ping', (data) => to.readyState === WebSocket.OPEN && to.ping(data));
  from.on('pong', (data) => to.readyState === WebSocket.OPEN && to.pong(data));
  from.on('close', (code, reason) => {
    if (to.readyState === WebSocket.OPEN) to.close(code === 1005 ? undefined : code, reason);
  });
  from.on('error', () => to.terminate());
}

const wss = new WebSocketServer({ noServer: true, ...LEG_OPTIONS, handleProtocols: (offered) => [...offered][0] ?? false });
server.on('upgrade', (req, socket, head) => {
  const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  const upstream = new WebSocket(`ws://${target.host}${req.url}`, offered, LEG_OPTIONS);
  upstream.on('error', () => socket.destroy());
  upstream.on('open', () => {
    upstream.pause();
    wss.handleUpgrade(req, socket, head, (client) => {
      relay(client, upstream);
      relay(upstream, client);
      upstream.resume();
    });
  });
});

server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })));
process.on('SIGTERM', () => process.exit(0));
