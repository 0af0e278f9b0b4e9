/* SPDX-License-Identifier: MIT */
#include "image.h"

#include "buildid.h"
#include "fail.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* n bytes at off of fd, which is size bytes long, into buf. */
static int read_at(int fd, uint64_t size, uint64_t off, void *buf, uint64_t n)
{
	if (off > size || n > size - off)
		return -1;
	for (uint64_t done = 0; done < n;) {
		ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -1;
		}
		done += (uint64_t)r;
	}
	return 0;
}

static void hex(const uint8_t *b, uint32_t n, char *out)
{
	for (uint32_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

#define ADVICE "keep the %s while its profiles are read, or make them self-contained " \
	       "(PROFINST_SELF_CONTAINED=1 when it runs, or profview pack while it exists)"

int image_read_maps(const char *path, const char *what, const uint8_t *want_id, uint32_t want_n, uint8_t **maps,
		    uint64_t *size, char *err, size_t errsz)
{
	*maps = NULL;
	*size = 0;
	if (!want_n || want_n > 64)
		return prof_fail(err, errsz, "bad image record");
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY); /* (a FIFO named by a profile: no wait) */
	if (fd < 0)
		return prof_fail(err, errsz, "its maps are in its %s %s, which cannot be opened (%s): " ADVICE,
			    what, path, strerror(errno), what);
	int rc = -1;
	uint8_t *shdrs = NULL, *names = NULL, *notes = NULL, *buf = NULL;
	struct stat st;
	Elf64_Ehdr eh;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		prof_fail(err, errsz, "its maps are in its %s %s, which is not a regular file: " ADVICE, what, path, what);
		goto out;
	}
	uint64_t fsize = (uint64_t)st.st_size;
	if (read_at(fd, fsize, 0, &eh, sizeof(eh)) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || !eh.e_shnum ||
	    eh.e_shstrndx >= eh.e_shnum) {
		prof_fail(err, errsz, "its maps are in its %s %s, which is not a 64-bit ELF file with sections: " ADVICE,
		     what, path, what);
		goto out;
	}
	shdrs = malloc((size_t)eh.e_shnum * sizeof(Elf64_Shdr));
	if (!shdrs || read_at(fd, fsize, eh.e_shoff, shdrs, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr))) {
		prof_fail(err, errsz, "%s: section headers out of the file", path);
		goto out;
	}
	Elf64_Shdr ss;
	memcpy(&ss, shdrs + (size_t)eh.e_shstrndx * sizeof(Elf64_Shdr), sizeof(ss));
	names = malloc(ss.sh_size + 1);
	if (!names || read_at(fd, fsize, ss.sh_offset, names, ss.sh_size)) {
		prof_fail(err, errsz, "%s: section names out of the file", path);
		goto out;
	}
	names[ss.sh_size] = 0;
	uint8_t id[64];
	uint32_t idn = 0;
	Elf64_Shdr map = {0};
	int have_map = 0;
	for (uint32_t i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr s;
		memcpy(&s, shdrs + (size_t)i * sizeof(Elf64_Shdr), sizeof(s));
		if (s.sh_name >= ss.sh_size)
			continue;
		if (s.sh_type == SHT_PROGBITS && !strcmp((const char *)names + s.sh_name, "profinst_map")) {
			map = s;
			have_map = 1;
		} else if (s.sh_type == SHT_NOTE && !idn && s.sh_size <= (1u << 20)) {
			free(notes);
			notes = malloc(s.sh_size ? s.sh_size : 1);
			if (notes && !read_at(fd, fsize, s.sh_offset, notes, s.sh_size))
				idn = pi_note_build_id(notes, s.sh_size, id, sizeof(id));
		}
	}
	char want[129], got[129];
	hex(want_id, want_n, want);
	if (idn != want_n || memcmp(id, want_id, idn)) {
		hex(id, idn, got);
		prof_fail(err, errsz,
		     "its maps are in the %s that wrote it (build id %s), but %s is another (build id %s): "
		     "it was built again since; run the program again for a new profile",
		     what, want, path, idn ? got : "none");
		goto out;
	}
	if (!have_map) {
		prof_fail(err, errsz, "%s: no profinst_map section (stripped of it?): " ADVICE, path, what);
		goto out;
	}
	buf = malloc(map.sh_size ? map.sh_size : 1);
	if (!buf || read_at(fd, fsize, map.sh_offset, buf, map.sh_size)) {
		prof_fail(err, errsz, "%s: its profinst_map section is out of the file", path);
		goto out;
	}
	*maps = buf;
	*size = map.sh_size;
	buf = NULL;
	rc = 0;
out:
	free(buf);
	free(notes);
	free(names);
	free(shdrs);
	close(fd);
	return rc;
}
