// `agent-proxy validate` on one AG-UI run of a million messages, through the built CLI as a user runs it:
// wall time and the child's peak RSS (read by a preload at exit), for text and --json output.
// Run after a build:  npm run build && node bench/validate-scale.js [messages]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/agent-proxy.js', import.meta.url));
const total = Number(process.argv[2] ?? 1_000_000);
if (!Number.isInteger(total) || total < 4) {
  console.error(`validate-scale: messages must be an integer of at least 4, got '${process.argv[2]}'`);
  process.exit(2);
}

/** One run whose text message is streamed as one-character deltas: total messages in all. */
function longRun(messages) {
  const lines = ['{"type":"RUN_STARTED","threadId":"t","runId":"r"}', '{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}'];
  const delta = '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}';
  for (let i = 0; i < messages - 4; i++) lines.push(delta);
  lines.push('{"type":"TEXT_MESSAGE_END","messageId":"m"}', '{"type":"RUN_FINISHED","threadId":"t","runId":"r"}');
  return lines.join('\n') + '\n';
}

// The child reports its own peak RSS on exit, on stderr's last line.
const PRELOAD = `data:text/javascript,process.on('exit',()=>process.stderr.write('maxrss '+process.resourceUsage().maxRSS+'\\n'))`;

function run(args) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', PRELOAD, BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdoutBytes = 0;
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdoutBytes += chunk.length));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const rssKb = Number(/maxrss (\d+)/.exec(stderr)?.[1] ?? NaN);
      resolve({ code, seconds, rssMb: rssKb / 1024, stdoutBytes, stderr: stderr.replace(/maxrss \d+\n/, '') });
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-validate-scale-'));
try {
  const file = join(dir, 'long-run.ndjson');
  writeFileSync(file, longRun(total));
  console.log(`validate bench: node ${process.version}, one AG-UI run of ${total.toLocaleString('en-US')} messages as NDJSON`);
  for (const [name, args] of [['text', ['validate', file]], ['--json', ['validate', file, '--json']]]) {
    const r = await run(args);
    if (r.code !== 0) {
      console.error(`validate-scale: ${name} exited ${r.code}: ${r.stderr.trim().split('\n')[0]}`);
      process.exitCode = 1;
      continue;
    }
    console.log(`${name.padEnd(7)} ${r.seconds.toFixed(1)} s, peak RSS ${r.rssMb.toFixed(0)} MB, ${(r.stdoutBytes / 1e6).toFixed(1)} MB of output`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
