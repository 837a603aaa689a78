#!/bin/bash
# test_inproc.sh — the hooks' concurrency rows under a sanitizer. PROBE is
# hookprobe linked with the shim's sources and built with -fsanitize=KIND
# (tests/CMakeLists.txt): 16 threads mixing allowed and refused calls,
# every hook family from 16 threads with a forking thread and a 2 ms timer
# whose handler opens files, and hooks called from a signal handler. A
# sanitizer report makes the probe exit non-zero (halt_on_error), and the
# report itself fails the row.
#   usage: test_inproc.sh PROBE KIND
set -u
. "$(dirname "$0")/lib.sh"
PROBE=$1
KIND=$2
T=$(mktemp -d /tmp/jail-inproc-test.XXXXXX)
T=$(cd "$T" && pwd -P)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/in"
echo data >"$T/in/file"
echo key >"$T/in/secret"
printf 'allow read /\nallow write %s/in\ndeny read %s/in/secret\n' "$T" "$T" >"$T/policy"
export JAIL_POLICY=$T/policy JAIL_QUIET=1
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
export ASAN_OPTIONS="detect_leaks=1 abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=1"

# The probe must really be instrumented, or every row below proves nothing.
case $KIND in
*thread*) sym=__tsan_init ;;
*address*) sym=__asan_init ;;
*undefined*) sym=__ubsan_handle_add_overflow ;;
*) sym=none ;;
esac
if nm "$PROBE" 2>/dev/null | grep -q "$sym"; then ok "the probe is built with -fsanitize=$KIND ($sym)"; else not_ok "the probe is built with -fsanitize=$KIND" "no $sym in $PROBE"; fi

# row ARGS... EXPECTED: runs the probe once; passes on exit 0, the expected
# line, and no sanitizer report.
row() {
	local expected=${!#}
	local args=("${@:1:$#-1}")
	out=$("$PROBE" "${args[@]}" 2>"$T/stderr")
	rc=$?
	local report
	report=$(grep -E 'Sanitizer|runtime error' "$T/stderr" | head -5)
	if [ "$rc" -eq 0 ] && [ "$out" = "$expected" ] && [ -z "$report" ]; then
		ok "${args[*]#"$T"}: $expected"
	else
		not_ok "${args[*]#"$T"}: $expected" "output: $out" "exit: $rc" "$report" "$(tail -20 "$T/stderr")"
	fi
}

row open "$T/in/secret" r "err EACCES"
row open "$T/in/file" r "ok"
row threads "$T/in/file" "$T/in/secret" "ok"
for i in 1 2 3; do
	row stress-all "$T/in" "$T/in/secret" "ok"
done
row signal-open "$T/in/secret" "err EACCES"
row signal-open "$T/in/file" "ok"
row errno-kept "$T/in/file" "ok"
check "the stress rows left nothing behind" bash -c "[ \"\$(ls '$T/in')\" = \"\$(printf 'file\nsecret')\" ]"
finish
