#!/bin/bash
# test_jailrun.sh — jailrun's policy questions end to end, as a user types them:
# --explain, --check, --print-policy, their exit codes and messages, on real
# policy files and a real temporary tree (symlinks included). Also parses
# every policy example in the README and the man pages, so docs cannot drift.
#   usage: test_jailrun.sh BUILD/bin/jailrun SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"
JAILRUN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)

T=$(mktemp -d /tmp/jailrun-test.XXXXXX)
T=$(cd "$T" && pwd -P)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/home/.ssh" "$T/proj/.git/hooks" "$T/proj/src" "$T/other"
cp /bin/true "$T/other/tool"
echo key >"$T/home/.ssh/id_rsa"
echo hosts >"$T/home/.ssh/known_hosts"
ln -s "$T/home/.ssh/id_rsa" "$T/proj/innocent"   # a link inside the project to a key
ln -s "$T/other/new.txt" "$T/proj/dangling"      # dangling, pointing outside
export HOME=$T/home TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
cd "$T/proj" || exit 1


# expect NAME STATUS GREP-PATTERN -- jailrun ARGS...: exit status and an output line
expect() {
	local name=$1 status=$2 pattern=$3
	shift 4
	local out rc
	out=$("$JAILRUN" "$@" 2>&1)
	rc=$?
	if [ "$rc" != "$status" ]; then
		not_ok "$name" "exit $rc, wanted $status" "output: $out"
	elif ! grep -qE -- "$pattern" <<<"$out"; then
		not_ok "$name" "no line matching: $pattern" "output: $out"
	else
		ok "$name"
	fi
}

cat >"$T/p.policy" <<'EOF'
# a project policy
allow read /
deny  read ~/.ssh
allow read ~/.ssh/known_hosts
allow write {cwd}
deny  write {cwd}/.git/hooks
deny  read  **/.env
allow exec /usr /bin
EOF
P=(--policy "$T/p.policy")

expect "explain: key is unreadable" 1 "^deny read $T/home/.ssh/id_rsa$" -- "${P[@]}" --explain read "$HOME/.ssh/id_rsa"
expect "explain: names the deciding rule" 1 "rule: $T/p.policy:3: deny read ~/.ssh" -- "${P[@]}" --explain read "$HOME/.ssh/id_rsa"
expect "explain: carve-out is readable" 0 "^allow read $T/home/.ssh/known_hosts" -- "${P[@]}" --explain read "$HOME/.ssh/known_hosts"
expect "explain: carve-out is not writable" 1 "rule: $T/p.policy:3: deny read ~/.ssh" -- "${P[@]}" --explain write "$HOME/.ssh/known_hosts"
expect "explain: metadata of a denied key" 1 "^deny meta" -- "${P[@]}" --explain meta "$HOME/.ssh/id_rsa"
expect "explain: project file writable" 0 "^allow write $T/proj/src/main.c" -- "${P[@]}" --explain write src/main.c
expect "explain: relative path made absolute" 0 "rule: $T/p.policy:5: allow write \{cwd\}" -- "${P[@]}" --explain write ./src/../src/x
expect "explain: hooks not writable" 1 "rule: $T/p.policy:6: deny write \{cwd\}/.git/hooks" -- "${P[@]}" --explain write .git/hooks/pre-commit
expect "explain: .env not readable" 1 "rule: $T/p.policy:7: deny read \*\*/.env" -- "${P[@]}" --explain read src/.env
expect "explain: .env not writable either" 1 "deny read \*\*/.env" -- "${P[@]}" --explain write src/.env
expect "explain: outside the project not writable" 1 "no rule" -- "${P[@]}" --explain write "$T/other/x"
expect "explain: symlink to a key resolves to the key" 1 "^deny read $T/home/.ssh/id_rsa" -- "${P[@]}" --explain read innocent
expect "explain: says where the link came from" 1 "resolved from: $T/proj/innocent" -- "${P[@]}" --explain read innocent
expect "explain: dangling link resolves outside" 1 "^deny write $T/other/new.txt" -- "${P[@]}" --explain write dangling
expect "explain: exec of a system binary" 0 "^allow exec" -- "${P[@]}" --explain exec /bin/sh
expect "explain: exec outside the grants" 1 "^deny exec" -- "${P[@]}" --explain exec "$T/other/tool"
expect "explain: bad access word" 2 "unknown access 'wrte'" -- "${P[@]}" --explain wrte /x
expect "explain: missing arguments" 2 "needs ACCESS and PATH" -- "${P[@]}" --explain read

# The default policy (no --policy)
expect "default: ssh key unreadable" 1 "rule: <default>:[0-9]+: deny read ~/.ssh" -- --explain read "$HOME/.ssh/id_rsa"
expect "default: known_hosts readable" 0 "^allow read" -- --explain read "$HOME/.ssh/known_hosts"
expect "default: project writable" 0 "allow write \{cwd\}" -- --explain write "$T/proj/new.c"
expect "default: hooks not writable" 1 "deny write \*\*/.git/hooks" -- --explain write .git/hooks/post-checkout
expect "default: bashrc not writable" 1 "deny write ~/.bashrc" -- --explain write "$HOME/.bashrc"
expect "default: /etc/shadow unreadable" 1 "deny read /etc/shadow" -- --explain read /etc/shadow
expect "default: tmp writable" 0 "allow write" -- --explain write "$TMPDIR/scratch"
expect "default: other directories not writable" 1 "no rule" -- --explain write "$T/other/file"

# Policy errors: FILE:LINE:COLUMN, exit 125, nothing run
printf 'allow read /\nallow write relative/path\n' >"$T/bad1.policy"
expect "error: relative pattern" 125 "^jail: $T/bad1.policy:2:13: relative pattern 'relative/path'" -- --policy "$T/bad1.policy" --check
printf 'allow read /\n  frobnicate all /x\n' >"$T/bad2.policy"
expect "error: unknown keyword" 125 "^jail: $T/bad2.policy:2:3: unknown keyword 'frobnicate'" -- --policy "$T/bad2.policy" --check
printf 'allow read,wirte /x\n' >"$T/bad3.policy"
expect "error: unknown access" 125 "^jail: $T/bad3.policy:1:12: unknown access 'wirte'" -- --policy "$T/bad3.policy" --check
printf 'allow read "/x y\n' >"$T/bad4.policy"
expect "error: unterminated quote" 125 "^jail: $T/bad4.policy:1:12: unterminated quote" -- --policy "$T/bad4.policy" --check
printf 'include %s/nope.policy\n' "$T" >"$T/bad5.policy"
expect "error: unreadable include" 125 "^jail: $T/bad5.policy:1:9: cannot read included policy" -- --policy "$T/bad5.policy" --check
printf 'include b.policy\n' >"$T/a.policy"
printf 'allow read /\ninclude a.policy\n' >"$T/b.policy"
expect "error: include cycle" 125 "^jail: $T/b.policy:2:9: include cycle" -- --policy "$T/a.policy" --check
expect "error: missing policy file" 125 "^jail: $T/missing.policy:1:1: cannot read policy file" -- --policy "$T/missing.policy" --check
expect "error: explain on a bad policy" 125 "^jail: $T/bad1.policy:2:13" -- --policy "$T/bad1.policy" --explain read /etc/hosts
expect "error: a bad policy runs nothing" 125 "bad1.policy:2:13" -- --policy "$T/bad1.policy" -- touch "$T/should-not-exist"
if [ -e "$T/should-not-exist" ]; then not_ok "nothing ran" "the command ran"; else ok "nothing ran"; fi

# Several policies combine as one, in order
printf 'allow write %s/other\n' "$T" >"$T/extra.policy"
expect "combine: two files" 0 "rule: $T/extra.policy:1: allow write" -- --policy "$T/p.policy" --policy "$T/extra.policy" --explain write "$T/other/f"
expect "check: counts rules" 0 "^policy ok: 9 rules, mode enforce" -- --policy "$T/p.policy" --policy "$T/extra.policy" --check
printf 'include default\nmode audit\nlog ~/jail.log\n' >"$T/audit.policy"
expect "audit: would deny" 1 "^would deny write" -- --policy "$T/audit.policy" --explain write "$T/other/f"
expect "print: origin of each rule" 0 "deny write \{cwd\}/.git/hooks +# $T/p.policy:6:13 -> $T/proj/.git/hooks" -- "${P[@]}" --print-policy
expect "print: log path expanded" 0 "^# log $T/home/jail.log" -- --policy "$T/audit.policy" --print-policy

# Everyday options
expect "--allow-write grants a one-off directory" 0 "" -- --allow-write "$T/other" -- sh -c "echo x > $T/other/granted"
echo code >"$T/proj/src/x"
expect "--deny refuses a one-off path" 1 "deny all \"$T/proj/src\"" -- --deny src -- cat src/x
expect "--deny names the rule" 1 "<command line>:[0-9]+: deny all" -- --deny "$T/proj/src" --explain read src/x
expect "--allow-read and --allow-exec in explain" 0 "allow exec" -- --allow-exec "$T/other" --explain exec "$T/other/tool"
expect "--read-only: the project is not writable" 2 "jail: denied write $T/proj/ro.txt" -- --read-only -- sh -c "echo x > ro.txt"
expect "--read-only: {tmp} and /dev/null are" 0 "" -- --read-only -- sh -c "echo x > $TMPDIR/ro-ok && echo y > /dev/null"
expect "--quiet: no jail lines" 1 "^$" -- --quiet -- sh -c "cat $HOME/.ssh/id_rsa 2>/dev/null"
expect "summary line after denials" 2 "^jailrun: 2 accesses denied" -- -- sh -c "cat $HOME/.ssh/id_rsa; echo x > $T/other/x"
expect "summary names the log" 1 "^jailrun: 1 access denied \(see $T/tmp/run.log\)" -- --log "$T/tmp/run.log" -- cat "$HOME/.ssh/id_rsa"
expect "audit summary" 0 "^jailrun: 1 access would have been denied" -- --audit -- sh -c "echo x > $T/other/audited"
expect "--disable runs unconfined and says so" 0 "jail is disabled" -- --disable -- cat "$HOME/.ssh/id_rsa"

# The user's policy replaces the default; --policy replaces the user's.
mkdir -p "$T/xdg/jail"
printf 'include default\nallow write %s/other/user-granted\n' "$T" >"$T/xdg/jail/policy"
XDG_CONFIG_HOME=$T/xdg expect "user policy: found and used" 0 "$T/xdg/jail/policy:2: allow write" -- --explain write "$T/other/user-granted/x"
XDG_CONFIG_HOME=$T/xdg expect "user policy: --policy replaces it" 1 "no rule" -- "${P[@]}" --explain write "$T/other/user-granted/x"

# A project's .jail.policy may only narrow.
printf '# from a cloned repository\nallow write /\ndeny write {cwd}/src\nlog %s/.bashrc\n' "$HOME" >"$T/proj/.jail.policy"
expect "project policy: its allow is refused with a message" 2 "ignoring .*.jail.policy:2: 'allow write /'" -- -- sh -c "echo x > $T/other/widened"
expect "project policy: its log is refused" 2 "ignoring 'log'" -- -- sh -c "echo x > $T/other/widened"
expect "project policy: its deny holds, at its own line" 2 ".jail.policy:3: deny write \{cwd\}/src" -- -- sh -c "echo x > src/narrowed"
if [ -e "$T/other/widened" ] || [ -e "$T/proj/src/narrowed" ] || [ -e "$HOME/.bashrc" ]; then
	not_ok "project policy changed nothing it should not" "$(ls "$T/other" "$T/proj/src" "$HOME")"
else
	ok "project policy changed nothing it should not"
fi
rm -f "$T/proj/.jail.policy"

# The ssh agent's socket stays reachable wherever it lives; other sockets do not.
if command -v python3 >/dev/null; then
	mkdir -p "$T/agent"
	python3 -c "
import socket, time
for p in ('$T/agent/agent.sock', '$T/agent/other.sock'):
    s = socket.socket(socket.AF_UNIX); s.bind(p); s.listen(4); globals()[p] = s
time.sleep(20)" &
	srv=$!
	for _ in $(seq 50); do [ -S "$T/agent/other.sock" ] && break; sleep 0.1; done
	connect='import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print("connected")'
	SSH_AUTH_SOCK=$T/agent/agent.sock expect "ssh agent socket reachable" 0 "^connected" -- -- python3 -c "$connect" "$T/agent/agent.sock"
	SSH_AUTH_SOCK=$T/agent/agent.sock expect "another socket is not" 1 "jail: denied write $T/agent/other.sock" -- -- python3 -c "$connect" "$T/agent/other.sock"
	kill "$srv" 2>/dev/null
fi

# Learn mode: a policy that lets the same run pass, with no credential grant.
mkdir -p "$T/work/lib/a" "$T/work/lib/b" "$T/work/lib/c"
workload="for d in a b c; do echo o > $T/work/lib/\$d/out.o; done; echo s > $T/work/single.txt; cat $HOME/.ssh/id_rsa > /dev/null; echo rc >> $HOME/.bashrc; true"
expect "learn: runs in audit mode" 0 "learned [0-9]+ grant" -- --learn "$T/learned.policy" -- sh -c "$workload"
rm -f "$T"/work/lib/*/out.o "$T/work/single.txt" "$HOME/.bashrc"
if grep -qE '^allow .*(\.ssh|\.bashrc)' "$T/learned.policy" || ! grep -q "not granted: read $HOME/.ssh/id_rsa" "$T/learned.policy"; then
	not_ok "learn: no grant on a credential location" "$(cat "$T/learned.policy")"
else
	ok "learn: no grant on a credential location"
fi
expect "learn: the policy parses" 0 "policy ok" -- --policy "$T/learned.policy" --check
out=$("$JAILRUN" --policy "$T/learned.policy" -- sh -c "for d in a b c; do echo o > $T/work/lib/\$d/out.o; done; echo s > $T/work/single.txt" 2>&1)
if [ $? -eq 0 ] && [ -z "$out" ] && [ -f "$T/work/lib/c/out.o" ]; then
	ok "learn: the same run passes in enforce mode"
else
	not_ok "learn: the same run passes in enforce mode" "$out" "$(cat "$T/learned.policy")"
fi

# Usage
expect "help" 0 "^usage: jailrun" -- --help
expect "version" 0 "^jailrun \(libjail\)" -- --version
expect "unknown option" 2 "unknown option '--frob'" -- --frob
expect "run: exit status is the command's" 3 "" -- "${P[@]}" -- sh -c 'exit 3'
expect "run: not found is 127" 127 "command not found" -- "${P[@]}" -- no-such-command-jail
expect "run: refused exec is 126" 126 "cannot run" -- "${P[@]}" -- "$T/other/tool"
expect "run: no command" 2 "no COMMAND" -- "${P[@]}" --

# Every policy example in the docs parses: fenced blocks tagged as policies in
# the README, and the .EX blocks of jail.policy(5) that start with "# policy".
docs=0
extract_readme() { awk '/^```policy$/{on=1; n++; next} /^```$/{on=0} on{print > (dir "/readme-" n ".policy")}' dir="$1" "$SRC/README.md"; }
extract_man() { awk '/^\.EX$/{on=1; n++; next} /^\.EE$/{on=0} on{gsub(/\\e/,"\\"); gsub(/\\-/,"-"); print > (dir "/man-" n ".policy")}' dir="$1" "$SRC/man/jail.policy.5"; }
mkdir -p "$T/docs"
[ -f "$SRC/README.md" ] && extract_readme "$T/docs"
[ -f "$SRC/man/jail.policy.5" ] && extract_man "$T/docs"
for f in "$T"/docs/*.policy; do
	[ -e "$f" ] || continue
	grep -q '^# policy' "$f" || continue
	docs=$((docs + 1))
	out=$("$JAILRUN" --policy "$f" --check 2>&1)
	if [ $? -eq 0 ]; then ok "doc example $(basename "$f") parses"; else not_ok "doc example $(basename "$f") parses" "$out" "$(cat "$f")"; fi
done
if [ "$docs" -ge 3 ]; then ok "docs carry at least 3 policy examples ($docs)"; else not_ok "docs carry policy examples" "found $docs"; fi

# Every "<default>:LINE: RULE" the docs quote names a real rule of the default
# at that line (a quote ends at a space, a parenthesis, or the closing quote
# of a JSON log line).
printed=$("$JAILRUN" --print-policy)
quoted=0
while IFS= read -r q; do
	quoted=$((quoted + 1))
	line=${q#<default>:}
	line=${line%%:*}
	text=${q#<default>:*: }
	if awk -v t="$text" -v l="$line" -F ' +# ' '$1 == t && $2 ~ "^<default>:" l ":" {found=1} END {exit !found}' <<<"$printed"; then
		ok "docs quote the default truly: $q"
	else
		not_ok "docs quote the default truly: $q" "no rule '$text' at <default>:$line"
	fi
done < <(grep -ohE '<default>:[0-9]+: (allow|deny) [a-z,]+ [^ )"]+' "$SRC/README.md" "$SRC"/man/*.[0-9] | sed 's/\\-/-/g' | sort -u)
if [ "$quoted" -ge 2 ]; then ok "docs quote default rules ($quoted)"; else not_ok "docs quote default rules" "found $quoted"; fi

finish
