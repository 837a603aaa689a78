#!/bin/bash
# test_network.sh — `net` rules end to end, on loopback only: servers the
# test starts on 127.0.0.1, names from a hosts file the test controls
# (nss_wrapper), real programs (python3, curl, a static binary) in the jail.
# No packet leaves the machine: every address but loopback is refused
# before the system call (checked with strace when it is installed).
#   usage: test_network.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$(cd "$1" && pwd)
JAILRUN=$BUILD/bin/jailrun
T=$(mktemp -d /tmp/jail-net-test.XXXXXX)
T=$(cd "$T" && pwd -P)
chmod 755 "$T"
pids=()
cleanup() { [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
export HOME=$T/home TMPDIR=$T/tmp PATH=/usr/local/bin:/usr/bin:/bin LC_ALL=C XDG_CONFIG_HOME=$T/home/.config
unset SSH_AUTH_SOCK HTTPS_PROXY HTTP_PROXY ALL_PROXY https_proxy http_proxy all_proxy NO_PROXY no_proxy
mkdir -p "$HOME" "$TMPDIR" "$T/proj" "$T/bin"
cd "$T/proj" || exit 1

# serve NAME: a loopback TCP server answering "hello NAME" (and, to an HTTP
# request, an HTTP response); its port in $T/NAME.port.
serve() {
	python3 - "$T/$1.port" "$1" <<'EOF' &
import socket, sys, threading
s = socket.socket()
s.bind(('127.0.0.1', 0)); s.listen(64)
open(sys.argv[1], 'w').write(str(s.getsockname()[1]))
def talk(c):
    try:
        c.settimeout(2)
        try: first = c.recv(4096)
        except socket.timeout: first = b''
        body = ('hello ' + sys.argv[2] + '\n').encode()
        if first.startswith(b'GET '):
            c.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n' % len(body) + body)
        else:
            c.sendall(body)
    finally:
        c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=talk, args=(c,), daemon=True).start()
EOF
	pids+=($!)
	for _ in $(seq 50); do [ -s "$T/$1.port" ] && break; sleep 0.1; done
}
serve a
serve b
A=$(cat "$T/a.port")
B=$(cat "$T/b.port")

# connect.py HOST PORT...: one line per port, "PORT ok hello ..." or "PORT err ERROR"
cat >"$T/bin/connect.py" <<'EOF'
import socket, sys
host = sys.argv[1]
for port in sys.argv[2:]:
    try:
        s = socket.create_connection((host, int(port)), timeout=3)
        s.sendall(b'hi\n')
        print(port, 'ok', s.recv(100).decode().strip())
    except socket.gaierror as e:
        print(port, 'noname', e.strerror)
    except OSError as e:
        print(port, 'err', e.strerror)
EOF
run() { out=$("$JAILRUN" "$@" 2>&1); rc=$?; }

# ---- addresses: an allowed and a denied loopback port ----
printf 'include default\nnet none\nnet allow 127.0.0.1:%s\n' "$A" >"$T/ports.policy"
run --policy "$T/ports.policy" -- python3 "$T/bin/connect.py" 127.0.0.1 "$A" "$B"
check "net none + allow 127.0.0.1:A: port A answers" has "$A ok hello a"
check "... port B is refused" has "$B err Permission denied"
check "... with a message naming the rule" has "jail: denied connect 127.0.0.1:$B ($T/ports.policy:2: net none)"
run --policy "$T/ports.policy" --kernel=off -- python3 "$T/bin/connect.py" ::1 "$A"
check "... and ::1 is not 127.0.0.1" has "jail: denied connect [::1]:$A"

run -- python3 "$T/bin/connect.py" 127.0.0.1 "$A" "$B"
check "default: loopback stays reachable" has "$B ok hello b"

# ---- the local network is refused by default, before any packet ----
run -- python3 "$T/bin/connect.py" 169.254.169.254 80 "$A"
check "default: the metadata service is refused" has "jail: denied connect 169.254.169.254:80 (the local network"
run -- python3 "$T/bin/connect.py" 10.0.0.1 80
check "default: RFC 1918 is refused" has "80 err Permission denied"
run -- python3 "$T/bin/connect.py" ::ffff:192.168.1.1 80
check "default: an IPv4-mapped private address is refused" has "jail: denied connect"
run -- python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"x", ("169.254.169.254", 53 + 1))'
check "default: a UDP datagram to the metadata address is refused" has "jail: denied connect 169.254.169.254:54"
if command -v strace >/dev/null; then
	strace -f -qq -e trace=connect,sendto -o "$T/trace" "$JAILRUN" --quiet -- \
		python3 "$T/bin/connect.py" 169.254.169.254 80 >/dev/null 2>&1
	check "default: no connect to 169.254.169.254 reached the kernel" bash -c "! grep -q '169.254.169.254' '$T/trace'"
else
	skipped "default: no connect to 169.254.169.254 reached the kernel" "strace is not installed"
fi

# ---- names: resolved only when allowed; their addresses reachable through them ----
NSS=$(for d in /usr/lib/*-linux-gnu /usr/lib64 /usr/lib; do [ -e "$d/libnss_wrapper.so" ] && echo "$d/libnss_wrapper.so" && break; done)
if [ -n "$NSS" ]; then
	printf '127.0.0.1 allowed.test\n127.0.0.1 denied.test\n' >"$T/hosts"
	export NSS_WRAPPER_HOSTS=$T/hosts NSS_WRAPPER_PASSWD=/etc/passwd NSS_WRAPPER_GROUP=/etc/group
	printf 'include default\nnet none\nnet allow allowed.test:%s\n' "$A" >"$T/names.policy"
	LD_PRELOAD=$NSS run --policy "$T/names.policy" -- python3 "$T/bin/connect.py" allowed.test "$A" "$B"
	check "a name the policy allows resolves, and reaches its port" has "$A ok hello a"
	check "... only that port" has "jail: denied connect allowed.test (127.0.0.1):$B"
	LD_PRELOAD=$NSS run --policy "$T/names.policy" -- python3 "$T/bin/connect.py" denied.test "$A"
	check "a name the policy does not allow does not resolve" has "$A noname"
	check "... with a message" has "jail: denied resolve denied.test ($T/names.policy:2: net none)"
	LD_PRELOAD=$NSS run --policy "$T/names.policy" -- python3 "$T/bin/connect.py" 127.0.0.1 "$A"
	check "the name's address, asked for without the name, is refused" has "jail: denied connect 127.0.0.1:$A"
	LD_PRELOAD=$NSS run --policy "$T/names.policy" -- getent hosts denied.test
	check "getent (gethostbyname2) is refused the name too" status_is 2
	LD_PRELOAD=$NSS run --policy "$T/names.policy" -- getent hosts allowed.test
	check "getent resolves the allowed name" has "127.0.0.1"

	# the jail's proxy: jailrun starts it for an allowlist and points the
	# proxy variables at it; it resolves and decides with the same policy
	printf 'include default\nnet allow allowed.test:%s\nnet deny denied.test\n' "$A" >"$T/proxy.policy"
	if command -v curl >/dev/null; then
		LD_PRELOAD=$NSS run --policy "$T/proxy.policy" -- sh -c 'echo "proxy=$HTTP_PROXY"; curl -sS "http://allowed.test:'"$A"'/"'
		check "proxy: jailrun exports HTTP_PROXY on loopback" has "proxy=http://127.0.0.1:"
		check "proxy: an allowed name through it works (plain HTTP)" has "hello a"
		LD_PRELOAD=$NSS run --policy "$T/proxy.policy" -- curl -sS -p "http://allowed.test:$A/"
		check "proxy: ... and through a CONNECT tunnel" has "hello a"
		LD_PRELOAD=$NSS run --policy "$T/proxy.policy" -- curl -sS -p "http://allowed.test:$B/"
		check "proxy: another port of the allowed name is refused" has "jail: denied connect allowed.test:$B (no rule allows it)"
		LD_PRELOAD=$NSS run --policy "$T/proxy.policy" -- curl -sS -w "status=%{http_code}" "http://denied.test:$A/"
		check "proxy: a denied name is refused with the jail's message" has "jail: denied connect denied.test:$A ($T/proxy.policy:3: net deny denied.test)"
		check "proxy: ... as a 403 the client sees" has "status=403"
		check "proxy: ... counted in the summary" has "jailrun: 1 access denied"
	else
		skipped "proxy" "curl is not installed"
	fi
	unset NSS_WRAPPER_HOSTS NSS_WRAPPER_PASSWD NSS_WRAPPER_GROUP
else
	skipped "names" "libnss-wrapper is not installed (the test needs a hosts file of its own)"
fi
run -- sh -c 'echo "proxy=${HTTPS_PROXY:-none}"'
check "no net rules: no proxy is started" has "proxy=none"

# ---- the kernel layer: a static binary, past the shim ----
if gcc -static -O1 -o "$T/bin/conn" -x c - 2>/dev/null <<'EOF'
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
int main(int argc, char **argv)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[1]))};
	inet_pton(AF_INET, argc > 2 ? argv[2] : "127.0.0.1", &a.sin_addr);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(s, (struct sockaddr *)&a, sizeof(a)) != 0) {
		printf("%s err %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("%s ok\n", argv[1]);
	return 0;
}
EOF
then
	abi=$("$BUILD/libexec/libjail/jailctl" print 2>/dev/null | sed -n 's/.*Landlock ABI \([0-9]*\).*/\1/p')
	if [ "${abi:-0}" -ge 4 ]; then
		printf 'include default\nallow exec %s\nnet none\nnet allow 127.0.0.1:%s\n' "$T/bin" "$A" >"$T/static.policy"
		run --policy "$T/static.policy" -- sh -c "'$T/bin/conn' $A; '$T/bin/conn' $B"
		check "static binary: the port the policy names connects" has "$A ok"
		check "static binary: another port is refused by the kernel" has "$B err Permission denied"
		printf 'include default\nnet allow 127.0.0.1:%s\n' "$A" >"$T/bound.policy"
		run --policy "$T/bound.policy" -- python3 "$T/bin/connect.py" 127.0.0.1 "$B"
		check "kernel bound: a loopback port no rule names is refused, with the reason" \
			has "jail: denied connect 127.0.0.1:$B (the kernel layer lets TCP reach only the ports"
		run --policy "$T/bound.policy" --kernel=off -- python3 "$T/bin/connect.py" 127.0.0.1 "$B"
		check "kernel bound: without the kernel layer loopback stays reachable" has "$B ok hello b"
		run --policy "$T/bound.policy" --explain connect "127.0.0.1:$B"
		check "kernel bound: explain says so" has "but the kernel layer lets TCP reach only"
		check "kernel bound: explain exits 1" status_is 1
		# the kernel knows ports, not addresses; the supervisor decides the address
		if [ -x "$BUILD/libexec/libjail/jail-supervise" ]; then
			run --policy "$T/static.policy" -- "$T/bin/conn" "$A" 127.0.0.2
			check "static binary, control: the kernel lets the named port through on another address" \
				has "$A err Connection refused"
			run --policy "$T/static.policy" --supervise -- sh -c "'$T/bin/conn' $A; '$T/bin/conn' $A 127.0.0.2"
			check "static binary, --supervise: the allowed address connects" has "$A ok"
			check "static binary, --supervise: another address at that port is refused" has "$A err Permission denied"
		else
			skipped "static binary under the supervisor" "jail-supervise is not built here"
		fi
		printf 'include default\nallow exec %s\n' "$T/bin" >"$T/static-open.policy"
		run --policy "$T/static-open.policy" -- "$T/bin/conn" "$B"
		check "static binary: without net rules the kernel does not bound ports" has "$B ok"
	else
		skipped "static binary under the kernel layer" "Landlock ABI ${abi:-0} < 4 bounds no TCP ports"
	fi
else
	skipped "static binary under the kernel layer" "gcc -static cannot link here"
fi

# ---- spellings and routes of an address that must not slip past ----
cat >"$T/bin/odd.py" <<'EOF'
import ctypes, os, socket, struct, sys
port = int(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)  # the process's own symbols: the shim's
def call(name, *args):
    r = getattr(libc, name)(*args)
    return "ok" if r >= 0 else os.strerror(ctypes.get_errno())
# a 24-byte IPv6 address (RFC 2133 size), which the kernel accepts
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
sa6 = struct.pack("!HHI16s", socket.AF_INET6, port, 0, socket.inet_pton(socket.AF_INET6, "::1"))[:24]
sa6 = struct.pack("=H", socket.AF_INET6) + sa6[2:]
print("v6-24:", call("connect", s6.fileno(), sa6, 24))
# a datagram to an AF_UNSPEC address, which IPv4 UDP takes as AF_INET
s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sa4 = struct.pack("=H", 0) + struct.pack("!H4s8x", port, socket.inet_aton("127.0.0.1"))
print("unspec:", call("sendto", s4.fileno(), b"x", 1, 0, sa4, 16))
# sendmsg through the generic syscall()
class iovec(ctypes.Structure): _fields_ = [("b", ctypes.c_void_p), ("n", ctypes.c_size_t)]
class msghdr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("namelen", ctypes.c_uint), ("iov", ctypes.POINTER(iovec)),
                ("iovlen", ctypes.c_size_t), ("ctl", ctypes.c_void_p), ("ctllen", ctypes.c_size_t), ("flags", ctypes.c_int)]
sa = struct.pack("=H", socket.AF_INET) + struct.pack("!H4s8x", port, socket.inet_aton("127.0.0.1"))
buf = ctypes.create_string_buffer(b"x")
iv = iovec(ctypes.cast(buf, ctypes.c_void_p), 1)
m = msghdr(sa, 16, ctypes.pointer(iv), 1, None, 0, 0)
print("syscall-sendmsg:", call("syscall", 46, s4.fileno(), ctypes.byref(m), 0))
# sendmmsg: six messages (more than the hook keeps on its stack), the last to a refused address
class mmsghdr(ctypes.Structure): _fields_ = [("hdr", msghdr), ("len", ctypes.c_uint)]
def batch(last):
    ms = (mmsghdr * 6)()
    names = [sa] * 5 + [struct.pack("=H", socket.AF_INET) + struct.pack("!H4s8x", port, socket.inet_aton(last))]
    for i, nm in enumerate(names):
        ms[i].hdr = msghdr(nm, 16, ctypes.pointer(iv), 1, None, 0, 0)
    r = libc.sendmmsg(s4.fileno(), ms, 6, 0)
    return str(r) if r >= 0 else os.strerror(ctypes.get_errno())
print("sendmmsg-refused:", batch("10.0.0.1"))
print("sendmmsg-allowed:", batch("127.0.0.1"))
EOF
printf 'include default\nnet none\n' >"$T/none.policy"
run --policy "$T/none.policy" --kernel=off -- python3 "$T/bin/odd.py" "$A"
check "a 24-byte IPv6 address is decided like any other" has "v6-24: Permission denied"
check "a datagram to an AF_UNSPEC address is decided as IPv4" has "unspec: Permission denied"
check "sendmsg through syscall() is decided" has "syscall-sendmsg: Permission denied"
run --kernel=off -- python3 "$T/bin/odd.py" "$A"
check "sendmmsg: one refused address refuses the batch, before anything is sent" has "sendmmsg-refused: Permission denied"
check "sendmmsg: an allowed batch of six is sent whole" has "sendmmsg-allowed: 6"

# the address is copied before it is decided: a thread flipping it between
# an allowed and a refused one never gets the refused one through
if gcc -O1 -pthread -o "$T/bin/flip" -x c - 2>/dev/null <<'EOF'
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
static struct sockaddr_in sa;
static volatile int done;
static void *flip(void *arg)
{
	(void)arg;
	while (!done) {
		sa.sin_addr.s_addr = htonl(0x7f000001); /* 127.0.0.1: allowed */
		sa.sin_addr.s_addr = htonl(0x7f000002); /* 127.0.0.2: refused */
	}
	return NULL;
}
int main(int argc, char **argv)
{
	sa.sin_family = AF_INET;
	sa.sin_port = htons((unsigned short)atoi(argv[1]));
	pthread_t t;
	pthread_create(&t, NULL, flip, NULL);
	long through = 0, tries = 0;
	for (int i = 0; i < 200000; i++, tries++) {
		int s = socket(AF_INET, SOCK_DGRAM, 0);
		if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			struct sockaddr_in peer;
			socklen_t pl = sizeof(peer);
			if (getpeername(s, (struct sockaddr *)&peer, &pl) == 0 && peer.sin_addr.s_addr == htonl(0x7f000002))
				through++;
		}
		close(s);
	}
	done = 1;
	pthread_join(t, NULL);
	printf("flip: %ld of %ld connects reached 127.0.0.2\n", through, tries);
	return 0;
}
EOF
then
	printf 'include default\nallow exec %s\nnet none\nnet allow 127.0.0.1\n' "$T/bin" >"$T/flip.policy"
	run --policy "$T/flip.policy" --kernel=off --quiet -- "$T/bin/flip" "$A"
	check "race: a refused address never gets through a flipping buffer" has "flip: 0 of 200000"
else
	skipped "race: a flipping buffer" "gcc cannot build the racer"
fi

# names a resolver would decode are not names
printf 'include default\nnet allow *.test\nnet deny secret.test\n' >"$T/escape.policy"
run --policy "$T/escape.policy" -- python3 -c 'import socket
try: socket.getaddrinfo("s\\101cret.test", 80)
except OSError as e: print("escaped:", e.strerror)'
check "a name with a resolver escape does not resolve" has "jail: denied resolve s\\101cret.test (not a host name"
# the resolver's search and alias variables are the jail's under net rules
LOCALDOMAIN=evil.test RES_OPTIONS=ndots:5 run --policy "$T/escape.policy" -- python3 -c 'import os, subprocess
os.environ["HOSTALIASES"] = "/tmp/aliases"
print("agent:", os.environ.get("LOCALDOMAIN"))
subprocess.run(["sh", "-c", "echo child: ${LOCALDOMAIN:-unset} ${RES_OPTIONS:-unset} ${HOSTALIASES:-unset}"])'
check "LOCALDOMAIN, RES_OPTIONS: not passed into the jail" has "agent: None"
check "... nor settable inside it" has "child: unset unset unset"

# ---- a project's .jail.policy narrows the network too ----
mkdir -p "$T/narrow"
printf 'net none\nnet allow 127.0.0.1:%s\n' "$A" >"$T/narrow/.jail.policy"
out=$(cd "$T/narrow" && "$JAILRUN" -- python3 "$T/bin/connect.py" 127.0.0.1 "$A" "$B" 2>&1)
check ".jail.policy: net none + allow narrows to the port it names" has "$A ok hello a"
check ".jail.policy: ... and refuses the rest" has "jail: denied connect 127.0.0.1:$B (.jail.policy:1: net none)"
printf 'deny write {cwd}/x\n' >"$T/narrow/.jail.policy"
out=$(cd "$T/narrow" && "$JAILRUN" -- sh -c 'echo "proxy=${HTTPS_PROXY:-none}"' 2>&1)
check ".jail.policy without net rules: no proxy, nothing narrowed" has "proxy=none"

# ---- explain ----
run --policy "$T/ports.policy" --explain connect "127.0.0.1:$A"
check "explain connect: allowed, by the rule" has "rule: $T/ports.policy:3: net allow 127.0.0.1:$A"
check "explain connect: exit 0" status_is 0
run --explain connect 169.254.169.254:80
check "explain connect: the metadata service is denied by default" has "deny connect 169.254.169.254:80"
check "explain connect: exit 1" status_is 1

# ---- the log gets connect denials like file denials ----
run --policy "$T/ports.policy" --log "$T/net.log" -- python3 "$T/bin/connect.py" 127.0.0.1 "$B"
check "log: a JSON line for the refused connect" grep -q "\"access\":\"connect\",\"path\":\"127.0.0.1:$B\"" "$T/net.log"

finish
