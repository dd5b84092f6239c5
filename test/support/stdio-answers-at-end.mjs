#!/usr/bin/env node
/**
 * A stand-in agent that answers only once its stdin has ended, as a batch tool does: it reads every
 * line until EOF, then writes one answer per line read (`{"answered":<the line's value>}`) and exits.
 */
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const lines = input.split('\n').filter((line) => line !== '');
  process.stdout.write(lines.map((line) => `${JSON.stringify({ answered: JSON.parse(line) })}\n`).join(''));
});
