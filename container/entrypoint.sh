#!/bin/sh
# The image's entrypoint. `docker run svc-emulator` runs `svc dev` (settings from SVC_* variables,
# set in the Containerfile); arguments starting with "-" are svc dev flags (`docker run svc-emulator
# --seed 7`); anything else runs as given (`docker run svc-emulator svc exec -- npm test`, `sh`).
# Without a terminal (`docker run -d`, compose, CI services) svc dev logs NDJSON, one event a line,
# which log collectors parse; with `-it` it prints the human banner and request lines.
# `exec`: node becomes PID 1 and gets SIGTERM and Ctrl-C itself (svc dev stops cleanly on both).
set -e
case "${1:-}" in
  -*) set -- svc dev "$@" ;;
esac
if [ "${1:-}" = svc ] && [ "${2:-}" = dev ] && [ ! -t 1 ]; then
  shift 2
  set -- svc dev --json "$@"
fi
exec "$@"
