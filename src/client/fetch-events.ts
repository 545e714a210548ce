/**
 * A server-sent event stream read through `fetch`, for where `EventSource` will not do: it cannot
 * send a header, and a remote control plane's streams want the control token (CONTRACT §12). The
 * dashboard reads its change feed this way when it has a token; `client.controlHeaders()` gives the
 * header. One connection: resolves when the server ends the stream, rejects on a refusal (with the
 * status) or a network error; the caller decides when to reconnect. Exported with the typed client.
 */
export async function readEvents(
  url: string,
  init: { headers?: Record<string, string>; signal?: AbortSignal },
  onEvent: (event: string, data: string) => void,
): Promise<void> {
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...init.headers }, ...(init.signal ? { signal: init.signal } : {}) });
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    throw Object.assign(new Error(`the stream answered HTTP ${res.status}`), { status: res.status });
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, '\n');
    // A message ends with a blank line; comments (`: heartbeat`) carry no event.
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const lines = buffer.slice(0, end).split('\n');
      buffer = buffer.slice(end + 2);
      const event =
        lines
          .find((l) => l.startsWith('event:'))
          ?.slice(6)
          .trim() ?? 'message';
      const data = lines
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (lines.some((l) => l !== '' && !l.startsWith(':'))) onEvent(event, data);
    }
  }
}
