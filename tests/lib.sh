# lib.sh — what the shell test scripts share: TAP-like result lines, a
# closing "N passed, N failed, N skipped" line, and assertions on the last
# command's output ($out) and status ($rc). Source it; call finish last.
pass=0
fail=0
skip=0
out=''
rc=0

ok() { pass=$((pass + 1)); printf 'ok %d - %s\n' $((pass + fail + skip)) "$1"; }
not_ok() { fail=$((fail + 1)); printf 'not ok %d - %s\n' $((pass + fail + skip)) "$1"; shift; printf '#   %s\n' "$@"; }
skipped() { skip=$((skip + 1)); printf 'ok %d - %s # SKIP %s\n' $((pass + fail + skip)) "$1" "$2"; }

# check NAME COMMAND...: passes when COMMAND succeeds; shows $out and $rc when not.
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name" "output: $out" "exit: $rc"; fi
}
has() { grep -qF -- "$1" <<<"$out"; }
lacks() { ! grep -qF -- "$1" <<<"$out"; }
status_is() { [ "$rc" -eq "$1" ]; }

finish() {
	printf '%d passed, %d failed, %d skipped\n' "$pass" "$fail" "$skip"
	[ "$fail" -eq 0 ]
}
