/** The data of each event of an SSE stream (its `data:` lines joined by newlines), comments and empty events left out. */
export function splitSseEvents(text: string): string[] {
  const events: string[] = [];
  let data: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length > 0) events.push(data.join('\n'));
      data = [];
    } else if (line.startsWith('data:')) {
      data.push(line.slice(line[5] === ' ' ? 6 : 5));
    }
  }
  if (data.length > 0) events.push(data.join('\n'));
  return events;
}
