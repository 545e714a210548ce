// The change feed: every view refreshes on it, at most every 250 ms.
import { operationPath, readEvents } from './client.js';
import { control, TOKEN_KEY } from './api.js';

const liveLabel = document.getElementById('live');
let pending = null;
let render = () => {};
const onChange = () => {
  // Busy moments send many changes: refresh at most every 250 ms, and not while typing.
  if (pending !== null) return;
  pending = setTimeout(() => {
    pending = null;
    if (!document.activeElement?.matches('input, select')) render();
  }, 250);
};
let source = null;
/** Opens (or reopens) the change feed; each change renders the view again. */
export function connect(renderView) {
  render = renderView;
  source?.close();
  // EventSource cannot send a header: with a token, the same stream read through fetch.
  source = sessionStorage.getItem(TOKEN_KEY) ? tokenStream() : new EventSource(operationPath('streamChanges'));
  source.addEventListener('ready', () => (liveLabel.textContent = 'live'));
  source.addEventListener('change', onChange);
  source.onerror = () => (liveLabel.textContent = 'reconnecting…');
}

/** The change feed as an EventSource-like target, read through the client's `readEvents` so that it carries the control token. */
function tokenStream() {
  const target = new EventTarget();
  const controller = new AbortController();
  target.close = () => controller.abort();
  (async () => {
    while (!controller.signal.aborted) {
      await readEvents(control.url('streamChanges'), { headers: control.controlHeaders(), signal: controller.signal }, (event) =>
        target.dispatchEvent(new Event(event)),
      ).catch(() => undefined);
      if (controller.signal.aborted) return;
      target.onerror?.();
      // As EventSource does: try again after a moment.
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  })();
  return target;
}
