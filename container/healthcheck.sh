#!/bin/bash
# The image's HEALTHCHECK: GET /__emulator/health on loopback, which the control plane always serves
# (CONTRACT §7; no token needed). Exit 0 on 200, 1 otherwise (503 "degraded": a full disk, …).
# Bash's /dev/tcp rather than Node or curl: the engine runs this every few seconds for as long as
# the container lives, and a bash process costs a millisecond where Node's start costs ~50 ms of CPU.
port="${SVC_PORT:-4747}"
exec 3<>"/dev/tcp/127.0.0.1/${port}" || exit 1
printf 'GET /__emulator/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3
IFS= read -r -t 3 status <&3 || exit 1
case "$status" in
  "HTTP/1.1 200 "*) exit 0 ;;
  *) exit 1 ;;
esac
