/**
 * Stand-ins for the hostile-peer tests: an upstream that answers with raw bytes (what no HTTP
 * server library would send), and the built CLI started in front of it.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { expect } from 'vitest';
import { RecordingReader } from '../../src/store/recording-reader.js';
import type { ExchangeRow } from '../../src/store/store-types.js';
import { spawnCli, type CliProcess } from '../cli/run-cli.js';

/** What a raw upstream answers to the request for one path: bytes (the connection stays open), or a handler. */
export type RawAnswer = Buffer | string | ((socket: Socket, head: string) => void);

/** The control answer: an ordinary 200 on a connection that closes after it. */
export const CONTROL_ANSWER = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok';

export interface RawUpstream {
  url: string;
  port: number;
  /** Request heads (latin1) in arrival order. */
  heads: string[];
  close(): Promise<void>;
}

/**
 * A TCP server that reads one request head per connection and answers by its path (the request
 * line's second word) with the bytes given, written as latin1. Unknown paths get CONTROL_ANSWER.
 * Raw byte answers leave the connection open: the proxy, not the upstream, has to end it.
 */
export async function rawUpstream(answers: Record<string, RawAnswer>): Promise<RawUpstream> {
  const heads: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let received = '';
    const onData = (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      const head = received.slice(0, end + 4);
      heads.push(head);
      const answer = answers[head.split(' ')[1]] ?? CONTROL_ANSWER;
      if (typeof answer === 'function') answer(socket, head);
      else {
        socket.write(typeof answer === 'string' ? Buffer.from(answer, 'latin1') : answer);
        if (answer === CONTROL_ANSWER) socket.end();
      }
    };
    socket.on('data', onData);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    heads,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Completes a WebSocket handshake by hand (RFC 6455 §4.2.2): what a raw upstream writes before its frames. */
export function acceptWebSocket(socket: Socket, head: string): void {
  const key = /^sec-websocket-key:\s*(\S+)/im.exec(head)?.[1] ?? '';
  const accept = createHash('sha1').update(key + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
}

/** An unmasked server frame with a payload under 126 bytes. */
export function serverFrame(opcode: number, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0x80 | opcode, payload.length]), payload]);
}

export interface CliSession {
  cli: CliProcess;
  /** Where clients connect: `http://127.0.0.1:PORT`. */
  url: string;
  /** SIGTERM, then the exit; the process must stop cleanly (exit 0, and nothing on stderr but what `stderr` allows). */
  stop(stderr?: RegExp): Promise<void>;
}

/**
 * `proxy <args>` (which must listen on port 0), resolved once it prints where it listens. The
 * caller registers `kill` for cleanup, so a failed test leaves no process behind.
 */
export async function startCli(args: string[], env: NodeJS.ProcessEnv = {}, kill: (step: () => Promise<void>) => void): Promise<CliSession> {
  const cli = spawnCli(args, env);
  kill(async () => {
    if (cli.child.exitCode === null && cli.child.signalCode === null) {
      cli.child.kill('SIGKILL');
      await cli.exited;
    }
  });
  const line = await cli.waitForLine(/^(listening|inspector) on /);
  const url = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(line)![1];
  return {
    cli,
    url,
    async stop(stderr = /^$/) {
      cli.child.kill('SIGTERM');
      const exit = await cli.exited;
      expect(cli.stderr()).toMatch(stderr);
      expect(exit).toEqual({ code: 0, signal: null });
    },
  };
}

/** The process is still running: it neither crashed nor exited. */
export function expectAlive(session: CliSession): void {
  expect(session.cli.child.exitCode, session.cli.stderr()).toBeNull();
  expect(session.cli.child.signalCode).toBeNull();
}

/** The exchanges of a recording file, read once the recorder is done with it. */
export function exchangesOf(file: string): ExchangeRow[] {
  const reader = RecordingReader.open(file);
  try {
    return reader.exchanges();
  } finally {
    reader.close();
  }
}
