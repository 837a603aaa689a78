#!/bin/bash
# test_secrets.sh — `env scrub`: the jailed command keeps its secrets, the
# programs it starts do not, however they are started (sh -c, env -i,
# posix_spawn with its own envp, python's subprocess with env=, system()),
# and they cannot read them back from the command's /proc/PID/environ or
# memory. The default policy scrubs the usual names; `env keep` excepts.
#   usage: test_secrets.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$(cd "$1" && pwd)
JAILRUN=$BUILD/bin/jailrun
T=$(mktemp -d /tmp/jail-secrets-test.XXXXXX)
T=$(cd "$T" && pwd -P)
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
export HOME=$T/home TMPDIR=$T/tmp PATH=/usr/local/bin:/usr/bin:/bin LC_ALL=C XDG_CONFIG_HOME=$T/home/.config
unset SSH_AUTH_SOCK
mkdir -p "$HOME" "$TMPDIR" "$T/proj"
cd "$T/proj" || exit 1

# the secrets a user's shell typically holds, and two harmless variables
export OPENAI_API_KEY=sk-$$-openai GITHUB_TOKEN=ghp_$$ AWS_SECRET_ACCESS_KEY=aws-$$ NPM_TOKEN=npm-$$
export DB_PASSWORD=pw-$$ PLAIN_SETTING=plain-$$ EDITOR=vi
SECRETS=(OPENAI_API_KEY GITHUB_TOKEN AWS_SECRET_ACCESS_KEY NPM_TOKEN DB_PASSWORD)

run() { out=$("$JAILRUN" "$@" 2>&1); rc=$?; }
no_secret() {
	local v
	for v in "${SECRETS[@]}"; do
		if grep -qF -- "${!v}" <<<"$out"; then return 1; fi
	done
	return 0
}
all_secrets() {
	local v
	for v in "${SECRETS[@]}"; do
		grep -qF -- "$v=${!v}" <<<"$out" || return 1
	done
	return 0
}

# ---- the default policy: the command keeps them, its children do not ----
# what bash itself holds (a builtin loop: `env` would be a child)
SELF='for v in $(compgen -e); do printf "%s=%s\n" "$v" "${!v}"; done'
run -- bash -c "$SELF; echo ---; sh -c env"
top=${out%%---*}
child=${out#*---}
out=$top
check "default: the jailed command keeps every secret" all_secrets
out=$child
check "default: sh -c env sees none of them" no_secret
check "default: harmless variables pass" has "PLAIN_SETTING=plain-$$"
check "default: EDITOR passes" has "EDITOR=vi"

run -- bash -c 'env -i GITHUB_TOKEN=again PATH=/usr/bin:/bin sh -c env'
check "env -i: a secret set on the command line is scrubbed too" lacks "GITHUB_TOKEN"
check "env -i: the child is still jailed" has "JAIL_BLOB="

run -- python3 -c '
import os, subprocess
env = dict(os.environ, EXTRA_TOKEN="extra")
print(subprocess.run(["env"], env=env, capture_output=True, text=True).stdout)
pid = os.posix_spawn("/usr/bin/env", ["env"], {"NPM_TOKEN": "spawned", "KEPT": "1"})
os.waitpid(pid, 0)
os.system("env")
'
check "python: subprocess(env=...), posix_spawn(envp) and system() scrub" no_secret
check "python: a secret added to the child's env= is scrubbed" lacks "EXTRA_TOKEN"
check "python: posix_spawn's own secret is scrubbed" lacks "NPM_TOKEN=spawned"
check "python: posix_spawn's other variables pass" has "KEPT=1"

# ---- reading them back from the command ----
run -- bash -c 'cat /proc/$$/environ; echo; head -c 100 /proc/$$/mem; echo status=$?'
check "/proc/PID/environ of the command: refused" has "denied read /proc/"
check "/proc/PID/environ: nothing leaks" no_secret
check "/proc/PID/mem of the command: refused" has "another process's environment and memory"
run -- bash -c 'echo "own=$(cat /proc/self/environ | tr "\0" "\n" | grep -c "^PLAIN_SETTING=")"'
check "/proc/self/environ: a process still reads its own" has "own=1"
run -- bash -c 'python3 -c "
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
class iov(ctypes.Structure): _fields_ = [(\"b\", ctypes.c_void_p), (\"n\", ctypes.c_size_t)]
buf = ctypes.create_string_buffer(16)
l = iov(ctypes.cast(buf, ctypes.c_void_p), 16); r = iov(0x400000, 16)
n = libc.process_vm_readv(os.getppid(), ctypes.byref(l), 1, ctypes.byref(r), 1, 0)
print(\"readv\", n, os.strerror(ctypes.get_errno()))
"'
check "process_vm_readv of the command: refused" has "readv -1 Permission denied"
check "process_vm_readv: reported" has "refused process_vm_readv"

# Beneath the shim, for a user without CAP_SYS_PTRACE: the command is not
# dumpable, so the kernel itself keeps its children out (a raw openat). The
# trailing `; true` keeps bash from exec'ing python in its own place.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups \
	test -x "$JAILRUN" 2>/dev/null; then
	mkdir -p "$T/nobody" && chown 65534:65534 "$T/nobody"
	out=$(cd "$T/nobody" && HOME=$T/nobody setpriv --reuid=65534 --regid=65534 --clear-groups "$JAILRUN" -- bash -c 'python3 -c "
import ctypes, os
libc = ctypes.CDLL(\"libc.so.6\", use_errno=True)   # libc itself: past the shim
fd = libc.syscall(257, -100, b\"/proc/%d/environ\" % os.getppid(), 0, 0)
print(\"raw\", fd, os.strerror(ctypes.get_errno()))
"; true' 2>&1)
	check "unprivileged: a raw open of the command's environ fails in the kernel" has "raw -1 Permission denied"
else
	skipped "unprivileged: a raw open of the command's environ fails in the kernel" "needs root and setpriv to become nobody"
fi

# ---- the command running itself again keeps them; another program does not ----
cat >"$T/proj/agent.sh" <<'EOF'
#!/bin/bash
if [ "${1:-}" = again ]; then for v in $(compgen -e); do printf "%s=%s\n" "$v" "${!v}"; done; exit; fi
exec "$0" again
EOF
chmod +x "$T/proj/agent.sh"
ln -s agent.sh "$T/proj/agent-link"
run -- ./agent.sh
check "the command re-executing itself keeps its secrets" all_secrets
run -- ./agent-link
check "started through a symlink, it is still itself" all_secrets
# a #! script run through /usr/bin/env (as npm installs agent CLIs): env
# starts the interpreter in the command's own process, which stays the command
cat >"$T/proj/agent.py" <<'EOF'
#!/usr/bin/env python3
import os, subprocess
print("self:", os.environ.get("OPENAI_API_KEY"), flush=True)
subprocess.run(["sh", "-c", "echo child: $OPENAI_API_KEY."])
os.execv("/bin/sh", ["sh", "-c", "echo replaced: $OPENAI_API_KEY"])
EOF
chmod +x "$T/proj/agent.py"
run -- ./agent.py
check "#!/usr/bin/env script: the command keeps its key" has "self: $OPENAI_API_KEY"
check "#!/usr/bin/env script: ... its child does not" has "child: ."
check "#!/usr/bin/env script: replacing itself (exec, no fork) it keeps it" has "replaced: $OPENAI_API_KEY"

cat >"$T/proj/other.sh" <<'EOF'
#!/bin/bash
env
EOF
chmod +x "$T/proj/other.sh"
run -- bash -c './other.sh'
check "a script the command starts is not the command" no_secret

# ---- env keep, and a policy's own scrub list ----
cat >"$T/keep.policy" <<'EOF'
include default
env keep GITHUB_TOKEN
env scrub EDITOR
EOF
run --policy "$T/keep.policy" -- bash -c 'sh -c env'
check "env keep: the exception passes" has "GITHUB_TOKEN=ghp_$$"
check "env keep: the rest stays scrubbed" lacks "sk-$$-openai"
check "env scrub: a policy adds a name" lacks "EDITOR="
run --policy "$T/keep.policy" --explain env GITHUB_TOKEN
check "explain env: names the keep rule" has "keep.policy:2: env keep GITHUB_TOKEN"
run --explain env OPENAI_API_KEY
check "explain env: the default scrubs *_API_KEY" has "<default>:"
check "explain env: exit 1 for a scrubbed name" status_is 1

# ---- a project's .jail.policy may scrub more ----
mkdir -p "$T/narrow"
printf 'env scrub EDITOR\n' >"$T/narrow/.jail.policy"
out=$(cd "$T/narrow" && "$JAILRUN" -- bash -c 'echo "editors=$(env | grep -c "^EDITOR=")"' 2>&1)
check ".jail.policy: env scrub holds as a layer" has "editors=0"

# ---- a policy without env rules scrubs nothing ----
printf 'allow read,exec /\nallow write /dev/null {tmp}\n' >"$T/plain.policy"
run --policy "$T/plain.policy" -- bash -c 'sh -c env; cat /proc/$$/environ >/dev/null && echo readable'
check "no env rule: children see everything" all_secrets
check "no env rule: /proc/PID/environ stays readable" has "readable"

finish
