#!/usr/bin/env bash
# Prints the container engine command to use: podman when it is installed, else docker when its
# daemon answers. Podman runs with runc and cgroupfs: they work without systemd and on hosts whose
# kernel lacks what crun and the systemd cgroup manager expect (as on CI's and this project's VMs).
# $SVC_CONTAINER_ENGINE overrides the choice. Exit 1 with one line when there is none.
set -euo pipefail
if [ -n "${SVC_CONTAINER_ENGINE:-}" ]; then echo "$SVC_CONTAINER_ENGINE"; exit 0; fi
if command -v podman >/dev/null && command -v runc >/dev/null; then
  echo "podman --runtime runc --cgroup-manager=cgroupfs"
elif command -v podman >/dev/null; then
  echo "podman"
elif command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  echo "docker"
else
  echo "no container engine: install podman (apt-get install podman runc) or start Docker" >&2
  exit 1
fi
