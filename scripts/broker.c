/*
 * broker.c — jail-broker: ask mode's one voice at the terminal.
 *
 *   jail-broker --socket PATH --blob FILE... [--policy-file FILE [--new]]
 *               [--timeout SECS] [--supervised]
 *
 * jailrun --ask starts one per jail, outside it. Every jailed process that
 * meets a refusal sends the question here (shim/check.c ask_user) over the
 * seqpacket socket PATH, in a 0700 directory, and waits for 'y' or 'n'.
 * The broker puts questions to the user on the controlling terminal, one
 * at a time:
 *
 *   jail: cat (pid 4242) wants to READ /home/u/other/notes.md
 *         [o]nce  [d]irectory /home/u/other for this session  [a]lways (add to policy)  [N]o
 *
 * Invariants:
 *  1. Only a single key read from the user's terminal answers (several
 *     bytes at once are a terminal's reply or a paste). Under --pty the jail
 *     is on a terminal of its own and the relay stops while we ask; without
 *     it, our process group holds the terminal's foreground while we ask,
 *     and a jailed process that takes it back forfeits the question (no).
 *     (TIOCSTI is refused to the jail by jailctl landlock-exec; jailrun
 *     denies the user's terminal to a jail on its own one.)
 *  2. No answer is no: Enter, a timeout, no terminal, a closed broker.
 *  3. Questions are grouped by access and directory: while one is asked,
 *     more of the same group wait for its answer; "directory" and "no"
 *     answer the group, and hold for the rest of the session (so a burst of
 *     refusals is one question, and a refused directory is not asked again).
 *     Past QUIET_AFTER refusals answered within QUIET_WINDOW seconds, new
 *     questions are refused unasked for QUIET_FOR seconds (said once).
 *  4. "always" appends a commented rule to the policy file, and a grant on a
 *     credential location (what the built-in default denies) needs a second
 *     confirmation.
 *  5. When the kernel layer will refuse the access anyway (a path outside
 *     its ruleset), the question says so and offers only [a]lways (for the
 *     next run) or no: a grant the kernel ignores is not pretended.
 *  6. Terminals and sockets are not asked about (no, logged): a grant of
 *     the user's terminal, or of a multiplexer's or display's socket, would
 *     let the jail answer the questions that follow. A rule grants them.
 *  7. Every question and answer goes to the policy's log.
 */
#define _GNU_SOURCE
#include "landlock.h"
#include "learn.h"
#include "jsonout.h"
#include "policy.h"
#include "resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define MAX_LAYERS 16
#define MAX_PENDING 512
#define MAX_MEMORY 1024
#define QUIET_AFTER 5   /* "no" answers ... */
#define QUIET_WINDOW 20 /* ... within this many seconds ... */
#define QUIET_FOR 30    /* ... silence the questions this long */

struct request {
	int fd; /* where the answer goes; -1 once answered */
	pid_t pid;
	enum jail_access access;
	char op[64];
	char program[64];
	char path[PATH_MAX];
	char dir[PATH_MAX];
	char rule[1024];
};

/* A session answer for an access beneath a directory. */
struct memory {
	enum jail_access access;
	int allow;
	char dir[PATH_MAX];
	char rule[1024]; /* the refusal it answers: another rule's refusal there is asked about */
};

static const struct jail_policy *layers[MAX_LAYERS];
static int nlayers;
static const struct jail_policy *defaults;
static const char *policy_file;
static int new_policy_file; /* it does not exist yet: start it with `include default` */
static int timeout_secs = 60;
static unsigned landlock_opts;
static int kernel_active;

static struct request *pending[MAX_PENDING];
static int npending;
static struct memory memory[MAX_MEMORY];
static int nmemory;

static double no_times[QUIET_AFTER]; /* when the last refusals were answered */
static int no_next;
static double quiet_until;

static int tty = -1;
static volatile sig_atomic_t stopping, resized;

/* --pty: the jail runs on a terminal of its own, whose other end (master)
 * the broker relays to the user's; while a question is asked the relay
 * stops, so the jail can neither read the answer nor write over the
 * question, and it never holds the user's terminal at all. */
static int relay;          /* relaying (the user's terminal is raw while we do) */
static int master = -1;    /* the jail's terminal, our end */
static pid_t child = -1;   /* the launcher, on the jail's terminal */
static int master_gone;    /* the jail's terminal has no one left on it */
static int tty_gone;       /* the user's terminal hung up */
static struct termios user_termios;

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}
static struct request *asking; /* the question on the terminal, or NULL */
static struct timespec deadline;
static struct termios saved_termios;
static pid_t saved_fg;

/* ---- small helpers ---- */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char buf[PATH_MAX * 3];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	size_t len = n > 0 ? ((size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1) : 0;
	for (size_t off = 0; tty >= 0 && off < len;) { /* whole, or not at all after a second's wait */
		ssize_t w = write(tty, buf + off, len - off);
		if (w > 0) {
			off += (size_t)w;
			continue;
		}
		struct pollfd p = {.fd = tty, .events = POLLOUT};
		if ((w < 0 && errno != EAGAIN && errno != EINTR) || poll(&p, 1, 1000) != 1)
			break;
	}
}


/* One JSON line per question and per answer, in the main policy's log. */
static void log_event(const struct request *r, const char *event, const char *answer)
{
	FILE *f = jail_log_begin(jail_policy_log(layers[0]), r->pid, r->program);
	if (!f)
		return;
	fputs(",\"operation\":", f);
	jail_json_string(f, r->op);
	fputs(",\"access\":", f);
	jail_json_string(f, jail_access_name(r->access));
	fputs(",\"path\":", f);
	jail_json_string(f, r->path);
	fprintf(f, ",\"decision\":\"%s\",\"answer\":", event);
	jail_json_string(f, answer);
	fputs(",\"rule\":", f);
	jail_json_string(f, r->rule);
	fputs("}\n", f);
	fclose(f);
}

static void answer(struct request *r, int yes, const char *how)
{
	if (r->fd < 0)
		return;
	ssize_t w = send(r->fd, yes ? "y" : "n", 1, MSG_NOSIGNAL);
	(void)w;
	close(r->fd);
	r->fd = -1;
	log_event(r, yes ? "granted" : "denied", how);
}

static int beneath_or_at(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1)
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* A session answer covers the same access beneath its directory, refused by
 * the same rule: a grant after "no rule allows it" does not open a .env or
 * a .git/hooks there, which other rules refuse. */
static const struct memory *remembered(const struct request *r)
{
	const struct memory *best = NULL;
	for (int i = 0; i < nmemory; i++)
		if (memory[i].access == r->access && beneath_or_at(r->path, memory[i].dir) &&
		    strcmp(memory[i].rule, r->rule) == 0 && (!best || strlen(memory[i].dir) > strlen(best->dir)))
			best = &memory[i];
	return best;
}

static void remember(const struct request *r, int allow)
{
	if (nmemory == MAX_MEMORY)
		return;
	memory[nmemory].access = r->access;
	memory[nmemory].allow = allow;
	snprintf(memory[nmemory].dir, sizeof(memory[nmemory].dir), "%s", r->dir);
	snprintf(memory[nmemory].rule, sizeof(memory[nmemory].rule), "%s", r->rule);
	nmemory++;
}

/* Would the kernel layer refuse this access whatever the shim grants? */
static int kernel_refuses(const struct request *r)
{
	if (!kernel_active || r->access == JAIL_META)
		return 0;
	for (int i = 0; i < nlayers; i++)
		if (jail_policy_mode(layers[i]) != JAIL_MODE_AUDIT &&
		    !jail_landlock_grants(layers[i], r->access, r->path, landlock_opts))
			return 1;
	return 0;
}

static const char *upper(enum jail_access a)
{
	return a == JAIL_READ ? "READ" : a == JAIL_WRITE ? "WRITE" : a == JAIL_EXEC ? "EXECUTE" : "STAT";
}

/* ---- the terminal ---- */

static void take_terminal(void)
{
	if (relay) { /* the jail is on its own terminal: ours is already raw */
		tcflush(tty, TCIFLUSH); /* keys typed before the question do not answer it */
		return;
	}
	tcflow(tty, TCOON); /* output a jailed process suspended (TCOOFF) resumes */
	saved_fg = tcgetpgrp(tty);
	tcgetattr(tty, &saved_termios);
	struct termios t = saved_termios;
	t.c_lflag &= (tcflag_t) ~(ICANON | ECHO | ISIG);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	tcsetattr(tty, TCSANOW, &t);
	tcsetpgrp(tty, getpgrp());
	tcflush(tty, TCIFLUSH); /* keys typed before the question do not answer it */
}

static void give_terminal_back(void)
{
	if (relay)
		return;
	tcsetattr(tty, TCSANOW, &saved_termios);
	if (saved_fg > 0) {
		tcsetpgrp(tty, saved_fg);
		kill(-saved_fg, SIGCONT); /* a jailed reader stopped while we asked */
	}
}

/* Text from the jail, made safe for the terminal: a control byte (C0, DEL,
 * C1) could move the cursor, rewrite the question or talk to the terminal
 * itself, so it is shown as \xHH instead. */
static const char *shown(const char *s, char *out, size_t n)
{
	size_t k = 0;
	for (; *s && k + 5 < n; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
			k += (size_t)snprintf(out + k, n - k, "\\x%02x", c);
		else
			out[k++] = (char)c;
	}
	out[k] = '\0';
	return out;
}

static void ask(struct request *r)
{
	char prog[4 * sizeof(r->program) + 8], path[4 * PATH_MAX + 8], dir[4 * PATH_MAX + 8];
	asking = r;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeout_secs;
	take_terminal();
	/* whatever the jail's output left the terminal in (an unfinished escape
	 * string that would swallow the question, hidden or graphic text):
	 * CAN and ST end it; then plain attributes, ASCII, a visible cursor */
	say("\030\033\\\033[0m\033(B\017\033[?25h");
	say("\r\njail: %s (pid %d) wants to %s %s\r\n", shown(r->program, prog, sizeof(prog)), (int)r->pid,
	    upper(r->access), shown(r->path, path, sizeof(path)));
	say("      (%s%s)\r\n", strcmp(r->rule, "no rule allows it") == 0 ? "" : "refused by ", shown(r->rule, path, sizeof(path)));
	if (kernel_refuses(r))
		say("      the kernel layer refuses it in this run whatever the answer: [a]lways (add to policy, "
		    "then run again)  [N]o ? ");
	else
		say("      [o]nce  [d]irectory %s for this session  [a]lways (add to policy)  [N]o ? ",
		    shown(r->dir, dir, sizeof(dir)));
	log_event(r, "asked", "");
}

/* The rule as the policy language writes a literal path: glob characters
 * escaped (a directory named [id] or n* names itself, nothing more), in
 * quotes (with \" and \\) when it has blanks, quotes or #. */
static void rule_text(const struct request *r, const char *path, char *out, size_t n)
{
	char lit[PATH_MAX * 2], esc[PATH_MAX * 4];
	size_t k = 0;
	for (const char *s = path; *s && k + 2 < sizeof(lit); s++) {
		if (*s == '*' || *s == '?' || *s == '[' || *s == '\\')
			lit[k++] = '\\';
		lit[k++] = *s;
	}
	lit[k] = '\0';
	if (strpbrk(path, " \t\"#") == NULL) {
		snprintf(out, n, "allow %s %s", jail_access_name(r->access), lit);
		return;
	}
	k = 0;
	for (const char *s = lit; *s && k + 2 < sizeof(esc); s++) {
		if (*s == '"' || *s == '\\')
			esc[k++] = '\\';
		esc[k++] = *s;
	}
	esc[k] = '\0';
	snprintf(out, n, "allow %s \"%s\"", jail_access_name(r->access), esc);
}

/* Would the policy file, with `rule` appended, allow the request? */
static int rule_would_allow(const struct request *r, const char *rule)
{
	char cwd[PATH_MAX], text[PATH_MAX * 4 + 128];
	const char *tmp = getenv("TMPDIR");
	struct jail_load_opts lo = {.vars = {.home = getenv("HOME"), .cwd = getcwd(cwd, sizeof(cwd)),
	                                     .tmp = tmp && tmp[0] == '/' ? tmp : "/tmp"},
	                            .canon = jail_canon_existing};
	struct jail_source src[2] = {{.name = policy_file}, {.name = "<ask>", .text = text}};
	if (new_policy_file && access(policy_file, F_OK) != 0)
		src[0] = (struct jail_source){.name = "<the built-in default>", .text = "include default\n"};
	snprintf(text, sizeof(text), "%s\n", rule);
	struct jail_policy *p = NULL;
	struct jail_error err;
	if (jail_policy_load(&lo, src, 2, &p, &err) != 0)
		return 0;
	int ok = jail_decide(p, r->access, r->path).verdict == JAIL_ALLOW;
	jail_policy_free(p);
	return ok;
}

/* Appends a rule to the policy file: for the directory, or, when a deny
 * rule there is at least as specific, for the path itself (the most
 * specific rule there is). 0, or -1 after saying why. */
static int add_to_policy(const struct request *r)
{
	char rule[PATH_MAX * 4 + 64], when[32];
	if (!policy_file) {
		say("\r\njail: no policy file to add the rule to: granted for this session only\r\n");
		return -1;
	}
	for (const char *s = r->path; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f) {
			say("\r\njail: a path with control characters cannot be written as a rule: granted for this session "
			    "only\r\n");
			return -1;
		}
	rule_text(r, r->dir, rule, sizeof(rule));
	if (!rule_would_allow(r, rule)) {
		rule_text(r, r->path, rule, sizeof(rule));
		if (!rule_would_allow(r, rule)) {
			say("\r\njail: no rule added to %s could outweigh %s: granted for this session only\r\n",
			    policy_file, r->rule);
			return -1;
		}
	}
	time_t t = time(NULL);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", localtime(&t));
	FILE *f = fopen(policy_file, "ae");
	if (!f) {
		say("\r\njail: cannot add the rule to %s: %s: granted for this session only\r\n", policy_file,
		    strerror(errno));
		return -1;
	}
	if (new_policy_file && ftell(f) == 0)
		fputs("include default\n", f);
	fprintf(f, "# added by jailrun --ask on %s: %s (pid %d) wanted to %s %s\n%s\n", when, r->program, (int)r->pid,
	        jail_access_name(r->access), r->path, rule);
	int bad = fclose(f) != 0;
	if (bad) {
		say("\r\njail: cannot add the rule to %s: granted for this session only\r\n", policy_file);
		return -1;
	}
	say("\r\njail: added to %s: %s\r\n", policy_file, rule);
	return 0;
}

/* A second, explicit yes for a grant on a credential location. */
static int confirm_credential(const struct request *r, const char *why)
{
	say("\r\njail: %s is a credential location (%s).\r\n      Type y again to add the grant anyway, "
	    "anything else to refuse: ",
	    r->dir, why);
	struct pollfd p = {.fd = tty, .events = POLLIN};
	char k = 0;
	if (poll(&p, 1, timeout_secs * 1000) != 1 || read(tty, &k, 1) != 1 || tcgetpgrp(tty) != getpgrp())
		return 0;
	return (k == 'y' || k == 'Y') && tcgetpgrp(tty) == getpgrp();
}

/* The answer to the question on the terminal, applied to what waits. */
static void settle(char key)
{
	struct request *r = asking;
	const char *how;
	int yes = 0, group = 0;
	int kernel = kernel_refuses(r);
	switch (key) {
	case 'o':
		how = "once";
		yes = 1;
		break;
	case 'd':
		how = "directory";
		yes = group = 1;
		remember(r, 1);
		break;
	case 'a': {
		char why[PATH_MAX + 64];
		const char *refusal = defaults ? jail_grant_refusal(defaults, r->access, r->dir, why, sizeof(why)) : NULL;
		if (refusal && !confirm_credential(r, refusal)) {
			how = "no (a credential location, not confirmed)";
			group = 1;
			remember(r, 0);
			break;
		}
		how = add_to_policy(r) == 0 ? "always" : "directory";
		yes = group = !kernel;
		if (!kernel)
			remember(r, 1);
		else {
			how = "always (next run; the kernel layer refuses it in this one)";
			remember(r, 0);
		}
		break;
	}
	case 't':
		how = "no (no answer in time)";
		group = 1;
		remember(r, 0);
		break;
	case 'x':
		how = "no (the terminal's foreground was taken during the question)";
		group = 1;
		remember(r, 0);
		break;
	default:
		how = "no";
		group = 1;
		remember(r, 0);
		break;
	}
	say("%s\r\n", how);
	if (!yes) { /* a storm of refusals: stop asking for a while */
		double t = now();
		no_times[no_next] = t;
		no_next = (no_next + 1) % QUIET_AFTER;
		if (no_times[no_next] > 0 && t - no_times[no_next] <= QUIET_WINDOW) {
			quiet_until = t + QUIET_FOR;
			say("jail: %d refusals in %d s: the next %d s of questions are refused without asking (see the log)\r\n",
			    QUIET_AFTER, QUIET_WINDOW, QUIET_FOR);
		}
	}
	give_terminal_back();
	asking = NULL;
	/* the question's own request, and those it answers */
	for (int i = 0; i < npending; i++) {
		struct request *q = pending[i];
		if (q == r || (q->access == r->access && strcmp(q->path, r->path) == 0 && strcmp(q->rule, r->rule) == 0) ||
		    (group && q->access == r->access && beneath_or_at(q->path, r->dir) && strcmp(q->rule, r->rule) == 0))
			answer(q, yes, how);
	}
	int k = 0;
	for (int i = 0; i < npending; i++) {
		if (pending[i]->fd >= 0)
			pending[k++] = pending[i];
		else
			free(pending[i]);
	}
	npending = k;
}

/* Answers what the session's answers now cover (or, while questions are
 * paused, everything), then asks the next. */
static void next_question(void)
{
	int k = 0, quiet = now() < quiet_until;
	for (int i = 0; i < npending; i++) {
		const struct memory *m = remembered(pending[i]);
		if (quiet && !m) {
			answer(pending[i], 0, "no (asked too often: questions paused)");
			free(pending[i]);
		} else if (m) {
			answer(pending[i], m->allow, m->allow ? "granted for this session" : "refused for this session");
			free(pending[i]);
		} else {
			pending[k++] = pending[i];
		}
	}
	npending = k;
	while (npending > 0) { /* an asker gone (killed, timed out) is not asked about */
		struct pollfd p = {.fd = pending[0]->fd, .events = POLLRDHUP};
		if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR))) {
			close(pending[0]->fd);
			free(pending[0]);
			memmove(pending, pending + 1, (size_t)(--npending) * sizeof(pending[0]));
			continue;
		}
		ask(pending[0]);
		break;
	}
}

/* ---- questions arriving ---- */

static void program_of(pid_t pid, char *out, size_t n)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	ssize_t k = fd >= 0 ? read(fd, out, n - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (k <= 0)
		k = snprintf(out, n, "?");
	out[k] = '\0';
	char *nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
}

/* Whether some layer refuses the access, and by which rule (into rule). */
static int refused_here(enum jail_access a, const char *path, char *rule, size_t n)
{
	for (int i = 0; i < nlayers; i++) {
		struct jail_decision d = jail_decide(layers[i], a, path);
		if (d.verdict == JAIL_ALLOW)
			continue;
		if (d.rule >= 0)
			jail_rule_describe(layers[i], d.rule, rule, n);
		else
			snprintf(rule, n, "%s", d.reason == JAIL_NO_RULE ? "no rule allows it" : jail_reason_name(d.reason));
		return 1;
	}
	return 0;
}

/* The parent's pid of pid (/proc/PID/stat), or -1. */
static pid_t parent_of(pid_t pid)
{
	char p[64], buf[512];
	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	ssize_t k = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (k <= 0)
		return -1;
	buf[k] = '\0';
	char *close_paren = strrchr(buf, ')');
	int ppid;
	return close_paren && sscanf(close_paren + 1, " %*c %d", &ppid) == 1 ? (pid_t)ppid : -1;
}

/* Whether pid is the jail's supervisor: jail-supervise (installed beside
 * this program) started by the same jailrun as this broker (a jailed
 * process is never jailrun's child). The one asker whose word on whom it
 * asks for is taken. */
static int is_supervisor(pid_t pid)
{
	char self[PATH_MAX], peer[PATH_MAX], link[64];
	pid_t parent = parent_of(pid);
	if (parent != getppid() && parent != getpid()) /* jailrun's, or ours under --pty */
		return 0;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 32);
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	ssize_t k = readlink(link, peer, sizeof(peer) - 1);
	if (n <= 0 || k <= 0)
		return 0;
	self[n] = '\0';
	peer[k] = '\0';
	char *slash = strrchr(self, '/');
	if (!slash)
		return 0;
	strcpy(slash + 1, "jail-supervise");
	return strcmp(self, peer) == 0;
}

/* "ASK 1\nACCESS\nOP\nPATH\nRULE\n", then "FOR PID\n" from the supervisor;
 * sender: the pid the kernel vouches for as the message's sender */
static struct request *parse(int fd, char *msg, pid_t sender)
{
	char *line[6];
	int n = 0;
	for (char *s = msg; n < 6 && s && *s; n++) {
		line[n] = s;
		s = strchr(s, '\n');
		if (s)
			*s++ = '\0';
	}
	if (n < 5 || strcmp(line[0], "ASK 1") != 0 || line[3][0] != '/')
		return NULL;
	/* The library sends the object it resolved: a path that is not its own
	 * canonical form ("..", "//", a symlink on the way) is not a question
	 * from it, and what is asked about must be what a rule would name. */
	char norm[PATH_MAX], canon[PATH_MAX];
	if (jail_path_normalize(line[3], norm, sizeof(norm)) < 0 || strcmp(norm, line[3]) != 0 ||
	    jail_canon_existing(norm, canon, sizeof(canon), NULL) != 0 || strcmp(canon, norm) != 0)
		return NULL;
	enum jail_access access = jail_access_parse(line[1]);
	char rule[1024] = "";
	if (access == 0 || !refused_here(access, norm, rule, sizeof(rule)))
		return NULL; /* nothing the policy refuses: not a question */
	struct request *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->fd = fd;
	r->access = access;
	snprintf(r->op, sizeof(r->op), "%s", line[2]);
	snprintf(r->path, sizeof(r->path), "%s", line[3]);
	snprintf(r->rule, sizeof(r->rule), "%s", rule); /* ours, not what the asker says */
	snprintf(r->dir, sizeof(r->dir), "%s", r->path);
	char *slash = strrchr(r->dir, '/');
	if (slash == r->dir)
		r->dir[1] = '\0';
	else if (slash)
		*slash = '\0';
	r->pid = sender;
	if (n >= 6 && strncmp(line[5], "FOR ", 4) == 0 && is_supervisor(r->pid))
		r->pid = (pid_t)atoi(line[5] + 4);
	program_of(r->pid, r->program, sizeof(r->program));
	return r;
}

/* A terminal (tty, pts, console, /dev/tty itself) or a socket, or a call
 * that reaches one (a connect, bind or send, whether the socket exists yet
 * or not): to grant one at the terminal would be to hand the jail a way to
 * type, or show, the next answer. */
static int never_asked(const struct request *r)
{
	static const char *const socket_ops[] = {"connect", "bind", "sendto", "sendmsg", "sendmmsg"};
	for (size_t i = 0; i < sizeof(socket_ops) / sizeof(socket_ops[0]); i++)
		if (strcmp(r->op, socket_ops[i]) == 0)
			return 1;
	const char *path = r->path;
	struct stat st;
	if (stat(path, &st) != 0)
		return 0;
	if (S_ISSOCK(st.st_mode))
		return 1;
	if (!S_ISCHR(st.st_mode))
		return 0;
	unsigned maj = major(st.st_rdev);
	return maj == 4 || maj == 5 || (maj >= 136 && maj <= 143); /* Linux: ttyN/ttyS, tty/console/ptmx, pts */
}

static void arrive(int fd)
{
	char msg[PATH_MAX + 2048];
	/* who sent it: the credentials the kernel attaches to the message
	 * (SO_PASSCRED, inherited from the listening socket), not the
	 * connection's (SO_PEERCRED): under a supervisor the connection is made
	 * by the supervisor for its caller */
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} ctl;
	struct iovec iov = {msg, sizeof(msg) - 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf)};
	ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	struct request *r = NULL;
	pid_t sender = 0;
	for (struct cmsghdr *cm = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL; cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_CREDENTIALS) {
			struct ucred cred;
			memcpy(&cred, CMSG_DATA(cm), sizeof(cred));
			sender = cred.pid;
		}
	if (n > 0 && sender > 0) {
		msg[n] = '\0';
		r = parse(fd, msg, sender);
	}
	if (!r || r->access == 0) {
		free(r);
		close(fd);
		return;
	}
	if (never_asked(r)) {
		answer(r, 0, "no (a terminal or a socket: not asked; a rule can grant it)");
		free(r);
		return;
	}
	const struct memory *m = remembered(r);
	if (m) {
		answer(r, m->allow, m->allow ? "granted for this session" : "refused for this session");
		free(r);
		return;
	}
	if (tty < 0) {
		answer(r, 0, "no (no terminal to ask on)");
		free(r);
		return;
	}
	if (now() < quiet_until) {
		answer(r, 0, "no (asked too often: questions paused)");
		free(r);
		return;
	}
	if (npending == MAX_PENDING) {
		answer(r, 0, "no (too many questions waiting)");
		free(r);
		return;
	}
	pending[npending++] = r;
	if (!asking)
		ask(r);
}

/* Starts argv on a new terminal whose master we keep: its own session,
 * the terminal as its controlling one and as whichever of 0, 1, 2 were
 * the user's terminal. 0, or -1 after saying why. */
static int start_on_pty(char **argv)
{
	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
		fprintf(stderr, "jail-broker: cannot make a terminal for the jail: %s\n", strerror(errno));
		return -1;
	}
	const char *slave = ptsname(master);
	struct winsize ws;
	tcgetattr(tty, &user_termios);
	int have_ws = ioctl(tty, TIOCGWINSZ, &ws) == 0;
	int was_tty[3];
	for (int fd = 0; fd < 3; fd++)
		was_tty[fd] = isatty(fd);
	child = fork();
	if (child < 0)
		return -1;
	if (child == 0) {
		setsid();
		int s = open(slave, O_RDWR); /* a session leader's first terminal: its controlling one */
		if (s < 0)
			_exit(126);
		ioctl(s, TIOCSCTTY, 0);
		tcsetattr(s, TCSANOW, &user_termios);
		if (have_ws)
			ioctl(s, TIOCSWINSZ, &ws);
		for (int fd = 0; fd < 3; fd++)
			if (was_tty[fd])
				dup2(s, fd);
		if (s > 2)
			close(s);
		signal(SIGINT, SIG_DFL);
		signal(SIGTTOU, SIG_DFL);
		signal(SIGTTIN, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "jail-broker: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	struct termios raw = user_termios;
	cfmakeraw(&raw);
	tcsetattr(tty, TCSANOW, &raw);
	fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
	relay = 1;
	struct sigaction sw = {.sa_handler = on_winch};
	sigaction(SIGWINCH, &sw, NULL);
	return 0;
}

/* Copies what is ready from one descriptor to the other; -1 at its end.
 * Keys for a jail that does not read them are dropped after a moment
 * (the broker must go on answering), output for the user waits. */
static int pump(int from, int to)
{
	char buf[8192];
	ssize_t n = read(from, buf, sizeof(buf));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0)
		return -1;
	for (ssize_t off = 0; off < n;) {
		ssize_t w = write(to, buf + off, (size_t)(n - off));
		if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			struct pollfd p = {.fd = to, .events = POLLOUT};
			if (poll(&p, 1, to == master ? 100 : 1000) != 1 && (to == master || stopping))
				return 0;
			continue;
		}
		if (w <= 0)
			return -1;
		off += w;
	}
	return 0;
}

/* The jail's launcher has ended: what it still wrote, the user's terminal
 * as it was, and its status as ours. */
static int finish_pty(int status)
{
	fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
	while (pump(master, tty) == 0) {
		struct pollfd p = {.fd = master, .events = POLLIN};
		if (poll(&p, 1, 50) != 1)
			break;
	}
	tcsetattr(tty, TCSANOW, &user_termios);
	for (int i = 0; i < npending; i++)
		answer(pending[i], 0, "no (the jail ended)");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int usage(void)
{
	fprintf(stderr, "usage: jail-broker --socket PATH --blob FILE... [--policy-file FILE [--new]] [--timeout SECS] "
	                "[--supervised] [--pty -- COMMAND...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *sock = NULL;
	char **command = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc)
			sock = argv[++i];
		else if (strcmp(argv[i], "--blob") == 0 && i + 1 < argc && nlayers < MAX_LAYERS) {
			const char *path = argv[++i];
			if (!(layers[nlayers++] = jail_policy_read_blob(path))) {
				fprintf(stderr, "jail: %s:1:1: not a valid compiled policy\n", path);
				return 125;
			}
		} else if (strcmp(argv[i], "--policy-file") == 0 && i + 1 < argc)
			policy_file = argv[++i];
		else if (strcmp(argv[i], "--new") == 0)
			new_policy_file = 1;
		else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) {
			timeout_secs = atoi(argv[++i]);
			if (timeout_secs <= 0)
				timeout_secs = 60;
		}
		else if (strcmp(argv[i], "--supervised") == 0)
			landlock_opts |= JAIL_LANDLOCK_READ_DENIES_ELSEWHERE;
		else if (strcmp(argv[i], "--pty") == 0 && i + 2 < argc && strcmp(argv[i + 1], "--") == 0) {
			command = argv + i + 2;
			break;
		} else
			return usage();
	}
	if (!sock || nlayers == 0)
		return usage();
	struct jail_load_opts lo = {.vars = {.home = getenv("HOME"), .tmp = "/tmp", .cwd = "/"}};
	struct jail_source src = {.name = "<the built-in default>", .text = "include default\n"};
	struct jail_policy *dp = NULL;
	struct jail_error err;
	if (jail_policy_load(&lo, &src, 1, &dp, &err) == 0)
		defaults = dp;
	kernel_active = jail_landlock_abi() > 0 && jail_policy_kernel(layers[0]) != JAIL_KERNEL_OFF;
	if (jail_policy_kernel(layers[0]) == JAIL_KERNEL_STRICT)
		landlock_opts |= JAIL_LANDLOCK_WRITE_CARVEOUTS; /* as jailctl landlock-exec built it */

	/* our own process group: the terminal's foreground while we ask (under
	 * --pty we stay in jailrun's, the foreground one, to read the keys) */
	if (!command)
		setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	struct sigaction st = {.sa_handler = on_stop};
	sigaction(SIGTERM, &st, NULL);
	signal(SIGINT, SIG_IGN); /* ^C while we ask is a key (no), read below */
	signal(SIGTTOU, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	/* non-blocking: a terminal whose output is held cannot hang the broker */
	tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);

	int ls = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(sock) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "jail-broker: socket path too long: %s\n", sock);
		return 1;
	}
	strcpy(sa.sun_path, sock);
	mode_t old = umask(077);
	int on = 1;
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) != 0 ||
	    bind(ls, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(ls, 128) != 0) {
		fprintf(stderr, "jail-broker: cannot listen on %s: %s\n", sock, strerror(errno));
		return 1;
	}
	umask(old);
	if (command) {
		if (tty < 0 || start_on_pty(command) != 0) { /* no terminal to relay: the command as it is */
			pid_t pid = fork();
			if (pid == 0) {
				execvp(command[0], command);
				_exit(127);
			}
			child = pid;
		}
	} else {
		/* ready: jailrun waits for this line on stdout */
		printf("ready\n");
		fflush(stdout);
		fclose(stdout);
	}

	for (;;) {
		struct pollfd p[4] = {{.fd = ls, .events = POLLIN},
		                      {.fd = (asking || relay) && !tty_gone ? tty : -1, .events = POLLIN},
		                      {.fd = relay && !asking && !master_gone ? master : -1, .events = POLLIN}};
		int wait_ms = -1;
		if (child > 0) {
			int status;
			if (waitpid(child, &status, WNOHANG) == child)
				return relay ? finish_pty(status)
				             : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
			wait_ms = 200; /* look for the launcher's end */
		}
		if (resized) {
			struct winsize ws;
			resized = 0;
			if (ioctl(tty, TIOCGWINSZ, &ws) == 0)
				ioctl(master, TIOCSWINSZ, &ws);
		}
		if (asking) {
			struct timespec t;
			clock_gettime(CLOCK_MONOTONIC, &t);
			double left = (double)(deadline.tv_sec - t.tv_sec) + (double)(deadline.tv_nsec - t.tv_nsec) / 1e9;
			int left_ms = left <= 0 ? 0 : (int)(left * 1000) + 1;
			wait_ms = wait_ms < 0 || left_ms < wait_ms ? left_ms : wait_ms;
			if (wait_ms > 500)
				wait_ms = 500; /* look at the terminal's foreground twice a second */
		}
		if (asking && wait_ms > 500)
			wait_ms = 500;
		int rc = poll(p, 3, wait_ms);
		if (stopping) { /* the jail is over: the terminal as we found it, every question no */
			if (asking)
				settle('n');
			for (int i = 0; i < npending; i++)
				answer(pending[i], 0, "no (the jail ended)");
			if (relay)
				tcsetattr(tty, TCSANOW, &user_termios);
			return relay ? 128 + SIGTERM : 0;
		}
		if (rc < 0 && errno != EINTR)
			return 1;
		if (relay && !asking) { /* the relay: keys to the jail, its output to the user */
			if ((p[1].revents & (POLLIN | POLLHUP | POLLERR)) && pump(tty, master) < 0)
				tty_gone = 1; /* hung up: stop polling it */
			if ((p[2].revents & (POLLIN | POLLHUP | POLLERR)) && pump(master, tty) < 0)
				master_gone = 1;
		} else if (asking && !relay && tcgetpgrp(tty) != getpgrp()) {
			settle('x');
		} else if (asking && (p[1].revents & POLLIN)) {
			char keys[64];
			ssize_t got = read(tty, keys, sizeof(keys));
			if (got > 1 || (got < 0 && (errno == EAGAIN || errno == EINTR))) {
				/* several bytes at once are not a key press: a terminal's
				 * reply to a query the jail sent, or a paste; ignored */
			} else if (got == 1) {
				char k = keys[0];
				if (k >= 'A' && k <= 'Z')
					k = (char)(k - 'A' + 'a');
				int only_always = kernel_refuses(asking);
				int no = k == '\r' || k == '\n' || k == 27 || k == 3 || k == 4; /* Enter, Esc, ^C, ^D */
				if (k == 'n' || no || k == 'a' || (!only_always && (k == 'o' || k == 'd')))
					settle(no ? 'n' : k);
			} else {
				settle('n'); /* the terminal went away */
			}
		} else if (asking && now() >= (double)deadline.tv_sec + (double)deadline.tv_nsec / 1e9) {
			settle('t');
		}
		if (!asking && npending > 0)
			next_question();
		if (p[0].revents & POLLIN) {
			int c = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
			if (c >= 0)
				arrive(c);
			else if (errno == EMFILE || errno == ENFILE)
				usleep(100000); /* out of descriptors: let questions end */
		}
	}
}
