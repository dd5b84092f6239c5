import { setFlagsFromString } from 'node:v8';

/**
 * Keeps the young generation of the recorder's main (forwarding) thread at the size it has now (1
 * or 2 MiB per semi-space) instead of letting it grow to 16 MiB per semi-space (32 on Node 24) under
 * a flood. The socket reads a flood brings in are external memory that only a scavenge of their
 * Buffer objects frees: with a young generation that large, megabytes of them wait between
 * scavenges beside the 16 MiB backlog, and the allocator keeps that peak for good (bench/record.js
 * --only rss: median peak RSS 119–128 → 116 MB, the same CPU per event; docs/performance.md). A
 * scavenge costs what survives it, which the forwarding thread keeps little of.
 *
 * V8 reads the growth factor each time it would grow the young generation, so setting it after start
 * holds from then on, until a new isolate is made: V8 sets a factor below 2 back to 2 when it
 * configures one. So a recording command calls this as it starts (start-up would grow it too) and
 * again once its recording worker is running (whose young generation is bounded by its own resource
 * limits and does not grow anyway); it starts no other worker. Process-wide, so only the CLI calls
 * it: the package API never changes V8's flags in its caller's process.
 */
export function keepForwardingYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
