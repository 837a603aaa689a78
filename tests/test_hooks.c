/*
 * test_hooks.c — every hook family, called by a real program inside the jail.
 *
 * Each row runs hookprobe (tests/hookprobe.c) with libjail.so preloaded on a
 * fresh temporary tree, checks what the call returned, and for refusals
 * checks that the disk is byte for byte as it was (names, types, modes,
 * sizes, times, contents, link targets). '@' in a row stands for the tree.
 *
 *   @/in          writable             @/in/locked   not writable
 *   @/in/secret   not even readable    @/in/bin      executable
 *   @/out         readable only        @/in/link-out -> ../out/target
 *   @/in/dangle -> ../out/new (dangling, pointing outside)
 */
#define _GNU_SOURCE
#include "testutil.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[PATH_MAX];

static void sh(const char *cmd)
{
	ck_assert_msg(system(cmd) == 0, "setup failed: %s", cmd);
}

/* A listening path socket that lives as long as this test process. */
static void listen_at(const char *rel)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	char path[2 * PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	ck_assert_uint_lt(strlen(path), sizeof(un.sun_path));
	memcpy(un.sun_path, path, strlen(path) + 1);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_ge(s, 0);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&un, sizeof(un)), 0);
	ck_assert_int_eq(listen(s, 8), 0);
}

static void setup(void)
{
	char cmd[4 * PATH_MAX];
	test_tmpdir(root, sizeof(root));
	snprintf(cmd, sizeof(cmd),
	         "cd '%s' && mkdir -p in/dir in/locked in/bin out && printf 'data\\n' > in/file && "
	         "printf 'locked\\n' > in/locked/lfile && printf 's3cret\\n' > in/secret && "
	         "printf 'outside\\n' > out/target && ln -s ../out/target in/link-out && "
	         "ln -s ../out/new in/dangle && cp /bin/echo in/bin/echo && cp /bin/echo out/echo && "
	         "cp /bin/sh out/interp && cp /bin/echo in/bin/suid && chmod u+s in/bin/suid && "
	         "printf '#!%s/out/interp\\necho from script\\n' > in/bin/script.sh && chmod +x in/bin/script.sh && "
	         "cp /bin/echo in/bin/foreign && printf '\\267\\000' | dd of=in/bin/foreign bs=1 seek=18 conv=notrunc 2>/dev/null",
	         root, root);
	sh(cmd);
	listen_at("in/srv.sock");
	listen_at("out/srv.sock");
	char policy[PATH_MAX + 64];
	snprintf(policy, sizeof(policy), "%s/../policy-%s", root, strrchr(root, '/') + 1);
	FILE *f = fopen(policy, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f,
	        "allow read /\n"
	        "allow exec /usr /bin %s/in/bin\n"
	        "allow write %s/in /dev/null\n"
	        "deny  write %s/in/locked\n"
	        "deny  read  %s/in/secret\n",
	        root, root, root, root);
	fclose(f);
}

static void teardown(void)
{
	test_rmtree(root);
}

/* ---- snapshots ---- */

static char *snap;
static size_t snap_len, snap_cap;

static void snap_add(const char *s)
{
	size_t n = strlen(s);
	if (snap_len + n + 1 > snap_cap) {
		snap_cap = (snap_len + n + 1) * 2;
		snap = realloc(snap, snap_cap);
	}
	memcpy(snap + snap_len, s, n + 1);
	snap_len += n;
}

static int snap_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	char line[PATH_MAX * 2 + 256], target[PATH_MAX];
	unsigned long h = 5381;
	(void)flag;
	(void)ftw;
	if (S_ISREG(st->st_mode)) {
		FILE *f = fopen(path, "r");
		int c;
		while (f && (c = fgetc(f)) != EOF)
			h = h * 33 + (unsigned long)c;
		if (f)
			fclose(f);
	}
	ssize_t n = S_ISLNK(st->st_mode) ? readlink(path, target, sizeof(target) - 1) : 0;
	target[n > 0 ? n : 0] = '\0';
	snprintf(line, sizeof(line), "%s %o %lld %ld.%09ld %lx %s\n", path + strlen(root), st->st_mode,
	         (long long)st->st_size, (long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec, h, target);
	snap_add(line);
	return 0;
}

static char *snapshot(void)
{
	snap = NULL;
	snap_len = snap_cap = 0;
	snap_add("");
	nftw(root, snap_one, 16, FTW_PHYS);
	return snap;
}

/* ---- running the probe in the jail ---- */

static void expand(const char *in, char *out, size_t outsz)
{
	size_t n = 0;
	for (; *in && n + strlen(root) + 1 < outsz; in++) {
		if (*in == '@') {
			memcpy(out + n, root, strlen(root));
			n += strlen(root);
		} else {
			out[n++] = *in;
		}
	}
	out[n] = '\0';
}

/* Runs PROBE ARGS (space-separated, '@' expanded) with the shim preloaded;
 * returns the exit status and the first line of stdout in out. */
static int run_jailed(const char *probe, const char *args, char *out, size_t outsz)
{
	char expanded[8192], *argv[16], policy[PATH_MAX + 64];
	int argc = 0, fds[2];
	expand(args, expanded, sizeof(expanded));
	argv[argc++] = (char *)probe;
	for (char *t = strtok(expanded, " "); t && argc < 15; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	snprintf(policy, sizeof(policy), "JAIL_POLICY=%s/../policy-%s", root, strrchr(root, '/') + 1);
	char preload[PATH_MAX + 16], cwd[PATH_MAX + 16];
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", JAIL_SHIM_PATH);
	snprintf(cwd, sizeof(cwd), "JAIL_CWD=%s/in", root);
	char *envp[] = {preload, policy, cwd, (char *)"PATH=/usr/bin:/bin", (char *)"LC_ALL=C", NULL};
	ck_assert_int_eq(pipe(fds), 0);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		if (chdir(root) != 0)
			_exit(99);
		execve(probe, argv, envp);
		_exit(98);
	}
	close(fds[1]);
	size_t n = 0;
	ssize_t r;
	while (n + 1 < outsz && (r = read(fds[0], out + n, outsz - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
	close(fds[0]);
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---- the table ---- */

enum { SAME = 1 }; /* the disk must be unchanged */

struct row {
	const char *args;   /* FUNCTION ARG... */
	const char *expect; /* first stdout line, exactly */
	int flags;
	const char *exists;  /* must exist afterwards, or NULL */
	const char *missing; /* must not exist afterwards, or NULL */
};

static const struct row rows[] = {
    /* open family */
    {"open @/in/file r", "ok", 0, NULL, NULL},
    {"open @/out/target r", "ok", 0, NULL, NULL},
    {"open @/out/target w", "err EACCES", SAME, NULL, NULL},
    {"open @/out/target w,trunc", "err EACCES", SAME, NULL, NULL},
    {"open @/out/new w,creat", "err EACCES", SAME, NULL, "@/out/new"},
    {"open @/in/new w,creat", "ok", 0, "@/in/new", NULL},
    {"open64 @/in/new64 w,creat", "ok", 0, "@/in/new64", NULL},
    {"open @/in/secret r", "err EACCES", SAME, NULL, NULL},
    {"open @/in/locked/lfile w,trunc", "err EACCES", SAME, NULL, NULL},
    {"open @/in/locked/new w,creat", "err EACCES", SAME, NULL, "@/in/locked/new"},
    {"open @/in/link-out w,trunc", "err EACCES", SAME, NULL, NULL},
    {"open @/in/link-out r", "ok", 0, NULL, NULL},
    {"open @/in/dangle w,creat", "err EACCES", SAME, NULL, "@/out/new"},
    {"open @/in/dangle w,creat,excl", "err EEXIST", SAME, NULL, "@/out/new"},
    {"open @/in/link-out r,nofollow", "err ELOOP", SAME, NULL, NULL},
    {"open @/in/link-out path,nofollow", "ok", 0, NULL, NULL},
    {"open @/in/nodir/x w,creat", "err ENOENT", SAME, NULL, NULL},
    {"open @/in/file/x r", "err ENOTDIR", SAME, NULL, NULL},
    {"open @/in/dir w", "err EISDIR", SAME, NULL, NULL},
    {"open @/in/file/ r", "err ENOTDIR", SAME, NULL, NULL},
    {"open @/in/link-out/ r", "err ENOTDIR", SAME, NULL, NULL},
    {"mkdir @/in/file", "err EEXIST", SAME, NULL, NULL},
    {"rmdir @/in/file", "err ENOTDIR", SAME, NULL, NULL},
    {"open @/in/nothing r", "err ENOENT", SAME, NULL, NULL},
    {"open @/in/dir w,tmpfile", "ok", 0, NULL, NULL},
    {"open @/out r,dir", "ok", 0, NULL, NULL},
    {"open @/out path,dir", "ok", 0, NULL, NULL},
    {"open @/out/target path,w", "ok", 0, NULL, NULL},
    {"open @/out w,tmpfile", "err EACCES", SAME, NULL, NULL},
    {"open @/in/../out/target w", "err EACCES", SAME, NULL, NULL},
    {"open @/in/dir/../../out/x w,creat", "err EACCES", SAME, NULL, "@/out/x"},
    {"__open_2 @/in/file r", "ok", 0, NULL, NULL},
    {"__open_2 @/in/secret r", "err EACCES", SAME, NULL, NULL},
    {"__open_2 @/out/target w,trunc", "err EACCES", SAME, NULL, NULL},
    {"__openat_2 @/out target w", "err EACCES", SAME, NULL, NULL},
    {"openat @/in file w", "ok", 0, NULL, NULL},
    {"openat @/out target w", "err EACCES", SAME, NULL, NULL},
    {"openat @/in ../out/y w,creat", "err EACCES", SAME, NULL, "@/out/y"},
    {"creat @/out/c", "err EACCES", SAME, NULL, "@/out/c"},
    {"creat @/in/c", "ok", 0, "@/in/c", NULL},
    {"fopen @/in/file r", "ok", 0, NULL, NULL},
    {"fopen @/out/target w", "err EACCES", SAME, NULL, NULL},
    {"fopen @/out/target a", "err EACCES", SAME, NULL, NULL},
    {"fopen @/out/target r+", "err EACCES", SAME, NULL, NULL},
    {"fopen @/in/secret r", "err EACCES", SAME, NULL, NULL},
    {"fopen-write @/in/f2 w hello", "ok", 0, "@/in/f2", NULL},
    {"fopen @/in/file wx", "err EEXIST", SAME, NULL, NULL},
    {"freopen @/in/file r", "ok", 0, NULL, NULL},
    {"freopen @/out/target w", "err EACCES", SAME, NULL, NULL},
    {"mkstemp @/out/tXXXXXX", "err EACCES", SAME, NULL, NULL},
    {"mkstemp @/in/tXXXXXX", "ok", 0, NULL, NULL},
    {"mkdtemp @/out/dXXXXXX", "err EACCES", SAME, NULL, NULL},
    {"mkdtemp @/in/dXXXXXX", "ok", 0, NULL, NULL},
    /* the name is made by the shim, as glibc makes it, and decided as made */
    {"mkostemps-cloexec @/in/tXXXXXX.c 2", "ok 600 cloexec=1 named=1", 0, NULL, NULL},
    {"mkostemps-cloexec @/out/tXXXXXX.c 2", "err EACCES", SAME, NULL, NULL},
    {"mkostemps-cloexec @/in/tXXXXX 0", "err EINVAL", SAME, NULL, NULL},
    {"mkostemps-cloexec @/in/tXXXXXX.c 3", "err EINVAL", SAME, NULL, NULL},
    {"mkdtemp @/in/dXXXXX", "err EINVAL", SAME, NULL, NULL},
    {"mkstemp @/in/nothing/tXXXXXX", "err ENOENT", SAME, NULL, NULL},
    /* names */
    {"rename @/in/file @/out/moved", "err EACCES", SAME, NULL, "@/out/moved"},
    {"rename @/out/target @/in/stolen", "err EACCES", SAME, NULL, "@/in/stolen"},
    {"rename @/in/file @/in/renamed", "ok", 0, "@/in/renamed", "@/in/file"},
    {"renameat @/in/locked/lfile @/in/free", "err EACCES", SAME, NULL, "@/in/free"},
    {"renameat2-exchange @/in/file @/out/target", "err EACCES", SAME, NULL, NULL},
    {"link @/out/target @/in/hard", "err EACCES", SAME, NULL, "@/in/hard"},
    {"link @/in/secret @/in/hard", "err EACCES", SAME, NULL, "@/in/hard"},
    {"link @/in/file @/in/hard", "ok", 0, "@/in/hard", NULL},
    {"linkat-empty @/out/target @/in/hard", "err EACCES", SAME, NULL, "@/in/hard"},
    {"linkat-proc @/out/target @/in/hard", "err EACCES", SAME, NULL, "@/in/hard"},
    {"symlink @/out/target @/in/sl", "ok", 0, "@/in/sl", NULL},
    {"symlink x @/out/sl", "err EACCES", SAME, NULL, "@/out/sl"},
    {"symlinkat x @/in/locked/sl", "err EACCES", SAME, NULL, "@/in/locked/sl"},
    {"unlink @/out/target", "err EACCES", SAME, NULL, NULL},
    {"unlink @/in/link-out", "ok", 0, "@/out/target", "@/in/link-out"},
    {"unlinkat @/out target", "err EACCES", SAME, NULL, NULL},
    {"unlinkat @/in file", "ok", 0, NULL, "@/in/file"},
    {"remove @/out/target", "err EACCES", SAME, NULL, NULL},
    {"remove @/in/locked/lfile", "err EACCES", SAME, NULL, NULL},
    {"rmdir @/in/locked", "err EACCES", SAME, NULL, NULL},
    {"rmdir @/in/dir", "ok", 0, NULL, "@/in/dir"},
    {"mkdir @/out/d", "err EACCES", SAME, NULL, "@/out/d"},
    {"mkdir @/in/d", "ok", 0, "@/in/d", NULL},
    {"mkdirat @/out d", "err EACCES", SAME, NULL, "@/out/d"},
    {"mkdirat @/in d", "ok", 0, "@/in/d", NULL},
    {"mknod @/out/n", "err EACCES", SAME, NULL, "@/out/n"},
    {"mkfifo @/out/f", "err EACCES", SAME, NULL, "@/out/f"},
    {"mkfifo @/in/f", "ok", 0, "@/in/f", NULL},
    /* metadata writes */
    {"truncate @/out/target", "err EACCES", SAME, NULL, NULL},
    {"truncate @/in/link-out", "err EACCES", SAME, NULL, NULL},
    {"chmod @/out/target", "err EACCES", SAME, NULL, NULL},
    {"chmod @/in/link-out", "err EACCES", SAME, NULL, NULL},
    {"chmod @/in/file", "ok", 0, NULL, NULL},
    {"fchmodat @/in/locked/lfile", "err EACCES", SAME, NULL, NULL},
    {"chown @/out/target", "err EACCES", SAME, NULL, NULL},
    {"lchown @/in/link-out", "ok", 0, NULL, NULL},
    {"fchownat-empty @/out/target", "err EACCES", SAME, NULL, NULL},
    {"utime @/out/target", "err EACCES", SAME, NULL, NULL},
    {"utimes @/out/target", "err EACCES", SAME, NULL, NULL},
    {"lutimes @/in/link-out", "ok", 0, NULL, NULL},
    {"utimensat @/out/target", "err EACCES", SAME, NULL, NULL},
    {"utimensat @/in/file", "ok", 0, NULL, NULL},
    {"setxattr @/out/target", "err EACCES", SAME, NULL, NULL},
    {"removexattr @/out/target", "err EACCES", SAME, NULL, NULL},
    {"fchmod-ro @/out/target", "err EACCES", SAME, NULL, NULL},
    {"fchmod-ro @/in/file", "ok", 0, NULL, NULL},
    {"fchown-ro @/out/target", "err EACCES", SAME, NULL, NULL},
    {"futimens-ro @/out/target", "err EACCES", SAME, NULL, NULL},
    {"fsetxattr-ro @/out/target", "err EACCES", SAME, NULL, NULL},
    /* reads and metadata */
    {"stat @/out/target", "ok", 0, NULL, NULL},
    {"stat @/in/secret", "err EACCES", SAME, NULL, NULL},
    {"stat @/in/nothing", "err ENOENT", SAME, NULL, NULL},
    {"lstat @/in/secret", "err EACCES", SAME, NULL, NULL},
    {"fstatat-nofollow @/in/secret", "err EACCES", SAME, NULL, NULL},
    {"statx @/in/secret", "err EACCES", SAME, NULL, NULL},
    {"access @/in/secret", "err EACCES", SAME, NULL, NULL},
    {"faccessat @/in/secret", "err EACCES", SAME, NULL, NULL},
    {"euidaccess @/in/secret", "err EACCES", SAME, NULL, NULL},
    /* made from the syscall page: the kernel's own answers come through */
    {"faccessat @/in/file", "ok", 0, NULL, NULL},
    {"faccessat @/in/nothing", "err ENOENT", SAME, NULL, NULL},
    {"euidaccess @/out/target", "ok", 0, NULL, NULL},
    {"euidaccess @/in/nothing", "err ENOENT", SAME, NULL, NULL},
    {"readlink @/in/link-out", "ok", 0, NULL, NULL},
    {"realpath @/in/file", "ok", 0, NULL, NULL},
    {"realpath @/in/secret", "err EACCES", SAME, NULL, NULL},
    {"realpath @/in/nothing", "err ENOENT", SAME, NULL, NULL},
    {"canonicalize_file_name @/in/secret", "err EACCES", SAME, NULL, NULL},
    /* glibc's own open (detours.def) is no cancellation point: a pending
     * cancel must not end a thread inside pthread_getattr_np's lock */
    {"getattr-cancel", "ok", 0, NULL, NULL},
    /* glibc's fopen reads six mode characters: a longer mode hides the "c"
     * that would make setmntent's open glibc's internal one */
    {"setmntent @/in/secret rbbbbbbb", "err EACCES", SAME, NULL, NULL},
    {"setmntent @/in/file rbbbbbbb", "ok", 0, NULL, NULL},
    /* the name comes from the kernel (hooks_open.c), and is glibc's */
    {"realpath-name @/in/link-out", "ok @/out/target", 0, NULL, NULL},
    {"realpath-name @/in/./../in//file", "ok @/in/file", 0, NULL, NULL},
    {"realpath-name @/in/", "ok @/in", 0, NULL, NULL},
    {"realpath-name @/in/file/", "err ENOTDIR", 0, NULL, NULL},
    {"realpath-name @/in/nothing", "err ENOENT", 0, NULL, NULL},
    {"realpath-name @/in/secret", "err EACCES", 0, NULL, NULL},
    {"realpath-malloc @/in/link-out", "ok @/out/target", 0, NULL, NULL},
    {"canonicalize-name @/in/link-out", "ok @/out/target", 0, NULL, NULL},
    {"realpath-thread @/out/target @/in/file", "ok @/in/file", 0, NULL, NULL},
    {"opendir @/in", "ok", 0, NULL, NULL},
    {"read-file @/in/file", "ok data", 0, NULL, NULL},
    {"read-file @/in/secret", "err EACCES", SAME, NULL, NULL},
    {"open_by_handle_at @/in/file", "err EACCES", SAME, NULL, NULL},
    /* exec */
    {"execve @/in/bin/echo hello", "hello", 0, NULL, NULL},
    {"execve @/out/echo hello", "err EACCES", SAME, NULL, NULL},
    {"execv @/out/echo hello", "err EACCES", SAME, NULL, NULL},
    {"execvp echo hello", "hello", 0, NULL, NULL},
    {"execl @/in/bin/echo hi", "hi", 0, NULL, NULL},
    {"execl @/out/echo hi", "err EACCES", SAME, NULL, NULL},
    {"execlp echo hi", "hi", 0, NULL, NULL},
    {"execle @/out/echo hi", "err EACCES", SAME, NULL, NULL},
    {"fexecve @/out/echo hi", "err EACCES", SAME, NULL, NULL},
    {"fexecve @/in/bin/echo hi", "hi", 0, NULL, NULL},
    {"fexecve-memfd /bin/echo hi", "err EACCES", SAME, NULL, NULL},
    {"execveat @/out/echo hi", "err EACCES", SAME, NULL, NULL},
    {"execve-null", "err EFAULT", SAME, NULL, NULL}, /* the kernel's answer, nothing read */
    {"execve @/in/bin/script.sh", "err EACCES", SAME, NULL, NULL},
    {"execve @/in/bin/suid hi", "err EACCES", SAME, NULL, NULL},
    {"execve @/in/bin/foreign hi", "err EACCES", SAME, NULL, NULL},
    {"posix_spawn @/in/bin/echo hi", "hi", 0, NULL, NULL},
    {"posix_spawn @/out/echo hi", "err EACCES", SAME, NULL, NULL},
    {"posix_spawnp echo hi", "hi", 0, NULL, NULL},
    {"spawn-redirect @/out/spawned /bin/echo hi", "err EACCES", SAME, NULL, "@/out/spawned"},
    {"spawn-redirect @/in/spawned /bin/echo hi", "exit 0", 0, "@/in/spawned", NULL},
    {"spawn-chdir-open @/out target", "err EACCES", SAME, NULL, NULL},
    {"spawn-chdir-exec @/out ./echo", "err EACCES", SAME, NULL, NULL},
    {"system true", "exit 0", 0, NULL, NULL},
    {"system @/out/echo", "exit 126", SAME, NULL, NULL},
    {"popen echo piped", "exit 0 piped", 0, NULL, NULL},
    {"popen cat @/in/secret", "exit 1 ", SAME, NULL, NULL},
    {"system echo x > @/out/x", "exit 2", SAME, NULL, "@/out/x"},
    /* the generic syscall() */
    {"syscall-open @/in/secret", "err EACCES", SAME, NULL, NULL},
    {"syscall-open @/in/file", "ok", 0, NULL, NULL},
    {"syscall-creat @/out/sc", "err EACCES", SAME, NULL, "@/out/sc"},
    {"syscall-unlink @/out/target", "err EACCES", SAME, NULL, NULL},
    {"syscall-unlink @/in/file", "ok", 0, NULL, "@/in/file"},
    {"syscall-rename @/in/file @/out/x", "err EACCES", SAME, NULL, "@/out/x"},
    {"syscall-stat @/in/secret", "err EACCES", SAME, NULL, NULL},
    {"syscall-stat @/in/file", "ok", 0, NULL, NULL},
    {"syscall-stat @/in/nothing", "err ENOENT", SAME, NULL, NULL},
    {"syscall-openat2 @/in/file", "err ENOSYS", SAME, NULL, NULL},
    {"syscall-io_uring", "err ENOSYS", SAME, NULL, NULL},
    {"syscall-utime @/out/target", "err EACCES", SAME, NULL, NULL},
    /* files glibc opens through internal calls, metadata, refused operations */
    {"setmntent @/out/mtab w", "err EACCES", SAME, NULL, "@/out/mtab"},
    {"setmntent @/in/locked/lfile a", "err EACCES", SAME, NULL, NULL},
    {"setmntent @/in/secret r", "err EACCES", SAME, NULL, NULL},
    {"setmntent @/in/file r", "ok", 0, NULL, NULL},
    {"scandirat @/in/secret", "err EACCES", SAME, NULL, NULL},
    {"getxattr @/in/secret", "err EACCES", SAME, NULL, NULL},
    {"getxattr @/in/file", "ok", 0, NULL, NULL},
    {"statvfs @/in/secret", "err EACCES", SAME, NULL, NULL},
    {"xmknod @/out/node", "err EACCES", SAME, NULL, "@/out/node"},
    {"chroot @/in", "err EACCES", SAME, NULL, NULL},
    {"ptrace-attach", "err EPERM", SAME, NULL, NULL},
    {"unsetenv-system unused cat @/in/secret", "exit 1 preload-kept", SAME, NULL, NULL},
    {"wordexp $(cat @/in/secret)", "ok ", SAME, NULL, NULL},
    /* path sockets */
    {"bind-unix @/out/new.sock", "err EACCES", SAME, NULL, "@/out/new.sock"},
    {"bind-unix @/in/new.sock", "ok", 0, "@/in/new.sock", NULL},
    {"connect-unix @/out/srv.sock", "err EACCES", SAME, NULL, NULL},
    {"connect-unix @/in/srv.sock", "ok", 0, NULL, NULL},
    /* the jail follows children, whatever environment they get */
    {"execve-emptyenv /bin/cat @/in/secret", "", SAME, NULL, NULL},
    {"spawn-emptyenv /bin/cat @/in/secret", "exit 1", SAME, NULL, NULL},
    {"vfork-exec /bin/cat @/in/secret", "exit 1", SAME, NULL, NULL},
    {"vfork-exec @/out/echo x", "exit 126", SAME, NULL, NULL},
    /* hostile conditions */
    {"threads @/in/file @/in/secret", "ok", SAME, NULL, NULL},
    {"stress-all @/in @/in/secret", "ok", 0, NULL, NULL},
    {"signal-open @/in/secret", "err EACCES", SAME, NULL, NULL},
    {"signal-open @/in/file", "ok", 0, NULL, NULL},
    {"errno-kept @/in/file", "ok", 0, NULL, NULL},
};

static void check_row(const char *probe, const struct row *r)
{
	char out[4096], path[PATH_MAX * 2], want[PATH_MAX * 2];
	char *before = snapshot();
	int status = run_jailed(probe, r->args, out, sizeof(out));
	expand(r->expect, want, sizeof(want)); /* a name printed back: '@' is the tree there too */
	ck_assert_msg(strcmp(out, want) == 0, "%s: got \"%s\" (exit %d), want \"%s\"", r->args, out, status, want);
	char *after = snapshot();
	if (r->flags & SAME)
		ck_assert_msg(strcmp(before, after) == 0, "%s: the disk changed:\n--- before\n%s--- after\n%s", r->args,
		              before, after);
	if (r->exists) {
		expand(r->exists, path, sizeof(path));
		ck_assert_msg(access(path, F_OK) == 0 || errno == ELOOP, "%s: %s should exist", r->args, path);
	}
	if (r->missing) {
		struct stat st;
		expand(r->missing, path, sizeof(path));
		ck_assert_msg(lstat(path, &st) != 0, "%s: %s should not exist", r->args, path);
	}
	free(before);
	free(after);
}

START_TEST(hook_row)
{
	check_row(HOOKPROBE, &rows[_i]);
}
END_TEST

/* The same open/stdio rows through the _FORTIFY_SOURCE entry points. */
START_TEST(hook_row_fortified)
{
	const struct row *r = &rows[_i];
	if (strncmp(r->args, "open", 4) == 0 || strncmp(r->args, "fopen", 5) == 0 ||
	    strncmp(r->args, "read-file", 9) == 0)
		check_row(HOOKPROBE_FORTIFY, r);
}
END_TEST

/* The fortified probe really calls __open_2 (else the test above proves
 * nothing). Only GCC builds glibc's fortified open(): clang lacks the
 * builtin it needs, so under clang the explicit __open_2 rows stand alone. */
#if JAIL_FORTIFY_OPEN
START_TEST(fortified_probe_uses_open_2)
{
	char cmd[PATH_MAX + 64];
	snprintf(cmd, sizeof(cmd), "nm -D '%s' | grep -q ' __open_2'", HOOKPROBE_FORTIFY);
	ck_assert_msg(system(cmd) == 0, "%s does not import __open_2", HOOKPROBE_FORTIFY);
}
END_TEST
#endif

/* A library constructor that runs before libjail's own is jailed too. */
START_TEST(before_the_constructor)
{
	char out[4096];
	run_jailed(HOOKPROBE_EARLY, "early @/in/secret", out, sizeof(out));
	ck_assert_str_eq(out, "err EACCES");
	run_jailed(HOOKPROBE_EARLY, "early @/in/file", out, sizeof(out));
	ck_assert_str_eq(out, "ok");
}
END_TEST

/* A library constructor that started a thread before libjail's own: the
 * shim must not change the C library's code under it (detour_linux.c). With
 * the thread in poll() on the page being changed, 200 runs used to lose a
 * few to SIGSEGV. */
START_TEST(thread_before_the_constructor)
{
	char out[4096];
	for (int i = 0; i < 200; i++) {
		int status = run_jailed(HOOKPROBE_EARLY, "early-thread @/in", out, sizeof(out));
		ck_assert_msg(status == 0 && strcmp(out, "ok") == 0, "run %d: status %d, output '%s'", i, status, out);
	}
	run_jailed(HOOKPROBE_EARLY, "early-thread @/in/secret", out, sizeof(out));
	ck_assert_str_eq(out, "err EACCES"); /* opendir's own check still holds */
}
END_TEST

/* A policy that does not load stops the program before main (exit 125). */
START_TEST(bad_policy_fails_closed)
{
	char out[4096], policy[PATH_MAX + 64];
	snprintf(policy, sizeof(policy), "%s/../policy-%s", root, strrchr(root, '/') + 1);
	FILE *f = fopen(policy, "w");
	ck_assert_ptr_nonnull(f);
	fputs("allow read /\nallow write relative\n", f);
	fclose(f);
	char *before = snapshot();
	int status = run_jailed(HOOKPROBE, "open @/in/x w,creat", out, sizeof(out));
	ck_assert_int_eq(status, 125);
	ck_assert_str_eq(out, "");
	char *after = snapshot();
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	/* a missing policy file too */
	ck_assert_int_eq(unlink(policy), 0);
	status = run_jailed(HOOKPROBE, "open @/in/x w,creat", out, sizeof(out));
	ck_assert_int_eq(status, 125);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("hooks");
	TCase *tc = tcase_create("families");
	int n = (int)(sizeof(rows) / sizeof(rows[0]));
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, hook_row, 0, n);
	tcase_add_loop_test(tc, hook_row_fortified, 0, n);
#if JAIL_FORTIFY_OPEN
	tcase_add_test(tc, fortified_probe_uses_open_2);
#endif
	tcase_add_test(tc, bad_policy_fails_closed);
	tcase_add_test(tc, before_the_constructor);
	tcase_add_test(tc, thread_before_the_constructor);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
