#!/usr/bin/env bash
# Builds SeaweedFS's `weed` (an S3-compatible server) for the object-storage
# tests, from the Go module proxy only, into a cache directory reused by
# later runs, and prints its path. `go install` refuses the module (its
# go.mod has replace directives), so the module is downloaded into the
# module cache and built inside a writable copy of it. About 6 minutes on 2
# cores the first time; instant when cached.
#
# Use: export GOTRACY_S3_WEED="$(.ci/seaweedfs.sh)"
set -euo pipefail
version="v0.0.0-20261109003541-7506e5f91cd6"
cache="${GOTRACY_CI_CACHE:-$HOME/.cache/gotracy-ci}"
bin="$cache/weed-$version/weed"
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi
mkdir -p "$cache"
work="$(mktemp -d "$cache/weed-build.XXXXXX")"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
# A throwaway module, so the download does not touch the repository's go.mod.
go mod init weedbuild >/dev/null 2>&1
dir="$(GOFLAGS=-mod=mod go mod download -json "github.com/seaweedfs/seaweedfs@$version" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')"
if [ -z "$dir" ]; then
  echo "seaweedfs.sh: the module proxy did not give github.com/seaweedfs/seaweedfs@$version" >&2
  exit 1
fi
cp -r "$dir" src
chmod -R u+w src
cd src
# The module's own go.mod (with its replace directives) decides the build.
GOFLAGS=-mod=mod nice -n 10 go build -p 2 -o "$work/weed" ./weed >&2
mkdir -p "$(dirname "$bin")"
mv "$work/weed" "$bin"
echo "$bin"
