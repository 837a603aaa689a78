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

# run_agent TARGET [JAILRUN-OPTION...]: one -p session whose model asks to
# Write TARGET ($tool=Read: to read it).
tool=Write
run_agent() {
	rm -f "$T/port" "$T/port.log"
	python3 "$HERE/fake_messages_api.py" "$T/port" "$1" "$tool" &
	server=$!
	for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
	out=$(cd "$T/proj" && HOME=$T/home TMPDIR=$T/tmp ANTHROPIC_BASE_URL=http://127.0.0.1:$(cat "$T/port") \
		ANTHROPIC_API_KEY=sk-test-$$ GITHUB_TOKEN=ghp-test-$$ timeout 120 "$BUILD/bin/jailrun" "${@:2}" --allow-exec "$T/agent" -- \
		"$T/agent/node_modules/.bin/claude" -p "write the file" --add-dir "$T/outside" --allowedTools "$tool" 2>&1)
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

# Its Write tool creates files with raw system calls from a worker thread
# (measured with 2.1): the shim never sees them, and the kernel layer cannot
# hold a carve-out inside the project. The supervisor can. A carve-out of
# our own (vendor/), since Claude Code itself refuses to write .git/hooks.
mkdir -p "$T/proj/.git/hooks" "$T/proj/vendor"
echo "SECRET-$$" >"$T/proj/.env"
printf 'include default\ndeny write {cwd}/vendor\n' >"$T/carve.policy"
# Its checks before writing go through libc and meet the shim; a dangling
# symlink into the carve-out would pass them (metadata is allowed there) for
# the raw open to follow. Claude Code 2.1 also refuses on its own to write
# through a symlink, or to .git/hooks, or to read a file it cannot stat: the
# control rows then skip, saying so, and the --supervise rows hold either
# way. test_supervise.sh shows the supervisor against raw system calls
# directly.
ln -s vendor/lib.txt "$T/proj/link.txt"
run_agent "$T/proj/link.txt" --policy "$T/carve.policy"
if [ -e "$T/proj/vendor/lib.txt" ]; then
	ok "control: without the supervisor its Write through a dangling symlink lands in a write carve-out (the gap)"
	rm -f "$T/proj/vendor/lib.txt"
else
	skipped "control" "this version's Write did not reach the carve-out without the supervisor: $(tail -3 <<<"$out")"
fi
run_agent "$T/proj/link.txt" --policy "$T/carve.policy" --supervise
check "--supervise: its Write through the symlink cannot create a file in the carve-out" \
	test ! -e "$T/proj/vendor/lib.txt"
check "--supervise: ... and the agent ran its turn" grep -q "^RESULT" "$T/port.log"
run_agent "$T/proj/vendor/lib.txt" --policy "$T/carve.policy" --supervise
check "--supervise: its Write straight into the carve-out is refused too" test ! -e "$T/proj/vendor/lib.txt"
run_agent "$T/proj/.git/hooks/pre-commit" --supervise
check "--supervise: its Write cannot create .git/hooks/pre-commit" test ! -e "$T/proj/.git/hooks/pre-commit"
run_agent "$T/proj/notes2.txt" --supervise
check "--supervise: its Write of a new file in the project works" grep -qx "written by the agent" "$T/proj/notes2.txt"
tool=Read
run_agent "$T/proj/.env"
if grep -q "SECRET-$$" "$T/port.log"; then
	ok "control: without the supervisor its Read tool reads .env (a glob deny only the shim knows)"
else
	skipped "control" "this version's Read did not read .env without the supervisor: $(grep '^RESULT' "$T/port.log")"
fi
run_agent "$T/proj/.env" --supervise
check "--supervise: its Read tool ran" grep -q "^RESULT" "$T/port.log"
check "--supervise: ... and cannot read .env" bash -c "! grep -q 'SECRET-$$' '$T/port.log'"

# Secrets: the agent reaches its API with its key; the shell its Bash tool
# starts does not see it (env scrub in the default policy).
tool=Bash
run_agent 'env; echo "exit=$?"'
check "the agent sent its API key to the stand-in" grep -qx "KEY sk-test-$$" "$T/port.log"
check "its Bash tool ran env" grep -q '^RESULT.*exit=0' "$T/port.log"
check "... which saw neither ANTHROPIC_API_KEY nor GITHUB_TOKEN" \
	bash -c "grep '^RESULT' '$T/port.log' | grep -q PATH= && ! grep '^RESULT' '$T/port.log' | grep -qE 'sk-test-$$|ghp-test-$$'"
run_agent 'cat /proc/$PPID/environ; tr "\\0" "\\n" </proc/$PPID/environ | head -1'
check "... nor could read them from its parent's environ" \
	bash -c "grep -q '^RESULT' '$T/port.log' && ! grep '^RESULT' '$T/port.log' | grep -qE 'sk-test-$$|ghp-test-$$'"
finish
