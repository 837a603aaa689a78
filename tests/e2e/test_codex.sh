#!/bin/bash
# test_codex.sh — the codex CLI (npm @openai/codex, installed into a
# test-only temporary directory) under the jail. Its binary is a static-pie
# musl program the preload cannot follow: under the kernel layer it runs,
# confined; with the shim alone it is refused. A static probe that codex
# starts (with codex's own sandbox switched off) cannot write outside the
# grants. Skips, saying why, when npm or the registry is not reachable.
#   usage: test_codex.sh BUILD_DIR
set -u
. "$(dirname "$0")/../lib.sh"
BUILD=$(cd "$1" && pwd)
T=$(mktemp -d /tmp/jail-codex-test.XXXXXX)
T=$(cd "$T" && pwd -P)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/agent" "$T/proj" "$T/outside" "$T/home" "$T/tmp"
export HOME=$T/home TMPDIR=$T/tmp

if ! command -v npm >/dev/null; then
	skipped "codex under the jail" "npm is not installed"
	finish
	exit
fi
if ! (cd "$T/agent" && timeout 300 npm install --no-audit --no-fund --loglevel=error @openai/codex >"$T/npm.log" 2>&1) ||
	[ ! -e "$T/agent/node_modules/.bin/codex" ]; then
	skipped "codex under the jail" "the npm registry could not be reached: $(tail -1 "$T/npm.log")"
	finish
	exit
fi
if [ "$("$BUILD/libexec/libjail/jailctl" print | grep -c 'Landlock ABI [1-9]')" -eq 0 ]; then
	skipped "codex under the jail" "this kernel has no Landlock, so a static binary cannot run jailed"
	finish
	exit
fi
codex=$T/agent/node_modules/.bin/codex
cp "$BUILD/tests/hookprobe-static" "$T/proj/probe"
cd "$T/proj" || exit 1

out=$("$BUILD/bin/jailrun" --allow-exec "$T/agent" -- "$codex" --version 2>&1)
rc=$?
check "codex --version runs under the jail (kernel layer)" has "codex-cli"
out=$("$BUILD/bin/jailrun" --kernel=off --allow-exec "$T/agent" -- "$codex" --version 2>&1)
rc=$?
check "with the shim alone its static binary is refused, with the reason" has "statically linked"
out=$("$BUILD/bin/jailrun" --allow-exec "$T/agent" -- "$codex" sandbox -c 'sandbox_mode="danger-full-access"' -- \
	./probe open "$T/outside/from-codex" w,creat 2>&1)
rc=$?
check "a static probe started by codex cannot write outside" has "err EACCES"
check "and nothing was written" test -z "$(ls -A "$T/outside")"
out=$("$BUILD/bin/jailrun" --allow-exec "$T/agent" -- "$codex" sandbox -c 'sandbox_mode="danger-full-access"' -- \
	./probe open "$T/proj/from-codex" w,creat 2>&1)
rc=$?
check "while writing inside the project works" test -e "$T/proj/from-codex"
finish
