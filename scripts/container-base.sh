#!/usr/bin/env bash
# Makes a Debian bookworm base image for machines that reach Debian's mirror but no image registry
# (the container tests, air-gapped CI): debootstrap --variant=minbase, then `podman import` (or
# `docker import`). Built once per machine: the root file system is cached as a tarball in
# $SVC_CONTAINER_CACHE (else $XDG_CACHE_HOME/svc-container, else ~/.cache/svc-container) and
# imported again only when the engine lost the image. Prints the image name.
#
#   scripts/container-base.sh            # -> localhost/svc-base:bookworm
#   npm run image -- --build-arg BASE_IMAGE=localhost/svc-base:bookworm
#
# Needs root (debootstrap) and debootstrap itself; the mirror is $DEBIAN_MIRROR or deb.debian.org.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${SVC_CONTAINER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svc-container}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
image="localhost/svc-base:bookworm"
engine="$("$here/container-engine.sh")"
tarball="$cache/bookworm-minbase.tar"

mkdir -p "$cache"
if [ ! -s "$tarball" ]; then
  command -v debootstrap >/dev/null || { echo "container-base.sh: debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }
  root="$(mktemp -d "$cache/.rootfs.XXXXXX")"
  trap 'rm -rf "$root"' EXIT
  debootstrap --variant=minbase bookworm "$root" "$mirror" >&2
  # What an image does not need, as Debian's own slim images leave it out: package lists and caches,
  # docs, man pages and translations (about 40 MB; locale.alias stays).
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
    "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/*
  find "$root"/usr/share/locale -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
  # A partial tarball never becomes the cached one.
  tar --numeric-owner -C "$root" -cf "$tarball.partial" .
  mv "$tarball.partial" "$tarball"
fi
if ! $engine image inspect "$image" >/dev/null 2>&1; then
  $engine import --change 'CMD ["/bin/bash"]' "$tarball" "$image" >/dev/null
fi
echo "$image"
