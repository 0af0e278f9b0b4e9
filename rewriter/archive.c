/* SPDX-License-Identifier: MIT */
#include "archive.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <ar.h>

#include "util.h"

bool is_archive(const void *image, size_t size)
{
	return size >= SARMAG && !memcmp(image, ARMAG, SARMAG);
}

int archive_read(struct archive *a, const char *path, const void *image, size_t size)
{
	memset(a, 0, sizeof(*a));
	/* libelf stops quietly at a damaged member: walk the headers first */
	const char *img = image;
	for (size_t off = SARMAG; off < size;) {
		if (size - off < sizeof(struct ar_hdr)) {
			pi_error("%s: damaged archive (truncated member header at offset %zu)", path, off);
			return -1;
		}
		const struct ar_hdr *h = (const void *)(img + off);
		char num[11];
		memcpy(num, h->ar_size, 10);
		num[10] = 0;
		char *end;
		unsigned long long msz = strtoull(num, &end, 10);
		if (memcmp(h->ar_fmag, ARFMAG, 2) || end == num) {
			pi_error("%s: damaged archive member header at offset %zu", path, off);
			return -1;
		}
		off += sizeof(struct ar_hdr);
		if (msz > size - off) {
			pi_error("%s: damaged archive (member at offset %zu truncated)", path,
				 off - sizeof(struct ar_hdr));
			return -1;
		}
		off += msz + (msz & 1);
	}
	elf_version(EV_CURRENT);
	char *copy = xmalloc(size);
	memcpy(copy, image, size);
	Elf *ar = elf_memory(copy, size);
	int rc = 0;
	if (!ar || elf_kind(ar) != ELF_K_AR) {
		pi_error("%s: corrupt archive", path);
		rc = -1;
		goto out;
	}
	/* members of an in-memory archive: only the MMAP command finds them */
	Elf_Cmd cmd = ELF_C_READ_MMAP;
	Elf *m;
	size_t seen = 0;
	while ((m = elf_begin(-1, cmd, ar)) != NULL) {
		Elf_Arhdr *h = elf_getarhdr(m);
		if (!h) {
			pi_error("%s: damaged archive member header: %s", path, elf_errmsg(-1));
			elf_end(m);
			rc = -1;
			break;
		}
		if (strcmp(h->ar_name, "/") && strcmp(h->ar_name, "//") && strcmp(h->ar_name, "/SYM64/")) {
			size_t msz;
			char *raw = elf_rawfile(m, &msz);
			if (!raw || msz != (size_t)h->ar_size) {
				pi_error("%s(%s): damaged archive member (truncated)", path, h->ar_name);
				elf_end(m);
				rc = -1;
				break;
			}
			struct ar_member *am = VEC_PUSH(a->m, a->n, a->cap);
			am->name = xstrdup(h->ar_name);
			am->size = msz;
			am->data = xmalloc(msz);
			memcpy(am->data, raw, msz);
		}
		seen++;
		cmd = elf_next(m);
		elf_end(m);
	}
	if (!rc && elf_errno()) {
		/* elf_begin stopped on something it could not parse */
		const char *msg = elf_errmsg(0);
		if (msg) {
			pi_error("%s: damaged archive: %s", path, msg);
			rc = -1;
		}
	}
	(void)seen;
out:
	if (ar)
		elf_end(ar);
	free(copy);
	return rc;
}

void elf_defined_globals(const uint8_t *image, size_t size,
			 void (*cb)(const char *name, void *arg), void *arg)
{
	elf_version(EV_CURRENT);
	char *copy = xmalloc(size);
	memcpy(copy, image, size);
	Elf *e = elf_memory(copy, size);
	Elf_Scn *scn = NULL;
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = d ? d->d_size / sizeof(Elf64_Sym) : 0;
		for (size_t i = sh.sh_info; i < n; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s))
				continue;
			int b = GELF_ST_BIND(s.st_info);
			if ((b != STB_GLOBAL && b != STB_WEAK && b != STB_GNU_UNIQUE) || s.st_shndx == SHN_UNDEF)
				continue;
			/* a name outside its table: obj_read says what is wrong */
			const char *name = elf_strptr(e, sh.sh_link, s.st_name);
			if (name)
				cb(name, arg);
		}
	}
	if (e)
		elf_end(e);
	free(copy);
}

struct symcollect {
	struct buf names;
	uint32_t *member;
	size_t n, cap;
	uint32_t cur;
};

static void collect(const char *name, void *arg)
{
	struct symcollect *s = arg;
	if (!name || !*name)
		return;
	buf_put(&s->names, name, strlen(name) + 1);
	*VEC_PUSH(s->member, s->n, s->cap) = s->cur;
}

static void put_hdr(struct buf *b, const char *name, size_t size)
{
	char h[128];
	snprintf(h, sizeof(h), "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", name, "0", "0", "0", "644", size);
	buf_put(b, h, 60);
}

static void put_be32(struct buf *b, uint32_t v)
{
	uint8_t t[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
	buf_put(b, t, 4);
}

/* A piece of the archive's file: len bytes of a member's data, or (data
 * NULL) of the headers' buffer from off. */
struct piece {
	const uint8_t *data;
	size_t off, len;
};

/* The bytes added to b since *from, as a piece of the headers. */
static void head_piece(const struct buf *b, size_t *from, struct piece **v, size_t *n, size_t *cap)
{
	if (b->len > *from)
		*VEC_PUSH(*v, *n, *cap) = (struct piece){NULL, *from, b->len - *from};
	*from = b->len;
}

int archive_image(const struct archive *a, const char *path, struct buf *head, struct iovec **parts,
		  size_t *nparts)
{
	*parts = NULL;
	*nparts = 0;
	struct symcollect sc = {0};
	for (size_t i = 0; i < a->n; i++) {
		sc.cur = (uint32_t)i;
		if (a->m[i].size >= 4 && !memcmp(a->m[i].data, "\177ELF", 4))
			elf_defined_globals(a->m[i].data, a->m[i].size, collect, &sc);
	}
	/* long names table */
	struct buf longn = {0};
	size_t *nameoff = xcalloc(a->n + 1, sizeof(*nameoff));
	for (size_t i = 0; i < a->n; i++) {
		nameoff[i] = SIZE_MAX;
		if (strlen(a->m[i].name) > 15) {
			nameoff[i] = longn.len;
			buf_put(&longn, a->m[i].name, strlen(a->m[i].name));
			buf_put(&longn, "/\n", 2);
		}
	}
	size_t symsize = 4 + 4 * sc.n + sc.names.len;
	size_t pos = SARMAG + 60 + symsize + (symsize & 1);
	if (longn.len)
		pos += 60 + longn.len + (longn.len & 1);
	uint32_t *moff = xcalloc(a->n + 1, sizeof(*moff));
	for (size_t i = 0; i < a->n; i++) {
		moff[i] = (uint32_t)pos;
		pos += 60 + a->m[i].size + (a->m[i].size & 1);
	}
	int rc = 0;
	if (pos > UINT32_MAX) {
		pi_error("%s: archive larger than 4 GiB", path);
		rc = -1;
		goto out;
	}
	/* the headers in one buffer, the members' bytes where they are:
	 * an instrumented archive is several times its input, and a copy
	 * of it all would be as many more pages to fault in */
	struct buf b = {0};
	struct piece *pc = NULL;
	size_t npc = 0, pccap = 0, from = 0;
	buf_put(&b, ARMAG, SARMAG);
	put_hdr(&b, "/", symsize);
	put_be32(&b, (uint32_t)sc.n);
	for (size_t i = 0; i < sc.n; i++)
		put_be32(&b, moff[sc.member[i]]);
	buf_put(&b, sc.names.p, sc.names.len);
	if (symsize & 1)
		buf_u8(&b, '\n');
	if (longn.len) {
		put_hdr(&b, "//", longn.len);
		buf_put(&b, longn.p, longn.len);
		if (longn.len & 1)
			buf_u8(&b, '\n');
	}
	for (size_t i = 0; i < a->n; i++) {
		char nm[32];
		if (nameoff[i] != SIZE_MAX)
			snprintf(nm, sizeof(nm), "/%zu", nameoff[i]);
		else
			snprintf(nm, sizeof(nm), "%s/", a->m[i].name);
		put_hdr(&b, nm, a->m[i].size);
		head_piece(&b, &from, &pc, &npc, &pccap);
		if (a->m[i].size)
			*VEC_PUSH(pc, npc, pccap) = (struct piece){a->m[i].data, 0, a->m[i].size};
		if (a->m[i].size & 1)
			buf_u8(&b, '\n');
	}
	head_piece(&b, &from, &pc, &npc, &pccap);
	buf_free(head);
	*head = b;
	*parts = xcalloc(npc + 1, sizeof(**parts));
	for (size_t i = 0; i < npc; i++)
		(*parts)[i] = (struct iovec){(void *)(pc[i].data ? pc[i].data : head->p + pc[i].off), pc[i].len};
	*nparts = npc;
	free(pc);
out:
	buf_free(&longn);
	buf_free(&sc.names);
	free(sc.member);
	free(nameoff);
	free(moff);
	return rc;
}

void archive_free(struct archive *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->m[i].name);
		free(a->m[i].data);
	}
	free(a->m);
	memset(a, 0, sizeof(*a));
}
