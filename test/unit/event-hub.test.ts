import { describe, expect, it } from 'vitest';
import { EventHub } from '../../src/domain/event-hub.js';

// `size` tells the server whether anyone observes it (per-request events are built only then); the
// emulator's own plumbing subscribes with onQuietly and must not count (src/server/shared-views.ts).
describe('EventHub', () => {
  it('counts listeners added with on, not those added with onQuietly; both receive every event', () => {
    const hub = new EventHub<number>();
    const heard: string[] = [];
    const quiet = (n: number) => heard.push(`quiet ${n}`);
    const offQuiet = hub.onQuietly(quiet);
    const offQuietAgain = hub.onQuietly(quiet);
    expect(hub.size).toBe(0);
    const off = hub.on((n) => heard.push(`loud ${n}`));
    expect(hub.size).toBe(1);
    hub.emit(1);
    expect(heard.sort()).toEqual(['loud 1', 'quiet 1', 'quiet 1']);
    offQuiet();
    offQuiet();
    expect(hub.size).toBe(1);
    off();
    expect(hub.size).toBe(0);
    heard.length = 0;
    hub.emit(2);
    expect(heard).toEqual(['quiet 2']);
    offQuietAgain();
    expect(hub.size).toBe(0);
  });
});
