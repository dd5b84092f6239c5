/**
 * The time certificates are dated by, in epoch milliseconds. Injected so tests check validity
 * windows on a clock they move, never on the machine's.
 */
export interface WallClock {
  now(): number;
}

export const systemWallClock: WallClock = { now: () => Date.now() };

export const DAY_MS = 24 * 60 * 60 * 1000;
