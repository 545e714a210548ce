#!/bin/bash
# The image's HEALTHCHECK: GET /__emulator/health on loopback. With a control token it guards
# loopback clients too (CONTRACT §8), so the probe sends it: SVC_CONTROL_TOKEN, else the one svc dev
# recorded in .svc/dev.json of its working folder (a token from a mounted config file). Exit 0 on
# 200, 1 otherwise (503 "degraded": a full disk, …; 403: a token the probe does not know).
# Bash's /dev/tcp rather than Node or curl: the engine runs this every few seconds for as long as
# the container lives, and a bash process costs a millisecond where Node's start costs ~50 ms of CPU.
port="${SVC_PORT:-4747}"
token="${SVC_CONTROL_TOKEN:-}"
if [ -z "$token" ] && [ -r "${HOME:-/home/svc}/.svc/dev.json" ]; then
  token="$(sed -n 's/^ *"controlToken": *"\([^"]*\)".*/\1/p' "${HOME:-/home/svc}/.svc/dev.json")"
fi
auth=""
[ -n "$token" ] && auth="Authorization: Bearer ${token}"$'\r\n'
exec 3<>"/dev/tcp/127.0.0.1/${port}" || exit 1
printf 'GET /__emulator/health HTTP/1.1\r\nHost: 127.0.0.1\r\n%sConnection: close\r\n\r\n' "$auth" >&3
IFS= read -r -t 3 status <&3 || exit 1
case "$status" in
  "HTTP/1.1 200 "*) exit 0 ;;
  *) exit 1 ;;
esac
