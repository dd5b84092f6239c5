// The reference point for bench/record.js: the least a node:http forwarder can do. It forwards with a
// keep-alive agent, drops hop-by-hop headers and records nothing. Whatever share of direct it gets is
// the ceiling for any node:http recorder on the same machine. Prints `{"url":...}` once listening.
//   node bench/bare-forwarder.js http://127.0.0.1:PORT
import { Agent, createServer, request } from 'node:http';

const target = new URL(process.argv[2]);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

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
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })));
process.on('SIGTERM', () => process.exit(0));
