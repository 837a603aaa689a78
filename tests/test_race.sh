#!/bin/bash
# test_race.sh — a jailed process opens jail/x/file for writing in a loop
# while an unjailed one swaps jail/x between a real directory and a symlink
# to a protected directory. Nothing may land in the protected directory:
# with the shim alone (opens act on the object that was checked) and with
# the kernel layer. 100,000 attempts each.
#   usage: test_race.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$(cd "$1" && pwd)
RACER=$BUILD/tests/racer
T=$(mktemp -d /tmp/jail-race-test.XXXXXX)
T=$(cd "$T" && pwd -P)
trap 'rm -rf "$T"' EXIT
export TMPDIR=$T/tmp HOME=$T/home
mkdir -p "$T/jail/x" "$T/protected" "$TMPDIR" "$HOME"
ln -s "$T/protected" "$T/jail/xlink"
printf 'allow read /\nallow exec /usr /bin %s\nallow write {cwd}\n' "$BUILD/tests" >"$T/policy"
cd "$T/jail" || exit 1

for kernel in off auto; do
	rm -f "$T/protected/file" "$T/jail/x/file"
	"$RACER" swap "$T/jail" 20 >"$T/swap.out" &
	swapper=$!
	out=$("$BUILD/bin/jailrun" --quiet --kernel=$kernel --policy "$T/policy" -- "$RACER" open "$T/jail" 100000 2>&1)
	rc=$?
	kill "$swapper" 2>/dev/null
	wait "$swapper" 2>/dev/null
	# a swapper killed mid-exchange may leave x the symlink: put it back
	[ -L "$T/jail/x" ] && mv "$T/jail/x" "$T/jail/x.l" && mv "$T/jail/xlink" "$T/jail/x" && mv "$T/jail/x.l" "$T/jail/xlink"
	printf '# kernel=%s: %s\n' "$kernel" "$out"
	check "kernel=$kernel: the race ran (some opens refused, some done)" \
		bash -c "grep -q 'opened [1-9]' <<<'$out' && grep -q 'refused [1-9]' <<<'$out'"
	check "kernel=$kernel: nothing landed in the protected directory in 100,000 tries" test ! -e "$T/protected/file"
done

# The supervisor alone (no kernel layer): the opens are raw system calls,
# past the shim, each decided and made by the supervisor.
if [ -x "$BUILD/libexec/libjail/jail-supervise" ]; then
	rm -f "$T/protected/file" "$T/jail/x/file"
	"$RACER" swap "$T/jail" 120 >"$T/swap.out" &
	swapper=$!
	out=$("$BUILD/bin/jailrun" --quiet --kernel=off --supervise --policy "$T/policy" -- "$RACER" open-raw "$T/jail" 100000 2>&1)
	kill "$swapper" 2>/dev/null
	wait "$swapper" 2>/dev/null
	[ -L "$T/jail/x" ] && mv "$T/jail/x" "$T/jail/x.l" && mv "$T/jail/xlink" "$T/jail/x" && mv "$T/jail/x.l" "$T/jail/xlink"
	printf '# supervisor: %s\n' "$out"
	check "supervisor: the race ran (some opens refused, some done)" \
		bash -c "grep -q 'opened [1-9]' <<<'$out' && grep -q 'refused [1-9]' <<<'$out'"
	check "supervisor: nothing landed in the protected directory in 100,000 raw opens" test ! -e "$T/protected/file"
else
	skipped "supervisor race" "jail-supervise is not built on this architecture"
fi
finish
