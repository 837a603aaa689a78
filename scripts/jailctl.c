/*
 * jailctl — jailrun's compiled helper: loads a policy the way the jail will,
 * and answers questions about it. Not a hook: it may allocate and use stdio.
 *
 *   jailctl [--policy FILE]... [--cwd DIR] check
 *   jailctl [--policy FILE]... [--cwd DIR] explain ACCESS PATH
 *   jailctl [--policy FILE]... [--cwd DIR] print
 *   jailctl [--policy FILE]... [--cwd DIR] compile OUT
 *   jailctl exec -- COMMAND [ARG...]
 *
 * `compile` writes the policy as a compiled blob that the shim maps at
 * start-up (no parsing in every process). `exec` is run by jailrun with the
 * shim preloaded: its execvp is the shim's, so the command is checked (exec
 * access, static or setuid binaries) exactly as any exec inside the jail.
 * --audit and --log FILE append "mode audit" and "log FILE" to the policy.
 *
 * Exit status: 0 allowed / valid, 1 denied, 2 usage, 125 policy error;
 * for exec, 126 when the command cannot be run, 127 when it is not found.
 */
#define _GNU_SOURCE
#include "policy.h"
#include "landlock.h"
#include "supervise.h"

#include <sys/prctl.h>
#include "learn.h"
#include "resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXIT_DENIED 1
#define EXIT_USAGE 2
#define EXIT_POLICY 125

static void usage(FILE *f)
{
	fputs("usage: jailctl [--policy FILE]... [--cwd DIR] [--audit] [--log FILE] check\n"
	      "       jailctl [--policy FILE]... [--cwd DIR] explain ACCESS PATH\n"
	      "       jailctl [--policy FILE]... [--cwd DIR] print\n"
	      "       jailctl [--policy FILE]... [--cwd DIR] [--audit] [--log FILE] compile OUT\n"
	      "       jailctl --policy PROJECT_POLICY narrow OUT   (deny rules only, as a layer)\n"
	      "       jailctl [--policy FILE]... learn AUDIT_LOG OUT [COMMAND]\n"
	      "       jailctl exec -- COMMAND [ARG...]   (with libjail.so preloaded)\n"
	      "       jailctl mode-of BLOB   (enforce, audit or ask)\n"
	      "Options: --rule TEXT appends one directive (repeatable).\n"
	      "ACCESS is read, write, exec or meta; or explain connect HOST:PORT, explain env NAME.\n"
	      "Without --policy, the built-in default.\n",
	      f);
}

struct opts {
	struct jail_source *src;
	size_t nsrc;
	int user_sources;
	char *extra; /* "mode audit" / "log FILE" lines from options */
	const char *cwd;
	char **rest;
	int nrest;
};

/* Appends a directive; a path argument is quoted for the policy language. */
static void append_extra(struct opts *o, const char *directive, const char *path)
{
	size_t old = o->extra ? strlen(o->extra) : 0, plen = path ? strlen(path) : 0;
	char *e = realloc(o->extra, old + strlen(directive) + 2 * plen + 8);
	if (!e) {
		perror("jailctl");
		exit(EXIT_POLICY);
	}
	char *p = e + old;
	p += sprintf(p, "%s", directive);
	if (path) {
		*p++ = '"';
		for (const char *s = path; *s; s++) {
			if (*s == '"' || *s == '\\')
				*p++ = '\\';
			*p++ = *s;
		}
		*p++ = '"';
		*p++ = '\n';
	}
	*p = '\0';
	o->extra = e;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	o->src = calloc((size_t)argc + 1, sizeof(*o->src));
	if (!o->src)
		return -1;
	int i = 1;
	for (; i < argc; i++) {
		if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc) {
			o->src[o->nsrc++].name = argv[++i];
		} else if (strncmp(argv[i], "--policy=", 9) == 0) {
			o->src[o->nsrc++].name = argv[i] + 9;
		} else if (strcmp(argv[i], "--cwd") == 0 && i + 1 < argc) {
			o->cwd = argv[++i];
		} else if (strcmp(argv[i], "--audit") == 0) {
			append_extra(o, "mode audit\n", NULL);
		} else if (strcmp(argv[i], "--log") == 0 && i + 1 < argc) {
			append_extra(o, "log ", argv[++i]);
		} else if (strcmp(argv[i], "--rule") == 0 && i + 1 < argc) {
			append_extra(o, argv[++i], NULL);
			append_extra(o, "\n", NULL);
		} else if (argv[i][0] == '-' && argv[i][1] == '-') {
			fprintf(stderr, "jailctl: unknown option '%s'\n", argv[i]);
			return -1;
		} else {
			break;
		}
	}
	o->user_sources = (int)o->nsrc;
	if (o->nsrc == 0) {
		o->src[0].name = "<command line>";
		o->src[0].text = "include default\n";
		o->nsrc = 1;
	}
	if (o->extra) {
		o->src[o->nsrc].name = "<command line>";
		o->src[o->nsrc++].text = o->extra;
	}
	o->rest = argv + i;
	o->nrest = argc - i;
	return 0;
}

static struct jail_policy *load(const struct opts *o, char *cwdbuf)
{
	struct jail_load_opts lo = {.canon = jail_canon_existing};
	struct jail_error err;
	struct jail_policy *p = NULL;
	const char *tmp = getenv("TMPDIR");

	lo.vars.home = getenv("HOME");
	lo.vars.tmp = (tmp && tmp[0] == '/') ? tmp : "/tmp";
	if (o->cwd) {
		lo.vars.cwd = o->cwd;
	} else if (getcwd(cwdbuf, PATH_MAX)) {
		lo.vars.cwd = cwdbuf;
	}
	if (jail_policy_load(&lo, o->src, o->nsrc, &p, &err) != 0) {
		char msg[2048];
		jail_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "jail: %s\n", msg);
		return NULL;
	}
	return p;
}

static const char *mode_name(enum jail_mode m)
{
	return m == JAIL_MODE_AUDIT ? "audit" : m == JAIL_MODE_ASK ? "ask" : "enforce";
}

static int cmd_check(const struct jail_policy *p)
{
	printf("policy ok: %u rules", jail_rule_count(p));
	if (jail_xrule_count(p))
		printf(" and %u net and env rules", jail_xrule_count(p));
	printf(", mode %s\n", mode_name(jail_policy_mode(p)));
	return 0;
}

static int cmd_print(const struct jail_policy *p)
{
	const char *log = jail_policy_log(p);
	for (uint32_t i = 0; i < jail_policy_file_count(p); i++)
		if (strcmp(jail_policy_file(p, i), "<default>") == 0) {
			printf("# ---- the built-in default policy (include default), with why each rule is there ----\n%s\n",
			       jail_default_policy_text);
			break;
		}
	printf("# ---- the effective rules, each with the FILE:LINE:COLUMN it came from ----\n");
	static const char *const kernel[] = {"auto", "require", "off", "strict"};
	printf("# mode %s\n", mode_name(jail_policy_mode(p)));
	printf("# kernel %s (Landlock ABI %d on this machine)\n", kernel[jail_policy_kernel(p)], jail_landlock_abi());
	if (log)
		printf("# log %s\n", log);
	for (uint32_t i = 0; i < jail_rule_count(p); i++)
		printf("%-44s # %s:%u:%u -> %s [%s]\n", jail_rule_text(p, (int32_t)i), jail_rule_file(p, (int32_t)i),
		       jail_rule_line(p, (int32_t)i), jail_rule_col(p, (int32_t)i), jail_rule_pattern(p, (int32_t)i),
		       jail_policy_kernel(p) == JAIL_KERNEL_OFF ? "shim only" : jail_landlock_rule_scope(p, (int32_t)i));
	static const char *const net[] = {"open (no net allow: all but the local network)", "allowlist", "none"};
	printf("# net %s\n", net[jail_policy_net(p)]);
	uint16_t ports[JAIL_NET_MAX_PORTS];
	int np = jail_net_ports(p, ports, JAIL_NET_MAX_PORTS);
	if (jail_policy_net(p) != JAIL_NET_MODE_OPEN) {
		printf("# net: held by the shim (libc programs) and the jail's proxy (programs that honour HTTPS_PROXY);");
		if (np < 0) {
			printf(" the kernel layer does not bound TCP (an allow rule names no port)\n");
		} else {
			printf(" the kernel layer lets TCP reach only ports");
			for (int k = 0; k < np; k++)
				printf("%s%u", k ? "," : " ", ports[k]);
			printf("%s and the proxy's\n", np ? "" : " none but");
		}
	}
	for (uint32_t i = 0; i < jail_xrule_count(p); i++) {
		int32_t r = (int32_t)(jail_rule_count(p) + i);
		printf("%-44s # %s:%u:%u\n", jail_rule_text(p, r), jail_rule_file(p, r), jail_rule_line(p, r),
		       jail_rule_col(p, r));
	}
	return 0;
}

/* Prints a decision's rule line ("  rule: ...") as explain does. */
static void print_rule(const struct jail_policy *p, struct jail_decision d)
{
	char rule[4096];
	jail_rule_describe(p, d.rule, rule, sizeof(rule));
	if (d.reason == JAIL_BY_RULE)
		printf("  rule: %s\n", rule);
	else if (d.reason == JAIL_NO_RULE)
		printf("  rule: none matches\n");
	else
		printf("  rule: none matches (%s)\n", jail_reason_name(d.reason));
}

/* explain connect HOST:PORT ([IPV6]:PORT): what the shim decides on a
 * connect (or send) to it, or for a name, on the name's addresses. */
static int explain_connect(const struct jail_policy *p, const char *arg)
{
	char host[512];
	const char *colon = arg[0] == '[' ? strstr(arg, "]:") : strrchr(arg, ':');
	char *end = NULL;
	unsigned long port = colon ? strtoul(colon + (arg[0] == '[' ? 2 : 1), &end, 10) : 0;
	if (!colon || !end || *end || port == 0 || port > 65535 || (size_t)(colon - arg) >= sizeof(host)) {
		fprintf(stderr, "jailctl: expected HOST:PORT (or [IPV6]:PORT) after 'connect', not '%s'\n", arg);
		return EXIT_USAGE;
	}
	size_t hl = (size_t)(colon - arg) - (arg[0] == '[');
	memcpy(host, arg + (arg[0] == '['), hl);
	host[hl] = '\0';
	uint8_t addr[16];
	struct jail_decision d;
	int is_addr = jail_addr_parse(host, addr) == 0;
	if (is_addr)
		d = jail_decide_connect(p, addr, (unsigned)port, NULL);
	else
		d = jail_decide_name(p, host, (unsigned)port);
	/* the kernel layer bounds TCP by port: what the policy allows may still not connect */
	uint16_t ports[JAIL_NET_MAX_PORTS];
	int np = jail_net_ports(p, ports, JAIL_NET_MAX_PORTS), k = 0;
	while (k < np && ports[k] != port)
		k++;
	int kernel_refuses = d.verdict == JAIL_ALLOW && np >= 0 && k == np && jail_policy_kernel(p) != JAIL_KERNEL_OFF &&
	                     jail_policy_mode(p) != JAIL_MODE_AUDIT && jail_landlock_abi() >= 4;
	int audit = jail_policy_mode(p) == JAIL_MODE_AUDIT && d.verdict == JAIL_DENY;
	printf("%s connect %s\n", audit ? "would deny" : kernel_refuses ? "deny" : jail_effect_name(d.verdict), arg);
	print_rule(p, d);
	if (kernel_refuses)
		printf("  the policy allows it, but the kernel layer lets TCP reach only the ports the net allow rules "
		       "name (UDP would pass)\n");
	if (!is_addr) {
		struct jail_decision r = jail_decide_resolve(p, host);
		if (r.verdict != JAIL_ALLOW)
			printf("  the name does not resolve in the jail\n");
		else if (d.verdict == JAIL_ALLOW)
			printf("  the name resolves; a net rule on the address it resolves to would be decided first\n");
	}
	if (audit)
		printf("  mode audit: the connection would be allowed and logged\n");
	if (kernel_refuses)
		return EXIT_DENIED;
	return d.verdict == JAIL_ALLOW ? 0 : EXIT_DENIED;
}

/* explain env NAME: whether programs the jail starts inherit NAME. */
static int explain_env(const struct jail_policy *p, const char *name)
{
	struct jail_decision d = jail_decide_env(p, name, strlen(name));
	printf("%s env %s\n", d.verdict == JAIL_DENY ? "scrub" : "keep", name);
	print_rule(p, d);
	return d.verdict == JAIL_ALLOW ? 0 : EXIT_DENIED;
}

static int cmd_explain(const struct jail_policy *p, char **argv, int argc)
{
	if (argc != 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[0], "connect") == 0)
		return explain_connect(p, argv[1]);
	if (strcmp(argv[0], "env") == 0)
		return explain_env(p, argv[1]);
	enum jail_access a = jail_access_parse(argv[0]);
	if (a == 0) {
		fprintf(stderr, "jailctl: unknown access '%s': expected read, write, exec, meta, connect or env\n",
		        argv[0]);
		return EXIT_USAGE;
	}
	static struct jail_resolved r;
	int rc = jail_resolve(AT_FDCWD, argv[1], 0, &r);
	if (r.kind == JAIL_OBJ_ANON) {
		printf("deny %s %s\n  object: %s (not a path)\n", argv[0], argv[1], r.path);
		return EXIT_DENIED;
	}
	char which = 'r';
	const char *resolved = r.path[0] == '/' ? r.path : NULL;
	const char *given = r.given[0] == '/' ? r.given : NULL;
	if (!resolved && !given) {
		fprintf(stderr, "jailctl: cannot resolve '%s': %s\n", argv[1], strerror(-rc));
		return EXIT_USAGE;
	}
	struct jail_decision d = jail_decide2(p, a, given, resolved, &which);
	char rule[4096];
	jail_rule_describe(p, d.rule, rule, sizeof(rule));
	const char *shown = which == 'g' ? given : resolved;
	int audit = jail_policy_mode(p) == JAIL_MODE_AUDIT && d.verdict == JAIL_DENY;
	printf("%s %s %s\n", audit ? "would deny" : jail_effect_name(d.verdict), jail_access_name(a), shown);
	if (d.reason == JAIL_BY_RULE)
		printf("  rule: %s\n", rule);
	else
		printf("  rule: %s (%s)\n", rule, jail_reason_name(d.reason));
	if (which == 'g')
		printf("  matched: the path as given (resolved: %s)\n", resolved);
	else if (given && strcmp(given, resolved) != 0)
		printf("  resolved from: %s\n", given);
	if (rc != 0)
		printf("  note: the call itself would fail: %s\n", strerror(-rc));
	if (audit)
		printf("  mode audit: the call would be allowed and logged\n");
	return d.verdict == JAIL_ALLOW ? 0 : EXIT_DENIED;
}

/* Writes the blob next to `out`, then renames it into place, read-only. */
static int cmd_compile(const struct jail_policy *p, const char *out)
{
	size_t size;
	const void *blob = jail_policy_blob(p, &size);
	char tmp[PATH_MAX];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", out) >= (int)sizeof(tmp)) {
		fprintf(stderr, "jailctl: %s: path too long\n", out);
		return EXIT_POLICY;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0444);
	if (fd < 0 || write(fd, blob, size) != (ssize_t)size || fsync(fd) != 0 || close(fd) != 0 ||
	    rename(tmp, out) != 0) {
		fprintf(stderr, "jailctl: cannot write the compiled policy %s: %s\n", out, strerror(errno));
		return EXIT_POLICY;
	}
	return 0;
}

/* A project's policy may only narrow: its deny rules become a layer over
 * "allow everything", which every call must also pass; its allow rules,
 * mode and log are refused with a message (a cloned repository must not
 * widen the jail, silence it, or make the jail write a file of its choice).
 * Each deny is re-read from its own text at its own FILE:LINE, so messages
 * point into the project's file. */
struct narrow_src {
	const char *file;
	char *text;
	size_t len, cap;
	uint32_t lines;
};

static void narrow_put(struct narrow_src *s, const char *str)
{
	size_t n = strlen(str);
	if (s->len + n + 1 > s->cap) {
		s->cap = (s->len + n + 1) * 2;
		s->text = realloc(s->text, s->cap);
		if (!s->text) {
			perror("jailctl");
			exit(EXIT_POLICY);
		}
	}
	memcpy(s->text + s->len, str, n + 1);
	s->len += n;
}

static struct narrow_src *narrow_file(struct narrow_src *v, size_t *n, const char *file)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(v[i].file, file) == 0)
			return &v[i];
	v[*n] = (struct narrow_src){.file = file, .lines = 1};
	narrow_put(&v[*n], "");
	return &v[(*n)++];
}

static int cmd_narrow(const struct jail_policy *p, const char *out, const char *shown)
{
	uint32_t nrules = jail_rule_count(p);
	struct narrow_src *v = calloc(jail_policy_file_count(p) + 1, sizeof(*v));
	size_t nv = 0;
	int warned_default = 0;
	/* net and env rules are kept as written: in a layer of their own they
	 * can only narrow (every layer must allow a connection; a variable any
	 * layer scrubs is scrubbed) */
	for (uint32_t i = 0; i < nrules + jail_xrule_count(p); i++) {
		int32_t r = (int32_t)i;
		const char *file = jail_rule_file(p, r);
		if (i < nrules && jail_rule_effect(p, r) == JAIL_ALLOW) {
			if (strcmp(file, "<default>") != 0)
				fprintf(stderr, "jailrun: ignoring %s:%u: '%s': a project policy may only narrow the jail\n",
				        file, jail_rule_line(p, r), jail_rule_text(p, r));
			else if (!warned_default++)
				fprintf(stderr, "jailrun: ignoring the allow rules of 'include default' in %s: a project "
				                "policy may only narrow the jail\n", shown);
			continue;
		}
		struct narrow_src *s = narrow_file(v, &nv, file);
		const char *text = jail_rule_text(p, r);
		if (s->lines == jail_rule_line(p, r) && s->len > 0 && s->text[s->len - 1] != '\n') {
			/* another pattern of the same directive: add its token */
			const char *tok = strchr(strchr(text, ' ') + 1, ' ') + 1;
			narrow_put(s, " ");
			narrow_put(s, tok);
			continue;
		}
		for (; s->lines < jail_rule_line(p, r); s->lines++) /* to the rule's own line */
			narrow_put(s, "\n");
		narrow_put(s, text);
	}
	if (jail_policy_mode(p) != JAIL_MODE_ENFORCE)
		fprintf(stderr, "jailrun: ignoring 'mode %s' in %s: a project policy may only narrow the jail\n",
		        mode_name(jail_policy_mode(p)), shown);
	if (jail_policy_log(p))
		fprintf(stderr, "jailrun: ignoring 'log' in %s: a project policy cannot choose where the jail writes\n",
		        shown);
	struct jail_source *src = calloc(nv + 1, sizeof(*src));
	/* the base allows everything, the network included, for the project's
	 * rules to narrow (so `net none` then `net allow ...` makes an allowlist) */
	src[0] = (struct jail_source){.name = "<project narrowing>", .text = "allow read,write,exec /\nnet allow *\n"};
	for (size_t i = 0; i < nv; i++)
		src[i + 1] = (struct jail_source){.name = v[i].file, .text = v[i].text};
	const char *tmp = getenv("TMPDIR");
	char cwd[PATH_MAX];
	struct jail_load_opts lo = {.canon = jail_canon_existing};
	lo.vars.home = getenv("HOME");
	lo.vars.tmp = (tmp && tmp[0] == '/') ? tmp : "/tmp";
	lo.vars.cwd = getcwd(cwd, sizeof(cwd));
	struct jail_policy *layer = NULL;
	struct jail_error err;
	int rc = jail_policy_load(&lo, src, nv + 1, &layer, &err);
	for (size_t i = 0; i < nv; i++)
		free(v[i].text);
	free(v);
	free(src);
	if (rc != 0) {
		char msg[2048];
		jail_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "jail: %s\n", msg);
		return EXIT_POLICY;
	}
	rc = cmd_compile(layer, out);
	jail_policy_free(layer);
	return rc;
}

/* Maps a compiled policy file (read into aligned memory). */
/* The kernel layer, before the jailed command starts: restrict this process
 * with Landlock as the compiled policies say (their `kernel` setting: auto,
 * require or off), then exec the rest of the command line. Not preloaded:
 * it runs the launcher (jailctl exec) that is. */
static int cmd_landlock_exec(char **argv, int argc)
{
	const struct jail_policy *layers[16];
	const char *blobs[16], *writes[32], *reads[32], *holds[8], *preload = NULL;
	size_t nl = 0, nw = 0, nr = 0, nhold = 0;
	static char held_real[8][PATH_MAX];
	unsigned connect_port = 0;
	int i = 0;
	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (i + 1 >= argc)
			break;
		if (strcmp(argv[i], "--grant-connect") == 0)
			connect_port = (unsigned)strtoul(argv[++i], NULL, 10) & 0xffff;
		else if (strcmp(argv[i], "--blob") == 0 && nl < 16)
			blobs[nl++] = argv[++i];
		else if (strcmp(argv[i], "--grant-write") == 0 && nw < 32)
			writes[nw++] = argv[++i];
		else if (strcmp(argv[i], "--grant-read") == 0 && nr < 32)
			reads[nr++] = argv[++i];
		else if (strcmp(argv[i], "--hold") == 0 && nhold < 8) {
			/* by its real name: the kernel's rules are on objects */
			if (!realpath(argv[++i], held_real[nhold])) {
				fprintf(stderr, "jail: --hold %s: %s\n", argv[i], strerror(errno));
				return EXIT_POLICY;
			}
			holds[nhold] = held_real[nhold];
			nhold++;
		}
		else if (strcmp(argv[i], "--preload") == 0)
			preload = argv[++i];
		else
			break;
	}
	if (i >= argc || strcmp(argv[i], "--") != 0 || i + 1 >= argc || nl == 0) {
		usage(stderr);
		return EXIT_USAGE;
	}
	char **cmd = argv + i + 1;
	for (size_t k = 0; k < nl; k++) {
		layers[k] = jail_policy_read_blob(blobs[k]);
		if (!layers[k]) {
			fprintf(stderr, "jail: %s:1:1: not a valid compiled policy\n", blobs[k]);
			return EXIT_POLICY;
		}
		if (jail_policy_log(layers[k]) && nw < 32) {
			/* made now, so that the kernel layer can grant it by name:
			 * a log outside every writable tree could not be created later */
			int lfd = open(jail_policy_log(layers[k]), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0600);
			if (lfd >= 0)
				close(lfd);
			writes[nw++] = jail_policy_log(layers[k]);
		}
		if (nr < 32)
			reads[nr++] = blobs[k];
	}
	static char self[PATH_MAX];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl > 0 && nr < 32) {
		self[sl] = '\0';
		reads[nr++] = self;
	}
	/* Files the caller handed in as descriptors (stdout redirected to a log,
	 * say) stay usable by name, as the shim allows: grant the kernel layer
	 * exactly those files, for the access their descriptors have. */
	static char handed[32][PATH_MAX];
	size_t nh = 0;
	DIR *fds = opendir("/proc/self/fd");
	struct dirent *fe;
	while (fds && (fe = readdir(fds)) != NULL && nh < 32) {
		int fd = atoi(fe->d_name);
		struct stat fst;
		char link[64];
		if (fe->d_name[0] == '.' || fd == dirfd(fds) || fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode))
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		ssize_t hl = readlink(link, handed[nh], PATH_MAX - 1);
		int fl = fcntl(fd, F_GETFL);
		if (hl <= 0 || fl < 0 || (fl & O_PATH))
			continue;
		handed[nh][hl] = '\0';
		if ((fl & O_ACCMODE) != O_RDONLY && nw < 32)
			writes[nw++] = handed[nh++];
		else if (nr < 32)
			reads[nr++] = handed[nh++];
	}
	if (fds)
		closedir(fds);
	enum jail_kernel mode = jail_policy_kernel(layers[0]); /* the main policy's setting */
	/* A layer in audit mode observes: the kernel cannot "allow and log". One
	 * in ask mode enforces (a grant beyond the kernel's rules takes effect in
	 * the library only, and its questions say so). */
	size_t nenforce = 0;
	for (size_t k = 0; k < nl; k++)
		if (jail_policy_mode(layers[k]) != JAIL_MODE_AUDIT)
			layers[nenforce++] = layers[k];
	if (nenforce == 0)
		mode = JAIL_KERNEL_OFF;
	nl = nenforce;
	if (mode != JAIL_KERNEL_OFF) {
		struct jail_landlock_stats st;
		char err[600];
		/* under jail-supervise (the filter follows below), read denies are
		 * the supervisor's: no expanded trees, whose new files no one could read */
		unsigned opts = getenv(JAIL_ENV_SUPERVISOR) ? JAIL_LANDLOCK_READ_DENIES_ELSEWHERE : 0;
		int required = mode == JAIL_KERNEL_REQUIRE || mode == JAIL_KERNEL_STRICT;
		if (mode == JAIL_KERNEL_STRICT)
			opts |= JAIL_LANDLOCK_WRITE_CARVEOUTS;
		struct jail_landlock_extra x = {.write = writes, .nwrite = nw, .read = reads, .nread = nr, .hold = holds,
		                                .nhold = nhold, .connect_port = connect_port};
		if (jail_landlock_apply(layers, nl, &x, opts, &st, err, sizeof(err)) == 0) {
			char abi[16];
			snprintf(abi, sizeof(abi), "%d", st.abi);
			setenv("JAIL_KERNEL", abi, 1);
		} else if (required || st.abi >= 1) {
			fprintf(stderr, "jail: the kernel layer (Landlock) %s: %s\n",
			        required ? "is required but cannot be applied" : "failed", err);
			return EXIT_POLICY;
		} else {
			fprintf(stderr, "jailrun: notice: %s; the shim alone confines this run (static binaries are refused)\n",
			        err);
		}
	}
	/* nothing in the jail types into the terminal (ask mode's answers, the
	 * user's shell afterwards): TIOCSTI and TIOCLINUX fail with EPERM */
	int tty_rc = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ? -errno : jail_seccomp_deny_tty_injection();
	if (tty_rc != 0 && tty_rc != -ENOSYS) {
		fprintf(stderr, "jail: cannot refuse terminal input injection to the jail: %s\n", strerror(-tty_rc));
		return EXIT_POLICY;
	}
	/* under jail-supervise: the filter, now that the Landlock rules (built
	 * from O_PATH opens) are in place; without it, no command */
	unsigned sup_flags = 0;
	for (size_t k = 0; k < nl; k++)
		if (jail_policy_mode(layers[k]) == JAIL_MODE_ASK)
			sup_flags |= JAIL_SECCOMP_PAGE_CONNECTS; /* the answers' channel: see supervise.h */
	int sup = jail_seccomp_handoff(sup_flags);
	if (sup == -EBUSY) {
		/* one listener per process tree (the kernel's rule): the outer
		 * supervisor would make this jail's calls outside its layers */
		fprintf(stderr, "jail: a jail inside a supervised jail cannot have a supervisor of its own, and without one "
		                "its layers would hold only in part: not starting it (run the outer jail without "
		                "--supervise to nest jails)\n");
		return EXIT_POLICY;
	}
	if (sup < 0) {
		fprintf(stderr, "jail: the supervisor's seccomp filter cannot be installed: %s\n", strerror(-sup));
		return EXIT_POLICY;
	}
	/* last: from here on, what starts is preloaded */
	if (preload)
		setenv("LD_PRELOAD", preload, 1);
	execvp(cmd[0], cmd);
	fprintf(stderr, "jailrun: cannot run %s: %s\n", cmd[0], strerror(errno));
	return 126;
}

/* With the shim preloaded, execvp is the jail's: the command is checked as
 * any program started inside the jail. */
static int cmd_exec(char **argv, int argc)
{
	if (argc < 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	execvp(argv[0], argv);
	int e = errno;
	if (e == ENOENT || e == ENOTDIR) {
		fprintf(stderr, "jailrun: %s: command not found\n", argv[0]);
		return 127;
	}
	fprintf(stderr, "jailrun: cannot run %s: %s\n", argv[0], strerror(e));
	return 126;
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	static char cwdbuf[PATH_MAX];
	int rc;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (parse_args(argc, argv, &o) != 0 || o.nrest < 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = o.rest[0];
	if (strcmp(cmd, "landlock-exec") == 0)
		return cmd_landlock_exec(o.rest + 1, o.nrest - 1);
	if (strcmp(cmd, "mode-of") == 0 && o.nrest == 2) { /* the mode a compiled policy was written with */
		const struct jail_policy *b = jail_policy_read_blob(o.rest[1]);
		if (!b) {
			fprintf(stderr, "jail: %s:1:1: not a valid compiled policy\n", o.rest[1]);
			return EXIT_POLICY;
		}
		printf("%s\n", mode_name(jail_policy_mode(b)));
		return 0;
	}
	if (strcmp(cmd, "exec") == 0) {
		int skip = o.nrest > 1 && strcmp(o.rest[1], "--") == 0 ? 2 : 1;
		return cmd_exec(o.rest + skip, o.nrest - skip);
	}
	if (strcmp(cmd, "check") != 0 && strcmp(cmd, "explain") != 0 && strcmp(cmd, "print") != 0 &&
	    strcmp(cmd, "compile") != 0 && strcmp(cmd, "narrow") != 0 && strcmp(cmd, "learn") != 0) {
		fprintf(stderr, "jailctl: unknown command '%s'\n", cmd);
		usage(stderr);
		return EXIT_USAGE;
	}
	/* A compiled policy records where its rules came from; the shim keeps
	 * those files unwritable, which needs absolute names. */
	static char absnames[64][PATH_MAX];
	if (strcmp(cmd, "compile") == 0 || strcmp(cmd, "learn") == 0)
		for (int i = 0; i < o.user_sources && i < 64; i++)
			if (o.src[i].name[0] != '/' && getcwd(absnames[i], PATH_MAX) &&
			    strlen(absnames[i]) + strlen(o.src[i].name) + 2 < PATH_MAX) {
				strcat(absnames[i], "/");
				strcat(absnames[i], o.src[i].name);
				o.src[i].name = absnames[i];
			}
	struct jail_policy *p = load(&o, cwdbuf);
	if (!p)
		return EXIT_POLICY;
	if (strcmp(cmd, "check") == 0)
		rc = o.nrest == 1 ? cmd_check(p) : EXIT_USAGE;
	else if (strcmp(cmd, "print") == 0)
		rc = o.nrest == 1 ? cmd_print(p) : EXIT_USAGE;
	else if (strcmp(cmd, "compile") == 0)
		rc = o.nrest == 2 ? cmd_compile(p, o.rest[1]) : EXIT_USAGE;
	else if (strcmp(cmd, "learn") == 0 && o.nrest >= 3) {
		const char *inc[64];
		size_t ninc = 0;
		for (int i = 0; i < o.user_sources && i < 64; i++)
			inc[ninc++] = o.src[i].name;
		struct opts dopts = o;
		struct jail_source dsrc = {.name = "<command line>", .text = "include default\n"};
		dopts.src = &dsrc;
		dopts.nsrc = 1;
		struct jail_policy *defp = load(&dopts, cwdbuf);
		rc = defp && jail_learn(p, defp, o.rest[1], o.rest[2], inc, ninc, o.nrest > 3 ? o.rest[3] : "(unknown)") == 0
		         ? 0
		         : EXIT_POLICY;
		jail_policy_free(defp);
	} else if (strcmp(cmd, "narrow") == 0)
		rc = o.nrest == 2 && o.user_sources == 1 ? cmd_narrow(p, o.rest[1], o.src[0].name) : EXIT_USAGE;
	else
		rc = cmd_explain(p, o.rest + 1, o.nrest - 1);
	jail_policy_free(p);
	free(o.src);
	free(o.extra);
	return rc;
}
