// The image's HEALTHCHECK: GET /__emulator/health on loopback, which the control plane always
// serves (CONTRACT §7); exit 0 when it answers 200, 1 otherwise (503 "degraded": a full disk, …).
// Node's own fetch: the image has no curl or wget, and needs none.
const port = process.env.SVC_PORT || '4747';
const headers = process.env.SVC_CONTROL_TOKEN ? { authorization: `Bearer ${process.env.SVC_CONTROL_TOKEN}` } : {};
try {
  const res = await fetch(`http://127.0.0.1:${port}/__emulator/health`, { headers, signal: AbortSignal.timeout(2500) });
  process.exit(res.status === 200 ? 0 : 1);
} catch {
  process.exit(1);
}
