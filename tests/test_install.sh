#!/bin/bash
# test_install.sh — `cmake --install` lays out bin/, lib/, libexec/ and
# share/man/, and the installed jailrun finds its helper and libjail.so
# beside itself and confines a command.
#   usage: test_install.sh BUILD_DIR
set -u
BUILD=$(cd "$1" && pwd)
P=$(mktemp -d /tmp/jail-install-test.XXXXXX)
trap 'rm -rf "$P"' EXIT
fail=0
pass=0
t() { if "${@:2}"; then pass=$((pass + 1)); echo "ok - $1"; else fail=$((fail + 1)); echo "not ok - $1"; fi; }

cmake --install "$BUILD" --prefix "$P/prefix" >/dev/null
for f in bin/jailrun libexec/libjail/jailctl share/man/man1/jailrun.1 share/man/man5/jail.policy.5 \
	share/man/man7/libjail.7; do
	t "installed $f" test -f "$P/prefix/$f"
done
t "installed libjail.so" bash -c "ls '$P'/prefix/lib*/libjail.so '$P'/prefix/lib/*/libjail.so 2>/dev/null | grep -q ."
mkdir -p "$P/proj" "$P/home" "$P/tmp"
cd "$P/proj" || exit 1
out=$(HOME=$P/home TMPDIR=$P/tmp "$P/prefix/bin/jailrun" -- sh -c "echo in > inside.txt; echo out > $P/outside.txt; env" 2>&1)
t "installed jailrun: writes inside the project" grep -qx in inside.txt
t "installed jailrun: refuses outside" test ! -e "$P/outside.txt"
t "installed jailrun: preloads the installed shim" grep -q "^LD_PRELOAD=$P/prefix/lib" <<<"$out"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
