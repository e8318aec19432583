#!/usr/bin/env bash
# Builds the Go driver of test/checkly/go-sdk against Checkly's real Go SDK, for
# test/checkly/go-sdk.test.ts, into .services/tools/checkly-go-sdk-driver. Prints the binary's path
# on its last line. Exit codes: 0 built (or already built), 3 no Go toolchain or no SDK source
# (the suite skips outside CI and fails under CI=true), anything else a failed build.
#
# The SDK comes from the Go module proxy at the pinned version when it serves it; the proxy here
# refuses it (403), so it falls back to a source snapshot: CHECKLY_GO_SDK_SRC, a bare git directory
# or a plain source tree (default: the mirror at /work/.mirror/checkly+checkly-go-sdk/repo).
# Its one dependency, github.com/google/go-cmp, comes from the proxy. Everything Go writes (module
# cache, build cache, its config) stays under .services/go, so nothing reaches $HOME.
set -euo pipefail

SDK_MODULE=github.com/checkly/checkly-go-sdk
SDK_VERSION=v1.22.0
# The snapshot's commit (v1.22.0 and one commit that only removes a CI file).
SDK_COMMIT=be7d3f0
SDK_SRC="${CHECKLY_GO_SDK_SRC:-/work/.mirror/checkly+checkly-go-sdk/repo}"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
driver_src="$root/test/checkly/go-sdk"
tools="$root/.services/tools"
gohome="$root/.services/go"
binary="$tools/checkly-go-sdk-driver"
stamp="$binary.stamp"

say() { printf 'go-sdk: %s\n' "$*" >&2; }
unavailable() {
  say "$*"
  exit 3
}

command -v go >/dev/null 2>&1 || unavailable "no Go toolchain on PATH (install Go >= 1.21 to run the Checkly Go SDK suite)"

export GOPATH="$gohome/path" GOMODCACHE="$gohome/path/pkg/mod" GOCACHE="$gohome/cache"
export HOME="$gohome/home" XDG_CONFIG_HOME="$gohome/home/.config" GOENV=off
export GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0 GOTELEMETRY=off
mkdir -p "$tools" "$GOPATH" "$GOCACHE" "$HOME"

# Rebuilt when the driver's sources, the pinned SDK or the Go toolchain change; else a no-op.
fingerprint="$(
  {
    go version
    echo "$SDK_MODULE@$SDK_VERSION $SDK_COMMIT $SDK_SRC"
    find "$driver_src" -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) -print0 | sort -z | xargs -0 sha256sum
  } | sha256sum | cut -d' ' -f1
)"
if [ -x "$binary" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$fingerprint" ]; then
  echo "$binary"
  exit 0
fi

build="$(mktemp -d "$gohome/build.XXXXXX")"
trap 'rm -rf "$build"' EXIT
# go.sum pins go-cmp; the SDK's line is added when the proxy serves it (a replaced module has none).
cp "$driver_src"/*.go "$driver_src"/go.mod "$driver_src"/go.sum "$build"/

source_label="$SDK_MODULE@$SDK_VERSION (Go module proxy)"
if ! (cd "$build" && go mod download "$SDK_MODULE@$SDK_VERSION") 2>"$build/proxy.err"; then
  say "the Go module proxy refused $SDK_MODULE@$SDK_VERSION ($(tail -n1 "$build/proxy.err")); using the snapshot $SDK_SRC"
  extracted="$gohome/checkly-go-sdk-$SDK_COMMIT"
  if [ ! -f "$extracted/go.mod" ]; then
    rm -rf "$extracted.tmp" && mkdir -p "$extracted.tmp"
    if [ -f "$SDK_SRC/HEAD" ] && git --git-dir="$SDK_SRC" rev-parse --verify -q "$SDK_COMMIT^{commit}" >/dev/null; then
      git --git-dir="$SDK_SRC" archive "$SDK_COMMIT" | tar -x -C "$extracted.tmp"
    elif [ -f "$SDK_SRC/go.mod" ] && grep -q "^module $SDK_MODULE\$" "$SDK_SRC/go.mod"; then
      cp -R "$SDK_SRC"/. "$extracted.tmp"/
    else
      rm -rf "$extracted.tmp"
      unavailable "no source of $SDK_MODULE: the proxy refused it and $SDK_SRC holds neither commit $SDK_COMMIT nor its module (set CHECKLY_GO_SDK_SRC)"
    fi
    mv "$extracted.tmp" "$extracted"
  fi
  (cd "$build" && go mod edit -replace "$SDK_MODULE=$extracted")
  source_label="$SDK_MODULE at $SDK_COMMIT (snapshot $SDK_SRC)"
fi

(cd "$build" && go mod tidy && go build -trimpath -o "$binary.tmp" .)
mv "$binary.tmp" "$binary"
echo "$source_label" >"$binary.source"
echo "$fingerprint" >"$stamp"
say "built $binary with $source_label"
echo "$binary"
