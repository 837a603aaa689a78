#!/bin/bash
# test_ask.sh — jailrun --ask at a real terminal: tmux runs the jail in a
# pane, the test reads the pane and types the answers. Once, a directory for
# the session (a second process is not asked again), always (the policy
# file gains the rule; the next run is not asked), no, a timeout, no
# terminal, a burst of 100 refusals making one question, a credential
# location's second confirmation, the kernel layer's note, the log, and a
# jailed process trying to answer its own question.
#   usage: test_ask.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
JAILRUN=$BUILD/bin/jailrun
if ! command -v tmux >/dev/null; then
	skipped "ask mode at a terminal" "tmux is not installed"
	finish
	exit
fi
T=$(mktemp -d /tmp/jail-ask-test.XXXXXX)
T=$(cd "$T" && pwd -P)
TM=(tmux -L "jail-ask-$$" -f /dev/null)
cleanup() { "${TM[@]}" kill-server 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
export HOME=$T/home TMPDIR=$T/tmp PATH=/usr/local/bin:/usr/bin:/bin LC_ALL=C XDG_CONFIG_HOME=$T/home/.config
unset SSH_AUTH_SOCK
mkdir -p "$HOME/.ssh" "$TMPDIR" "$T/proj" "$T/other" "$T/burst"
echo "secret key" >"$HOME/.ssh/id_rsa"
for i in $(seq 0 99); do echo "$i" >"$T/burst/f$i"; done
echo "other notes" >"$T/other/notes.md"
echo "more notes" >"$T/other/more.md"
cd "$T/proj" || exit 1

# The kernel layer grants $T readable, so what the shim refuses (a glob
# deny) is the user's to grant; $T/outside is beyond the kernel's ruleset.
cat >"$T/ask.policy" <<EOF
include default
deny read $T/other/** $T/burst/**
EOF

# One tmux server for the whole test, kept alive by a session of its own
# (a server whose last session ends exits, and a new session started just
# then can meet the dying one); each case gets a session of its own.
"${TM[@]}" new-session -d -s keeper "sleep 3600"
n_session=0
# session COMMAND: runs COMMAND in a new tmux pane (a real terminal),
# writing "exit=N" when it ends.
session() {
	[ "$n_session" -gt 0 ] && "${TM[@]}" kill-session -t "ask$n_session" 2>/dev/null
	n_session=$((n_session + 1))
	"${TM[@]}" new-session -d -s "ask$n_session" -x 220 -y 60 \
		"cd '$T/proj'; export HOME='$HOME' TMPDIR='$TMPDIR' XDG_CONFIG_HOME='$XDG_CONFIG_HOME'; $1; echo exit=\$?; sleep 600"
	"${TM[@]}" set-option -t "ask$n_session" history-limit 5000 >/dev/null
}
pane() { "${TM[@]}" capture-pane -p -J -S - -t "ask$n_session" 2>/dev/null; }
# wait_for PATTERN [SECS]: until the pane shows PATTERN (grep -E); 1 on timeout
wait_for() {
	local i
	for i in $(seq $((${2:-10} * 10))); do
		pane | grep -qE -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
key() { "${TM[@]}" send-keys -t "ask$n_session" "$@"; }
questions() { pane | grep -c "wants to"; }

# ---- once ----
session "$JAILRUN --ask --policy $T/ask.policy -- sh -c 'cat $T/other/notes.md; cat $T/other/notes.md'"
wait_for "wants to READ $T/other/notes.md" && key o
wait_for "other notes" && wait_for "wants to READ.*\[N\]o \? *$" 5
out=$(pane)
check "once: the question names the program, the access and the path" has "jail: cat (pid "
check "once: it offers once, the directory, always and no" has "[o]nce  [d]irectory $T/other for this session  [a]lways (add to policy)  [N]o"
check "once: the file was read" has "other notes"
key n
wait_for "exit=" 5
out=$(pane)
check "once: the same request later is asked again" test "$(questions)" -eq 2
check "once: ... and no refuses it" has "cat: $T/other/notes.md: Permission denied"

# ---- directory: for the session, every process of the jail ----
session "$JAILRUN --ask --policy $T/ask.policy -- sh -c 'cat $T/other/notes.md; sh -c \"cat $T/other/more.md\"'"
wait_for "wants to READ" && key d
wait_for "exit=" 10
out=$(pane)
check "directory: the first file was read" has "other notes"
check "directory: a second process, another file there: not asked again" has "more notes"
check "directory: one question in all" test "$(questions)" -eq 1

# ---- no, and a burst of 100 refusals: one question ----
session "$JAILRUN --ask --policy $T/ask.policy -- python3 -c '
import os, threading
def one(i):
    try: open(\"$T/burst/f%d\" % i).read(); print(\"read\", i)
    except OSError as e: pass
ts = [threading.Thread(target=one, args=(i,)) for i in range(100)]
[t.start() for t in ts]; [t.join() for t in ts]
print(\"burst done\")'"
wait_for "wants to READ $T/burst/" && sleep 1 && key n
wait_for "exit=" 20
out=$(pane)
check "burst: 100 refused opens from 100 threads made one question" test "$(questions)" -eq 1
check "burst: no refused them all" bash -c "! grep -qE '^read [0-9]' <<<\"\$0\"" "$out"
check "burst: the program went on" has "burst done"

# ---- rate limit: five refusals in a row pause the questions ----
mkdir -p "$T/storm"
for i in 1 2 3 4 5 6 7; do mkdir -p "$T/storm/d$i" && echo "s$i" >"$T/storm/d$i/f"; done
printf 'include default\ndeny read %s/storm/**\n' "$T" >"$T/storm.policy"
session "$JAILRUN --ask --policy $T/storm.policy --log $TMPDIR/storm.log -- sh -c 'for i in 1 2 3 4 5 6 7; do cat $T/storm/d\$i/f; done'"
for i in 1 2 3 4 5; do
	wait_for "wants to READ $T/storm/d$i/f" 10 && key n
done
wait_for "exit=" 10
out=$(pane)
check "rate limit: five refusals in a row, then no more questions" test "$(questions)" -eq 5
check "rate limit: the pause is said" has "refusals in 20 s: the next 30 s of questions are refused without asking"
check "rate limit: the rest are refused, and logged as such" grep -q 'questions paused' "$TMPDIR/storm.log"

# ---- timeout ----
session "$JAILRUN --ask --ask-timeout 2 --policy $T/ask.policy -- cat $T/other/notes.md"
start=$(date +%s)
wait_for "exit=" 15
out=$(pane)
check "timeout: no answer is no" has "no (no answer in time)"
check "timeout: ... after the timeout, not before" test $(($(date +%s) - start)) -ge 2
check "timeout: the call was refused" has "Permission denied"

# ---- always: the policy file gains the rule; the next run is not asked ----
cp "$T/ask.policy" "$T/always.policy"
session "$JAILRUN --ask --policy $T/always.policy -- cat $T/other/notes.md"
wait_for "wants to READ" && key a
wait_for "exit=" 10
out=$(pane)
check "always: the grant is shown (the file itself: a deny on other/** outweighs a directory rule)" \
	has "jail: added to $T/always.policy: allow read $T/other/notes.md"
check "always: the file was read" has "other notes"
check "always: the policy file has the rule, commented" \
	bash -c "grep -q '^# added by jailrun --ask' '$T/always.policy' && grep -qx 'allow read $T/other/notes.md' '$T/always.policy'"
out=$("$JAILRUN" --policy "$T/always.policy" -- cat "$T/other/notes.md" 2>&1)
check "always: the next run (not asking) reads it" has "other notes"

# ---- a credential location needs a second yes ----
cp "$T/ask.policy" "$T/cred.policy"
session "$JAILRUN --ask --kernel=off --policy $T/cred.policy -- cat $HOME/.ssh/id_rsa"
wait_for "wants to READ $HOME/.ssh/id_rsa" && key a
wait_for "is a credential location" && key n
wait_for "exit=" 10
out=$(pane)
check "credential: always asks for a second confirmation, naming the rule" has "is a credential location (<default>:10: deny read ~/.ssh)"
check "credential: without it, nothing is added" bash -c "! grep -q '.ssh' '$T/cred.policy'"
check "credential: ... and the key was not read" lacks "secret key"

# ---- the kernel layer: a grant it would ignore is not offered ----
mkdir -p "$T/outside" && echo "beyond" >"$T/outside/x"
printf 'include default\ndeny read %s/outside\n' "$T" >"$T/kernel.policy"
session "$JAILRUN --ask --policy $T/kernel.policy -- cat $T/outside/x"
wait_for "wants to READ" && sleep 0.3
out=$(pane)
if grep -q "Landlock ABI 0" <<<"$("$BUILD/libexec/libjail/jailctl" print 2>&1)"; then
	skipped "kernel: the question says the kernel layer refuses it" "no Landlock here"
else
	check "kernel: the question says the kernel layer refuses it in this run" has "the kernel layer refuses it in this run"
	check "kernel: ... and offers no [o]nce" lacks "[o]nce"
fi
key n
wait_for "exit=" 5

# ---- the jailed process cannot answer its own question ----
cat >"$T/inject.py" <<'EOF'
import fcntl, os, sys, termios, time
fd = os.open("/dev/tty", os.O_RDWR)
result = "none"
for _ in range(30):
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, b"o")
        result = "typed"
    except OSError as e:
        result = "TIOCSTI " + os.strerror(e.errno)
    os.write(fd, b"")
    time.sleep(0.1)
print("inject:", result)
EOF
session "$JAILRUN --ask --ask-timeout 6 --policy $T/ask.policy --log $TMPDIR/ask.log -- sh -c 'python3 $T/inject.py & cat $T/other/notes.md; wait'"
wait_for "exit=" 20
out=$(pane)
check "self-answer: TIOCSTI is refused to the jail" has "inject: TIOCSTI Operation not permitted"
check "self-answer: the question was not answered by it" has "no (no answer in time)"
check "self-answer: the file stayed unread" lacks "other notes"
check "log: the question is logged" grep -q '"decision":"asked"' "$TMPDIR/ask.log"
check "log: ... and the answer" grep -q '"decision":"denied","answer":"no (no answer in time)"' "$TMPDIR/ask.log"

# ---- what the jail names is shown, never obeyed, by the terminal ----
esc=$(printf '\033')
touch "$T/other/red${esc}[31mfile"
session "$JAILRUN --ask --ask-timeout 3 --policy $T/ask.policy -- python3 -c '
import ctypes
ctypes.CDLL(None).prctl(15, b\"x\\x1b[2Jy\", 0, 0, 0)   # PR_SET_NAME: an escape in the program name
open(\"$T/other/red\" + chr(27) + \"[31mfile\").read()'"
wait_for "exit=" 15
out=$(pane)
check "escapes: the program name's control bytes are shown as text" has 'jail: x\x1b[2Jy (pid'
check "escapes: so are the path's" has 'wants to READ '"$T"'/other/red\x1b[31mfile'

# ---- under the supervisor: a raw system call is asked about too ----
if [ -x "$BUILD/libexec/libjail/jail-supervise" ]; then
	RAW=$HERE/supervise/raw.py
	session "$JAILRUN --ask --supervise --policy $T/ask.policy -- python3 $RAW read $T/other/notes.md"
	wait_for "wants to READ $T/other/notes.md" 15 && key o
	wait_for "exit=" 10
	out=$(pane)
	check "supervised: the question names the caller (python3, by its real file's name)" has "jail: python3"
	check "supervised: ... not the supervisor" lacks "jail-supervise (pid"
	check "supervised: once lets the raw read through" has "ok other notes"
else
	skipped "supervised: a raw system call is asked about" "jail-supervise is not built here"
fi

# ---- no terminal: no, at once ----
start=$(date +%s)
out=$(setsid -w "$JAILRUN" --ask --policy "$T/ask.policy" --log "$TMPDIR/notty.log" -- cat "$T/other/notes.md" </dev/null 2>&1)
check "no terminal: refused without waiting" test $(($(date +%s) - start)) -lt 5
check "no terminal: the call failed" has "Permission denied"
check "no terminal: logged as such" grep -q 'no terminal to ask on' "$TMPDIR/notty.log"

finish
