/* SPDX-License-Identifier: MIT */
/*
 * An in-memory model of one relocatable x86-64 ELF object: sections with
 * their bytes, relocations parsed into arrays, and the symbol table.  The
 * rest of the rewriter works on this model; libelf is used only here, to
 * read it from an image and to write it back.
 */
#ifndef PI_OBJFILE_H
#define PI_OBJFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rela {
	uint64_t off;
	uint32_t type;
	uint32_t sym; /* index into object.syms */
	int64_t addend;
};

struct section {
	char *name;
	uint32_t type;
	uint64_t flags;
	uint64_t addralign;
	uint64_t entsize;
	uint32_t link;
	uint32_t info;
	uint8_t *data; /* NULL for SHT_NOBITS */
	uint64_t size;
	/* SHT_RELA: the relocations (sh_info is the target section). */
	struct rela *relas;
	size_t nrelas, relcap;
	int rela;  /* index of the SHT_RELA section applying to this one, or 0 */
	int group; /* index of the SHT_GROUP section holding this one, or 0 */
	int secsym; /* index of this section's STT_SECTION symbol, or 0 */
};

struct symbol {
	char *name;
	uint64_t value;
	uint64_t size;
	uint8_t info;
	uint8_t other;
	uint32_t shndx;
};

struct object {
	char *name; /* for messages: "file.o" or "lib.a(member.o)" */
	struct section *secs;
	size_t nsecs, seccap;
	struct symbol *syms;
	size_t nsyms, symcap;
	int symtab;
	int shstrndx;
	uint16_t e_machine;
	uint32_t e_flags;
	uint8_t osabi;
};

/* Parse an ELF relocatable image. Returns 0, or -1 after printing one line
 * naming the object and the reason. */
int obj_read(struct object *o, const char *name, const void *image, size_t size);

/* The object as an ELF file, into out (its bytes replaced). Returns 0 or
 * -1 (message printed). */
struct buf;
int obj_write_image(struct object *o, struct buf *out);

void obj_free(struct object *o);

/* Append a section; returns its index. data is copied (may be NULL). */
int obj_add_section(struct object *o, const char *name, uint32_t type,
		    uint64_t flags, uint64_t align, const void *data,
		    uint64_t size);
/* Append a symbol; returns its index. Locals and globals may be mixed: the
 * writer orders them as ELF requires and renumbers relocations. */
int obj_add_symbol(struct object *o, const char *name, uint64_t value,
		   uint64_t size, uint8_t info, uint8_t other, uint32_t shndx);
/* The STT_SECTION symbol of section sec, created if missing. */
int obj_section_symbol(struct object *o, int sec);
/* The RELA section for sec, created if missing. */
int obj_rela_section(struct object *o, int sec);
void obj_add_rela(struct object *o, int sec, uint64_t off, uint32_t type,
		  uint32_t sym, int64_t addend);
/* Put section sec into the COMDAT group section grp. */
void obj_group_add(struct object *o, int grp, int sec);

/* LLVM bitcode (clang -flto's objects), which no ELF reader takes. */
bool obj_is_bitcode(const void *image, size_t size);
/* A slim LTO object: compiler IR only, no machine code to instrument. */
bool obj_is_lto(const struct object *o);
/* Remove a fat LTO object's IR (the .gnu.lto_* sections, and the symbols
 * that mark it as IR): the linker plugin would rebuild the program from it
 * and link that, not the instrumented code. 0, or -1 after a message. */
int obj_drop_lto(struct object *o);
/* Has profinst instrumented it already? what: a section or symbol of its
 * own that says so. */
bool obj_is_instrumented(const struct object *o, const char **what);

/* If path is a shared object that profinst instrumented (it has a
 * profinst_map section), add the functions it defines (its dynamic symbol
 * table's) to each (called with arg) and return 1; 0 if it is another
 * file or shared object; -1 (said) if it cannot be read. */
int obj_shared_functions(const char *path, void (*each)(const char *name, void *arg), void *arg);


#endif
