/* SPDX-License-Identifier: MIT */
/*
 * The GNU build id among ELF notes: read by the runtime from its own image
 * (a PT_NOTE segment, to name the executable in a profile) and by
 * libprof/image.c from the executable's file (an SHT_NOTE section, to
 * check it is that one).  No allocation: the runtime links it.
 */
#ifndef PI_BUILDID_H
#define PI_BUILDID_H

#include <elf.h>
#include <stdint.h>
#include <string.h>

/* The build id in the n bytes of notes at notes (any alignment), into
 * id[cap]: its size, or 0 if there is none that fits. */
static inline uint32_t pi_note_build_id(const uint8_t *notes, uint64_t n, uint8_t *id, uint32_t cap)
{
	uint64_t off = 0;
	while (n - off >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr h;
		memcpy(&h, notes + off, sizeof(h));
		uint64_t name = off + sizeof(h), desc = name + (((uint64_t)h.n_namesz + 3) & ~3ull);
		uint64_t next = desc + (((uint64_t)h.n_descsz + 3) & ~3ull);
		if (next > n)
			return 0;
		if (h.n_type == NT_GNU_BUILD_ID && h.n_namesz == 4 && !memcmp(notes + name, "GNU", 4) &&
		    h.n_descsz && h.n_descsz <= cap) {
			memcpy(id, notes + desc, h.n_descsz);
			return h.n_descsz;
		}
		off = next;
	}
	return 0;
}

#endif
