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
# (writing: the default grants no write there, so neither does the kernel;
# read denies it does not hold under the supervisor, which ask mode runs)
mkdir -p "$T/outside" && echo "beyond" >"$T/outside/x"
printf 'include default\n' >"$T/kernel.policy"
session "$JAILRUN --ask --policy $T/kernel.policy -- sh -c 'echo more >>$T/outside/x'"
wait_for "wants to WRITE" && sleep 0.3
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
# the same ioctl through the 32-bit system call interface (int 0x80)
sti32=''
cat >"$T/sti32.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
static char ch = 'o'; /* below 4 GiB in a non-PIE program: an i386 pointer */
int main(void)
{
	int fd = open("/dev/tty", O_RDWR);
	long ret;
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(54L), "b"((long)fd), "c"(0x5412L), "d"((long)&ch) : "memory");
	printf("int80: %ld\n", ret);
	return 0;
}
EOF
policy=$T/ask.policy
if gcc -O1 -no-pie -o "$T/sti32" "$T/sti32.c" 2>/dev/null; then
	printf 'include default\ndeny read %s/other/**\nallow exec %s/sti32\n' "$T" "$T" >"$T/sti.policy"
	policy=$T/sti.policy
	sti32="$T/sti32 &"
fi
session "$JAILRUN --ask --ask-timeout 6 --policy $policy --log $TMPDIR/ask.log -- sh -c 'python3 $T/inject.py & $sti32 cat $T/other/notes.md; wait'"
wait_for "exit=" 20
out=$(pane)
check "self-answer: TIOCSTI is refused to the jail" has "inject: TIOCSTI Operation not permitted"
if [ -n "$sti32" ]; then
	check "self-answer: ... and through int 0x80 (ENOSYS: no 32-bit calls in the jail)" has "int80: -38"
else
	skipped "self-answer: TIOCSTI through int 0x80" "gcc cannot build a non-PIE program here"
fi
check "self-answer: the question was not answered by it" has "no (no answer in time)"
check "self-answer: the file stayed unread" lacks "other notes"
check "log: the question is logged" grep -q '"decision":"asked"' "$TMPDIR/ask.log"
check "log: ... and the answer" grep -q '"decision":"denied","answer":"no (no answer in time)"' "$TMPDIR/ask.log"

# ---- a session answer covers the refusal it answered, not other rules' ----
printf 'allow read /usr /lib /lib64 /bin /etc /proc /dev /sys %s/proj\nallow exec /usr /bin /lib /lib64\n' "$T" >"$T/narrow.policy"
printf 'allow write /dev/null /dev/tty /dev/pts\ndeny read **/.env\n' >>"$T/narrow.policy"
echo "SECRET=1" >"$T/other/.env"
session "$JAILRUN --ask --kernel=off --policy $T/narrow.policy -- sh -c 'cat $T/other/notes.md; cat $T/other/.env'"
wait_for "wants to READ $T/other/notes.md" && key d
wait_for "wants to READ $T/other/.env" 10 && key n
wait_for "exit=" 10
out=$(pane)
check "scope: 'directory' let the file the question named through" has "other notes"
check "scope: ... but a .env there, refused by its own rule, is asked about again" test "$(questions)" -eq 2
check "scope: ... and stays unread on no" lacks "SECRET=1"

# ---- the broker answers only the library's questions ----
cat >"$T/forge.py" <<'EOF'
import ctypes, os, socket, struct, sys
try:  # through libc, the shim refuses it: the socket is one of the jail's own files
    socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET).connect(os.environ["JAIL_ASK"])
    print("libc-connect: ok")
except OSError as e:
    print("libc-connect:", e.strerror)
libc = ctypes.CDLL("libc.so.6")  # libc's own connect: past the shim, as a raw program would
def ask(path, access="read"):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    sa = struct.pack("=H", socket.AF_UNIX) + os.environ["JAIL_ASK"].encode() + b"\0"
    if libc.connect(s.fileno(), sa, len(sa)) != 0:
        return "cannot connect"
    s.send(("ASK 1\n%s\nopen\n%s\nno rule allows it\n" % (access, path)).encode())
    s.settimeout(5)
    try:
        return s.recv(8).decode() or "closed"
    except socket.timeout:
        return "waiting"
if sys.argv[1:2] == ["--jailed"]:
    print("raw-connect:", ask(sys.argv[2]))
    sys.exit(0)
print("allowed-path:", ask("/etc/hostname"))
print("through-a-link:", ask(sys.argv[1]))
print("dotdot:", ask(sys.argv[2]))
print("refused-path:", ask(sys.argv[3]))
EOF
ln -s "$HOME/.ssh" "$T/proj/innocent"
# (and a question sent by the supervisor for a program that connected
# through the shim's page: the supervisor's credentials, which the broker
# believes a FOR line from, must not carry it)
cat >"$T/forge.sh" <<EOF
python3 $T/forge.py --jailed $T/other/notes.md
printf 'page-forge: '; python3 $HERE/supervise/raw.py ask-forge "\$JAIL_ASK" 'ASK 1\nread\nopen\n$T/other/notes.md\nx\nFOR 1\n'
EOF
session "$JAILRUN --ask --policy $T/ask.policy -- sh $T/forge.sh"
wait_for "exit=" 20
out=$(pane)
check "forged: the shim refuses a connect to the broker's socket (the jail's own file)" has "libc-connect: Permission denied"
check "forged: ... and so does the supervisor, past the shim" has "raw-connect: cannot connect"
check "forged: a question connected through the page and sent by the supervisor is refused" has "page-forge: err EACCES"
check "forged: no question reached the terminal" test "$(questions)" -eq 0
# what the broker puts, driven from outside the jail (from inside, nothing
# reaches it but the library's own questions): a broker of the test's own,
# without a terminal, answers a question the policy refuses with n, and
# closes on the rest without answering
"$BUILD/libexec/libjail/jailctl" --policy "$T/ask.policy" compile "$T/forge.blob"
cp "$T/ask.policy" "$T/forge.policy"
setsid "$BUILD/libexec/libjail/jail-broker" --socket "$T/forge.sock" --timeout 2 --blob "$T/forge.blob" \
	--policy-file "$T/forge.policy" >"$T/forge.ready" </dev/null 2>&1 &
broker=$!
for _ in $(seq 100); do [ -s "$T/forge.ready" ] && break; sleep 0.05; done
out=$(JAIL_ASK=$T/forge.sock python3 "$T/forge.py" "$T/proj/innocent/id_rsa" "$T/proj/../home/.ssh/id_rsa" \
	"$T/other/notes.md" 2>&1)
kill "$broker" 2>/dev/null
check "forged: a question the policy refuses is answered (control: the broker is up)" has "refused-path: n"
check "forged: a question about a path the policy allows is not put" has "allowed-path: closed"
check "forged: nor one through a symlink (not the library's resolved path)" has "through-a-link: closed"
check "forged: nor one with .. in it" has "dotdot: closed"

# ---- a rule written for always names the path literally ----
mkdir -p "$T/other/n*" "$T/other/nested" && echo "in star" >"$T/other/n*/x" && echo "nested" >"$T/other/nested/y"
cp "$T/ask.policy" "$T/glob.policy"
session "$JAILRUN --ask --policy $T/glob.policy -- cat $T/other/n*/x"
wait_for "wants to READ" && key a
wait_for "exit=" 10
check "glob: the rule written escapes the directory's *" grep -qxF 'allow read '"$T"'/other/n\*' "$T/glob.policy"
out=$("$JAILRUN" --policy "$T/glob.policy" -- cat "$T/other/nested/y" 2>&1)
check "glob: ... so it grants nothing else" has "Permission denied"

# ---- a jailed process holding the terminal's output cannot hang the question
# (it holds its own terminal's: --quiet, or the jail's own refusal line would
# wait there too) ----
session "$JAILRUN --ask --ask-timeout 5 --quiet --policy $T/ask.policy -- python3 -c '
import os, termios
fd = os.open(\"/dev/tty\", os.O_RDWR)
termios.tcflow(fd, termios.TCOOFF)
try: open(\"$T/other/notes.md\").read()
except OSError as e: termios.tcflow(fd, termios.TCOON); print(\"refused:\", e.strerror)'"
if wait_for "wants to READ $T/other/notes.md" 10; then
	key n
	ok "tcflow(TCOOFF): the question is still shown"
else
	not_ok "tcflow(TCOOFF): the question is still shown" "$(pane)"
fi
wait_for "exit=" 10
out=$(pane)
check "tcflow(TCOOFF): the answer went through" has "refused: Permission denied"

# ---- the jail runs on a terminal of its own: it cannot read the answer
# nor write over the question ----
cat >"$T/steal.py" <<'EOF'
import os, select, sys, time
if sys.argv[1] == "read":   # detached from its terminal, reading what it holds as fd 0
    os.setsid()
    r, _, _ = select.select([0], [], [], 4)
    print("stolen:", os.read(0, 16) if r else b"nothing", flush=True)
else:                       # painting over the question, once it is shown
    time.sleep(1.5)
    for _ in range(40):
        os.write(1, b"\r\nFAKE QUESTION: press o\r\n")
        time.sleep(0.05)
EOF
session "$JAILRUN --ask --policy $T/ask.policy -- sh -c 'tty; python3 $T/steal.py read & sleep 0.5; python3 $T/steal.py paint & sleep 0.3; cat $T/other/notes.md; wait'"
if wait_for "wants to READ $T/other/notes.md" 10; then
	sleep 2.5
	during=$(pane)
	key o
else
	during=''
fi
wait_for "exit=" 15
out=$(pane)
check "own terminal: the jail's terminal is not the user's" bash -c "grep -q '^/dev/pts/' <<<\"\$0\" && ! grep -q \"\$(tmux -L jail-ask-$$ display -p -t ask$n_session '#{pane_tty}')\" <<<\"\$0\"" "$out"
check "own terminal: the question was shown whole, nothing painted over it" bash -c "grep -q 'wants to READ' <<<\"\$0\" && ! grep -q FAKE <<<\"\$0\"" "$during"
check "own terminal: the answer went to the broker (the file was read)" has "other notes"
check "own terminal: a detached reader got nothing of it" bash -c "grep -q '^stolen: ' <<<\"\$0\" && ! grep -q \"^stolen: b'o\" <<<\"\$0\"" "$out"

# the user's terminal itself is denied to the jail: a process that finds it
# (up its parents' /proc/PID/stat) can neither write over the question nor
# read the keys there
cat >"$T/usertty.py" <<'EOF'
import os, sys
mine = os.ttyname(2)
pid = os.getpid()
while pid > 1:
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ppid, tty_nr = int(fields[1]), int(fields[4])
    if tty_nr:
        major, minor = (tty_nr >> 8) & 0xfff, (tty_nr & 0xff) | ((tty_nr >> 12) & 0xfff00)
        path = "/dev/pts/%d" % minor if major == 136 else None
        if path and path != mine and sys.argv[1:] == ["path"]:
            print(path)
            break
        if path and path != mine:
            for mode in ("w", "r"):
                try:
                    open(path, mode)
                    print("user-tty %s: opened" % mode)
                except OSError as e:
                    print("user-tty %s: %s" % (mode, e.strerror))
            break
    pid = ppid
else:
    print("user-tty: not found")
EOF
session "$JAILRUN --ask --ask-timeout 2 --policy $T/ask.policy -- python3 $T/usertty.py"
wait_for "exit=" 15
out=$(pane)
check "user's terminal: the jail cannot open it for writing" has "user-tty w: Permission denied"
check "user's terminal: ... nor for reading" has "user-tty r: Permission denied"

# ---- nor type into the terminal through its multiplexer ----
session "$JAILRUN --policy $T/ask.policy -- sh -c 'tmux send-keys -t \"\$TMUX_PANE\" \"echo INJECT\$((6*7))\" Enter; echo tmux=\$?'"
wait_for "exit=" 10
sleep 0.5
out=$(pane)
check "tmux: the jail cannot reach the multiplexer's socket" has "jail: denied write"
check "tmux: ... so nothing was typed" lacks "INJECT42"

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

# ---- ask mode runs the supervisor: a program past the C library cannot
# reach the terminal the answer is typed on either ----
if [ -x "$BUILD/libexec/libjail/jail-supervise" ]; then
	RAW=$HERE/supervise/raw.py
	echo "allowed notes" >"$T/proj/allowed.md"
	cat >"$T/reach.sh" <<EOF
tty=\$(python3 $T/usertty.py path)
echo "found \$tty"
printf 'raw-tty-w: '; python3 $RAW open "\$tty" w
printf 'raw-tty-r: '; python3 $RAW open "\$tty" r
printf 'raw-tmux: '; python3 $RAW connect-unix "\${TMUX%%,*}"
printf 'raw-ctl: '; python3 $RAW connect-unix "$T/proj/ctl.sock"
printf 'page-allowed: '; RAW_VIA_PAGE=1 python3 $RAW read $T/proj/allowed.md
printf 'page-tty-w: '; RAW_VIA_PAGE=1 python3 $RAW open "\$tty" w
printf 'page-tty-r: '; RAW_VIA_PAGE=1 python3 $RAW open "\$tty" r
printf 'page-tmux: '; RAW_VIA_PAGE=1 python3 $RAW connect-unix "\${TMUX%%,*}"
printf 'page-ctl: '; RAW_VIA_PAGE=1 python3 $RAW connect-unix "$T/proj/ctl.sock"
EOF
	# a socket of the test's own, which the policy allows: the control row
	python3 -c 'import socket,sys,time; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4); time.sleep(60)' \
		"$T/proj/ctl.sock" &
	ctl_pid=$!
	session "$JAILRUN --ask --ask-timeout 2 --policy $T/ask.policy --log $TMPDIR/reach.log -- bash $T/reach.sh"
	wait_for "exit=" 30
	out=$(pane)
	check "past libc: the user's terminal was found (the rows below test something)" has "found /dev/pts/"
	check "past libc: a raw open of the user's terminal for writing is refused" has "raw-tty-w: err EACCES"
	check "past libc: ... and for reading" has "raw-tty-r: err EACCES"
	check "past libc: a raw connect to the multiplexer's socket is refused" has "raw-tmux: err EACCES"
	check "past libc: a raw connect to an allowed socket works (control)" has "raw-ctl: ok"
	# a program calling the shim's own syscall page (which the supervisor
	# trusts for opens): the kernel layer holds the terminal, and the
	# supervisor decides every connect, the page's too
	check "page: a call through the shim's syscall page works (control: the rows below use it)" \
		has "page-allowed: ok allowed notes"
	check "page: the user's terminal is refused for writing through it (the kernel layer)" has "page-tty-w: err EACCES"
	check "page: ... and for reading" has "page-tty-r: err EACCES"
	check "page: a connect to the multiplexer's socket through it is refused (supervised)" has "page-tmux: err EACCES"
	check "page: a connect to an allowed socket through it works (control)" has "page-ctl: ok"
	check "past libc: terminals and sockets are not asked about (granting one would hand over the next answer)" \
		test "$(questions)" -eq 0
	check "past libc: ... and their refusals are logged as such" grep -q 'a terminal or a socket: not asked' "$TMPDIR/reach.log"
	kill "$ctl_pid" 2>/dev/null

	# a question held by the supervisor holds its caller alone: another
	# process of the jail starts (its loader's opens are supervised too)
	# and makes raw calls while the question waits
	# (its output waits while the broker asks: it writes to a file)
	echo "allowed notes" >"$T/proj/allowed.md"
	rm -f "$T/proj/second.out"
	session "$JAILRUN --ask --policy $T/ask.policy -- sh -c 'python3 $RAW read $T/other/notes.md & sleep 1; python3 $RAW read $T/proj/allowed.md >$T/proj/second.out; wait'"
	wait_for "wants to READ $T/other/notes.md" 15
	for _ in $(seq 100); do [ -s "$T/proj/second.out" ] && break; sleep 0.1; done
	second=$(cat "$T/proj/second.out" 2>/dev/null)
	during=$(pane)
	key o
	wait_for "exit=" 10
	out=$(pane)
	check "held: another process started and read while the question waited" test "$second" = "ok allowed notes"
	check "held: ... the question still unanswered then" bash -c "! grep -q 'ok other notes' <<<\"\$0\"" "$during"
	check "held: the question's call went on after once" has "ok other notes"
else
	skipped "past libc: ask mode's supervisor" "jail-supervise is not built here"
fi

# ---- the kernel layer's hold on the user's terminal takes nothing else:
# a policy that lets everything run keeps running things ----
printf 'allow read /\nallow write {cwd} {tmp} /dev/null /dev/tty /dev/pts\nallow exec /\n' >"$T/exec.policy"
session "$JAILRUN --ask --policy $T/exec.policy -- sh -c 'echo exec-\$((6*7))'"
wait_for "exit=" 15
out=$(pane)
check "hold: with 'allow exec /', programs still run" has "exec-42"

# ---- ask mode without the supervisor refuses to start ----
mkdir -p "$T/nosup/bin" "$T/nosup/libexec/libjail" "$T/nosup/lib"
cp "$BUILD/bin/jailrun" "$T/nosup/bin/"
for h in jailctl jail-broker jail-netproxy; do
	[ -e "$BUILD/libexec/libjail/$h" ] && ln -s "$BUILD/libexec/libjail/$h" "$T/nosup/libexec/libjail/$h"
done
ln -s "$BUILD/lib/libjail.so" "$T/nosup/lib/libjail.so"
out=$("$T/nosup/bin/jailrun" --ask --policy "$T/ask.policy" -- cat "$T/other/notes.md" </dev/null 2>&1)
rc=$?
check "no supervisor: --ask exits 125" test "$rc" -eq 125
check "no supervisor: ... saying why" has "ask mode needs the supervisor"
check "no supervisor: ... and ran nothing" lacks "other notes"

# ---- no terminal: no, at once ----
start=$(date +%s)
out=$(setsid -w "$JAILRUN" --ask --policy "$T/ask.policy" --log "$TMPDIR/notty.log" -- cat "$T/other/notes.md" </dev/null 2>&1)
check "no terminal: refused without waiting" test $(($(date +%s) - start)) -lt 5
check "no terminal: the call failed" has "Permission denied"
check "no terminal: logged as such" grep -q 'no terminal to ask on' "$TMPDIR/notty.log"

finish
