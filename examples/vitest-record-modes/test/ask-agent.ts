/** The code under test: a minimal AG-UI client that sends one question and returns the answer's text. */
export async function askAgent(agentUrl: string, question: string): Promise<string> {
  const response = await fetch(`${agentUrl}/agent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({
      threadId: `thread-${crypto.randomUUID()}`,
      runId: `run-${crypto.randomUUID()}`,
      state: {},
      messages: [{ id: 'msg-question-1', role: 'user', content: question }],
      tools: [],
      context: [],
      forwardedProps: {},
    }),
  });
  if (!response.ok) throw new Error(`agent answered ${response.status}: ${await response.text()}`);
  let text = '';
  for (const block of (await response.text()).split('\n\n')) {
    const data = block.split('\n').find((line) => line.startsWith('data: '));
    if (!data) continue;
    const event = JSON.parse(data.slice(6)) as { type: string; delta?: string };
    if (event.type === 'TEXT_MESSAGE_CONTENT') text += event.delta;
  }
  return text;
}
