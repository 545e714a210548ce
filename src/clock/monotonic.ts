/**
 * Milliseconds on a monotonic clock, for durations (a request's, a wait for a lock). process.uptime()
 * is one (libuv's high-resolution time), and needs no module, where the first performance.now() of a
 * process loads Node's performance modules: ~0.6 ms of `svc dev`'s start, whose first writes are
 * its default keys, and of the first request of every in-process emulator (bench #12, #13).
 */
export const monotonicMs = (): number => process.uptime() * 1000;
