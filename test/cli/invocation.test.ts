import { describe, expect, it } from 'vitest';
import { commandFrom } from '../../src/cli/invocation.js';
import { shellWord } from '../../src/core/shell-word.js';

describe('the command the CLI suggests for running itself again', () => {
  it('is npx agent-proxy where the package is installed, in a project or globally', () => {
    expect(commandFrom('/home/me/app', '/home/me/app/node_modules/agent-proxy/')).toBe('npx agent-proxy');
    expect(commandFrom('/home/me/app/src', '/home/me/app/node_modules/agent-proxy/')).toBe('npx agent-proxy');
    expect(commandFrom('/tmp', '/usr/lib/node_modules/agent-proxy/')).toBe('npx agent-proxy');
  });

  it('is the clone\'s bin script, by a path that works from where the user is', () => {
    expect(commandFrom('/src/agent-proxy', '/src/agent-proxy/')).toBe('node bin/agent-proxy.js');
    expect(commandFrom('/src/agent-proxy/docs', '/src/agent-proxy/')).toBe('node /src/agent-proxy/bin/agent-proxy.js');
    expect(commandFrom('/tmp/work', '/src/agent-proxy/')).toBe('node /src/agent-proxy/bin/agent-proxy.js');
    expect(commandFrom('/tmp', '/my files/agent-proxy/')).toBe(`node '/my files/agent-proxy/bin/agent-proxy.js'`);
  });

  it('quotes a path only when a shell would split or expand it', () => {
    expect(shellWord('recordings/run-1.db')).toBe('recordings/run-1.db');
    expect(shellWord('/tmp/my run.db')).toBe(`'/tmp/my run.db'`);
    expect(shellWord(`it's.db`)).toBe(`'it'\\''s.db'`);
    expect(shellWord('$HOME.db')).toBe(`'$HOME.db'`);
  });
});
