/*
 * detour_linux.c — routes the C library's own file calls (detours.def)
 * through the shim, by writing a jump over the start of each function.
 *
 * Invariants:
 *  1. Patched only from the constructor, and only while the process has
 *     one thread (glibc's __libc_single_threaded; a library constructor
 *     that ran first may have started others): no one runs the bytes
 *     while they change. Every signal is blocked meanwhile.
 *  2. The pages stay executable throughout: they are made writable and
 *     executable for the write, then executable again. So the other code
 *     on them (poll, close, utimensat on this glibc) never faults, and a
 *     process that may not have writable code (PR_SET_MDWE, systemd's
 *     MemoryDenyWriteExecute, SELinux without execmem) is refused the
 *     first step and keeps the code as it was. A page that cannot be made
 *     read-only again stays writable and executable: it still works.
 *  3. Only a function the C library defines, whose symbol size covers the
 *     jump, is patched; its aliases share its code and so go with it.
 *  4. A row that cannot be applied leaves the code as it was: those calls
 *     reach the kernel unchanged, where the kernel layer and a supervisor
 *     still see them, and the hooks check them first as before
 *     (jail_detoured() says which).
 *  5. x86_64 with glibc only so far; elsewhere nothing is patched.
 */
#define _GNU_SOURCE
#include "shim.h"
#include "os.h"

#include <dlfcn.h>
#include <errno.h>
#include <elf.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

struct detour {
	const char *symbol, *version;
	void *replacement;
};

static const struct detour detours[] = {
#define JAIL_DETOUR(symbol, version, replacement) {#symbol, version, (void *)(replacement)},
#include "detours.def"
#undef JAIL_DETOUR
};

#if defined(__x86_64__) && defined(__GLIBC__)
/* jmp *0(%rip), then the target's address: 14 bytes, no register used */
#define JUMP_SIZE 14
static void jump_code(unsigned char code[JUMP_SIZE], const void *to)
{
	uintptr_t a = (uintptr_t)to;
	code[0] = 0xff;
	code[1] = 0x25;
	memset(code + 2, 0, 4);
	for (int i = 0; i < 8; i++)
		code[6 + i] = (unsigned char)(a >> (8 * i));
}
#endif

/* The stores into the C library's code: a sanitizer has no shadow memory
 * for a text page, so they are made uninstrumented. */
__attribute__((noinline, no_sanitize("address", "thread"))) static void store(volatile unsigned char *to,
                                                                              const unsigned char *code, int n)
{
	for (int i = 0; i < n; i++) /* no memcpy: it may live on the pages being changed */
		to[i] = code[i];
}

static int from_libc(const char *file)
{
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	return strncmp(base, "libc.so", 7) == 0;
}

#if defined(__x86_64__) && defined(__GLIBC__)
extern char __libc_single_threaded __attribute__((weak)); /* glibc 2.32 */

static int apply(const struct detour *d)
{
	if (&__libc_single_threaded == NULL || !__libc_single_threaded)
		return -EBUSY; /* another thread might be running the code to be changed */
	void *at = dlvsym(RTLD_NEXT, d->symbol, d->version);
	Dl_info info;
	const ElfW(Sym) *sym = NULL;
	if (!at || !dladdr1(at, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || !info.dli_fname)
		return -ENOENT;
	if (!from_libc(info.dli_fname) || ELF64_ST_TYPE(sym->st_info) != STT_FUNC || sym->st_size < JUMP_SIZE)
		return -ENOEXEC;

	unsigned char code[JUMP_SIZE];
	jump_code(code, d->replacement);
	uintptr_t page = 4096, start = (uintptr_t)at & ~(page - 1);
	size_t len = (((uintptr_t)at + JUMP_SIZE + page - 1) & ~(page - 1)) - start;
	uint64_t all = ~0ULL, old = 0;
	long rc = jail_os_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)&old, sizeof all, 0);
	if (rc != 0)
		return (int)rc;
	rc = jail_os_mprotect((void *)start, len, PROT_READ | PROT_WRITE | PROT_EXEC);
	if (rc == 0) {
		store(at, code, JUMP_SIZE);
		jail_os_mprotect((void *)start, len, PROT_READ | PROT_EXEC); /* refused: stays as it is (2) */
	}
	jail_os_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, sizeof old, 0);
	return (int)rc;
}
#else
static int apply(const struct detour *d)
{
	(void)d;
	(void)from_libc;
	(void)store;
	return -ENOSYS;
}
#endif

static int detoured; /* the rows applied; written once, by the constructor */

int jail_detoured(void)
{
	return __atomic_load_n(&detoured, __ATOMIC_RELAXED);
}

int jail_detour_install(void)
{
	int applied = 0;
	for (size_t i = 0; i < sizeof(detours) / sizeof(detours[0]); i++)
		if (apply(&detours[i]) == 0)
			applied++;
	__atomic_store_n(&detoured, applied, __ATOMIC_RELAXED);
	return applied;
}
