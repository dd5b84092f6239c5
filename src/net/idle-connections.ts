import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * The keep-alive connections taken over from CONNECTs, and how many answers each has under way, so
 * that shutdown closes each one as soon as it has none (what closeIdleConnections does for a server
 * that listens).
 */
export class IdleConnections {
  private readonly active = new Map<Duplex, number>();
  private closing = false;

  add(socket: Duplex): void {
    this.active.set(socket, 0);
    socket.once('close', () => this.active.delete(socket));
  }

  busy(socket: Duplex, res: ServerResponse): void {
    this.active.set(socket, (this.active.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (this.active.get(socket) ?? 1) - 1;
      this.active.set(socket, left);
      if (left === 0 && this.closing) socket.destroy();
    });
  }

  closeWhenIdle(): void {
    this.closing = true;
    for (const [socket, count] of this.active) if (count === 0) socket.destroy();
  }
}
