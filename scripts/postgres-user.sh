#!/usr/bin/env bash
# Creates the unprivileged user that runs the tests' throwaway PostgreSQL servers (test/helpers/postgres.ts).
# PostgreSQL refuses to run as root, and CI and this project's machines run as root. Idempotent: an
# existing user is left as it is, so .ci/run and the helper may call it on every run.
# Prints nothing when the user already exists; exits non-zero only when the user cannot be made.
set -euo pipefail
user="${1:-svc-pg}"
id -u "$user" >/dev/null 2>&1 && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "postgres-user.sh: run as root to create the user $user (not root: the tests run PostgreSQL as you instead)" >&2
  exit 1
fi
# A system user: no home, no login shell, no password. It owns only the clusters the tests make.
useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user"
echo "created user $user for the tests' PostgreSQL servers"
