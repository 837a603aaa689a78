/*
 * glob.c — one-component glob matching.
 *
 * Invariants: no allocation, no recursion, no libc calls; a pattern never
 * matches across '/', because callers hand in one component at a time.
 * Unlike fnmatch(3) with FNM_PERIOD, '*' and '?' match a leading dot: a policy
 * that denies a star under ~/.ssh must cover ~/.ssh/.hidden too.
 */
#include "blob.h"

/* Matches the class starting after '[' at pat[*i]; advances *i past ']'.
 * Returns 1 when c is in the class. A malformed class was refused at load. */
static int class_match(const char *pat, uint32_t plen, uint32_t *i, unsigned char c)
{
	uint32_t k = *i;
	int neg = 0, hit = 0;
	if (k < plen && (pat[k] == '!' || pat[k] == '^')) {
		neg = 1;
		k++;
	}
	int first = 1;
	while (k < plen && (pat[k] != ']' || first)) {
		unsigned char lo = (unsigned char)pat[k];
		if (lo == '\\' && k + 1 < plen)
			lo = (unsigned char)pat[++k];
		unsigned char hi = lo;
		if (k + 2 < plen && pat[k + 1] == '-' && pat[k + 2] != ']') {
			k += 2;
			hi = (unsigned char)pat[k];
			if (hi == '\\' && k + 1 < plen)
				hi = (unsigned char)pat[++k];
		}
		if (c >= lo && c <= hi)
			hit = 1;
		k++;
		first = 0;
	}
	*i = k + 1; /* past ']' */
	return hit != neg;
}

int jail_glob_match(const char *pat, uint32_t plen, const char *s, uint32_t slen)
{
	uint32_t p = 0, n = 0;
	uint32_t star_p = UINT32_MAX, star_n = 0; /* last '*' seen, for backtracking */

	while (n < slen) {
		if (p < plen) {
			char pc = pat[p];
			if (pc == '*') {
				while (p < plen && pat[p] == '*')
					p++;
				star_p = p;
				star_n = n;
				continue;
			}
			if (pc == '?') {
				p++;
				n++;
				continue;
			}
			if (pc == '[') {
				uint32_t q = p + 1;
				if (class_match(pat, plen, &q, (unsigned char)s[n])) {
					p = q;
					n++;
					continue;
				}
			} else {
				if (pc == '\\' && p + 1 < plen)
					pc = pat[++p];
				if (pc == s[n]) {
					p++;
					n++;
					continue;
				}
			}
		}
		if (star_p == UINT32_MAX)
			return 0;
		p = star_p;
		n = ++star_n;
	}
	while (p < plen && pat[p] == '*')
		p++;
	return p == plen;
}

int jail_glob_has_magic(const char *s, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++) {
		if (s[i] == '\\') {
			i++;
			continue;
		}
		if (s[i] == '*' || s[i] == '?' || s[i] == '[')
			return 1;
	}
	return 0;
}

uint32_t jail_glob_check(const char *s, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++) {
		if (s[i] == '\\') {
			i++;
			continue;
		}
		if (s[i] != '[')
			continue;
		uint32_t k = i + 1;
		if (k < len && (s[k] == '!' || s[k] == '^'))
			k++;
		if (k < len && s[k] == ']')
			k++;
		while (k < len && s[k] != ']') {
			if (s[k] == '\\')
				k++;
			k++;
		}
		if (k >= len)
			return i + 1;
		i = k;
	}
	return 0;
}
