#!/bin/bash
# test_claude_code.sh — a real agent under the jail, end to end: Claude Code
# (npm @anthropic-ai/claude-code 2.1, installed into a test-only temporary
# directory) is driven in -p mode by a loopback stand-in for the model API
# that asks for one Write tool call. A Write outside the grants must leave
# the disk untouched; a Write inside {cwd} must work. Skips, saying why,
# when npm or the registry is not reachable.
#   usage: test_claude_code.sh BUILD_DIR
set -u
. "$(dirname "$0")/../lib.sh"
BUILD=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /tmp/jail-claude-test.XXXXXX)
T=$(cd "$T" && pwd -P)
server=''
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
mkdir -p "$T/agent" "$T/proj" "$T/outside" "$T/home" "$T/tmp"

if ! command -v npm >/dev/null || ! command -v python3 >/dev/null; then
	skipped "Claude Code end to end" "npm or python3 is not installed"
	finish
	exit
fi
if ! (cd "$T/agent" && timeout 300 npm install --no-audit --no-fund --loglevel=error \
	@anthropic-ai/claude-code@2.1 >"$T/npm.log" 2>&1) || [ ! -x "$T/agent/node_modules/.bin/claude" ]; then
	skipped "Claude Code end to end" "the npm registry could not be reached: $(tail -1 "$T/npm.log")"
	finish
	exit
fi

# run_agent TARGET: one -p session whose model asks to Write TARGET.
run_agent() {
	rm -f "$T/port" "$T/port.log"
	python3 "$HERE/fake_messages_api.py" "$T/port" "$1" &
	server=$!
	for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
	out=$(cd "$T/proj" && HOME=$T/home TMPDIR=$T/tmp ANTHROPIC_BASE_URL=http://127.0.0.1:$(cat "$T/port") \
		ANTHROPIC_API_KEY=sk-test-dummy timeout 120 "$BUILD/bin/jailrun" "${@:2}" --allow-exec "$T/agent" -- \
		"$T/agent/node_modules/.bin/claude" -p "write the file" --add-dir "$T/outside" --allowedTools Write 2>&1)
	rc=$?
	kill "$server" 2>/dev/null
	wait "$server" 2>/dev/null
	server=''
}

run_agent "$T/outside/pwned.txt"
check "the agent ran its turn against the stand-in" grep -q "msgs=2" "$T/port.log"
check "its Write outside the grants left the disk untouched" test -z "$(ls -A "$T/outside")"
check "and the jail said so" has "jail: denied write $T/outside"
run_agent "$T/outside/pwned.txt" --kernel=off
check "the shim alone also stops it" test -z "$(ls -A "$T/outside")"
run_agent "$T/proj/notes.txt"
check "its Write inside the project works" grep -qx "written by the agent" "$T/proj/notes.txt"
finish
