// The change feed: every view refreshes on it, at most every 250 ms.
import { readEvents } from './client.js';
import { control } from './api.js';

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
  // Read through fetch, never EventSource: fetch can send the control token (EventSource cannot send
  // a header), and an open EventSource holds a headless browser's virtual time for good (Chromium
  // counts it as a fetch in flight, so `--virtual-time-budget` never ran out), where a fetch whose
  // answer has begun does not (issue 38).
  source = feed();
  source.addEventListener('ready', () => said('live', 'live'));
  source.addEventListener('change', onChange);
  source.onerror = () => said('reconnecting…', 'reconnecting');
}

function said(text, state) {
  liveLabel.textContent = text;
  liveLabel.dataset.state = state;
}

/** The change feed as an EventSource-like target, read through the client's `readEvents` (with the control token when there is one). */
function feed() {
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
