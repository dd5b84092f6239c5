import { describe, expect, it } from 'vitest';
import { routeAtTail } from '../../src/protocols/api-route-tail.js';

const ROUTES = [
  { endpoint: 'chat', method: 'POST', tail: '/chat/completions' },
  { endpoint: 'models', method: 'GET', tail: '/models' },
] as const;

describe('a route found at the end of a path', () => {
  it('is the route with where it was found: at the base, under a versioned mount, or elsewhere', () => {
    expect(routeAtTail(ROUTES, '/v1/chat/completions?x=1')).toEqual({ ...ROUTES[0], atBase: true, versioned: true });
    expect(routeAtTail(ROUTES, '/openai/v1/chat/completions/')).toEqual({ ...ROUTES[0], atBase: false, versioned: true });
    expect(routeAtTail(ROUTES, '/api/models')).toEqual({ ...ROUTES[1], atBase: false, versioned: false });
    expect(Object.keys(routeAtTail(ROUTES, '/v1/models')!)).toEqual(['endpoint', 'method', 'tail', 'atBase', 'versioned']);
    expect(routeAtTail(ROUTES, '/v1/embeddings')).toBeUndefined();
  });

  it('is made once per route and kind of place, and cannot be changed by whoever gets it', () => {
    const first = routeAtTail(ROUTES, '/v1/chat/completions')!;
    expect(routeAtTail(ROUTES, '/v1/chat/completions#x')).toBe(first);
    expect(routeAtTail(ROUTES, '/gw/v1/chat/completions')).not.toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });
});
