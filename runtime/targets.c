/* SPDX-License-Identifier: MIT */
/*
 * Calls through a pointer out of instrumented code: a shared library's
 * function whose address the program took (p = strlen; p(s)), code made at
 * run time (a JIT's), a function left as it was.  The indirect-call stub
 * (stub_abi.h) calls a target that begins as an instrumented entry at once;
 * any other goes through __profinst_icall, which gives each distinct target
 * a record of its own (rt_targets) and returns that record's thunk: the
 * call then goes through __profinst_icall_tramp (stubs.S), which times it
 * as an external call under its caller, as the stubs around a direct call
 * of a shared library's function do.
 *
 * The records live in profinst_funcs with the objects' own, so that every
 * per-function table the runtime keeps (fn_active) covers them.  They are
 * named when the profile is written: by the executable's GOT and PLT (the
 * name the program linked against: strlen, not the C library's
 * __strlen_avx2 it resolved to), else by the symbol tables of the file
 * mapped where the target is, else as file+offset; a target in no
 * file-backed mapping is <unknown>.  Compiled with -mgeneral-regs-only; no
 * libc: raw system calls only, so that a profile written from a signal
 * handler can name them too.
 */
#include <elf.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "rt.h"
#include "writer.h"


/* One record per distinct target, the target in addr[1] (0: free; the
 * address itself: these records are the runtime's). */
struct pi_funcrec rt_targets[RT_TARGETS]
	__attribute__((section("profinst_funcs"), aligned(8), used, visibility("hidden")));
/* the thunk of record i: rt_target_thunks + 16 * i (stubs.S) */
extern const char rt_target_thunks[] __attribute__((visibility("hidden")));
extern const char rt_target_tail_thunks[] __attribute__((visibility("hidden")));
/* calls not timed for want of a record (PI_LOSS_TARGETS) */
static uint64_t lost;

/* The record of target, made on its first call (lock-free: threads and
 * signal handlers may race to make it); NULL when the table is full. */
static struct pi_funcrec *target_rec(uint64_t target)
{
	uint64_t i = (target * 0x9e3779b97f4a7c15ull) >> (64 - RT_TARGETS_BITS);
	for (uint64_t n = 0; n < RT_TARGETS; n++, i = (i + 1) & (RT_TARGETS - 1)) {
		uint64_t *key = (uint64_t *)&rt_targets[i].addr[1];
		uint64_t v = __atomic_load_n(key, __ATOMIC_ACQUIRE);
		if (v == target)
			return &rt_targets[i];
		if (!v && __atomic_compare_exchange_n(key, &v, target, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return &rt_targets[i];
		if (v == target)
			return &rt_targets[i];
	}
	return NULL;
}

/* What the indirect-call stub calls instead of target (stub_abi.h): the
 * target itself where it is instrumented after all or the call cannot be
 * recorded, else its record's thunk. */
uint64_t pi_rt_icall(uint64_t target)
{
	struct pi_tls *t = &__profinst_tls;
	if (rt_is_entry(target))
		return target; /* its own stubs count it */
	if (t->busy || (t->dead & RT_HALTED)) {
		t->skipped++;
		return target;
	}
	struct pi_funcrec *r = target_rec(target);
	if (!r) {
		__atomic_fetch_add(&lost, 1, __ATOMIC_RELAXED);
		return target;
	}
	return (uint64_t)rt_target_thunks + 16 * (uint64_t)(r - rt_targets);
}

uint64_t rt_target_tail_thunk(uint64_t target)
{
	struct pi_funcrec *r = target_rec(target);
	if (!r) {
		__atomic_fetch_add(&lost, 1, __ATOMIC_RELAXED);
		return 0;
	}
	return (uint64_t)rt_target_tail_thunks + 16 * (uint64_t)(r - rt_targets);
}

static int charge = -1; /* the model charges time outside instrumented code */

bool rt_target_charged(void)
{
	if (charge < 0) {
		int c = 0;
		RT_EACH_OBJ(d)
			c |= (d->map_flags & PI_MAP_CHARGE_OS) != 0;
		charge = c;
	}
	return charge;
}

struct pi_funcrec *rt_target_record(uint64_t target)
{
	struct pi_funcrec *r = target_rec(target);
	if (!r)
		__atomic_fetch_add(&lost, 1, __ATOMIC_RELAXED);
	return r;
}

/* The thunk's call begins (__profinst_icall_tramp): sp is the target's %rsp
 * at its entry, ra the return address of the program's call.  An external
 * frame, as pi_rt_ext_enter pushes for a direct call, closed by
 * __profinst_ext_exit. */
void pi_rt_icall_enter(const struct pi_funcrec *rec, uint64_t sp, uint64_t ra)
{
	struct pi_tls *t = &__profinst_tls;
	if (!rt_enter(t)) {
		t->skipped++;
		return;
	}
	rt_clock_fold(t);
	struct rt_thread *th = rt_thread_for_call(t);
	if (!th)
		goto out;
	rt_target_charged();
	t->clock += rt_faults_take(t); /* the caller's, before the call */
	uint64_t now = rt_unwind_to(th, sp, t->clock);
	struct rt_frame *f = rt_push(th, rec, sp, ra, now);
	if (f) {
		f->ext = RT_EXT_ON | (charge ? RT_EXT_CHARGE : 0);
		f->ext_ticks = 0;
		rt_ext_clock_run(t, f);
	}
out:
	rt_leave(t);
}

/* ----- Naming the targets, when the profile is written */

static long sys(long nr, long a, long b, long c)
{
	return rt_syscall6(nr, a, b, c, 0, 0, 0);
}

static size_t slen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

static int scmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (uint8_t)*a - (uint8_t)*b;
}

static int seq(const char *a, const char *b)
{
	return !scmp(a, b);
}

/* What is known of a target: where it is mapped, and its name. */
struct tinfo {
	uint64_t start, end, off; /* its mapping, and the file offset of start */
	int file;                 /* the mapping is a file's */
	char path[256];
	char name[192];
	uint32_t obj, func;
};

static void put_hex(char *out, size_t n, uint64_t v)
{
	char tmp[17];
	int k = 0;
	do {
		tmp[k++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	size_t o = slen(out);
	if (o + 2 + (size_t)k + 1 > n)
		return;
	out[o++] = '0', out[o++] = 'x';
	while (k)
		out[o++] = tmp[--k];
	out[o] = 0;
}

static void copy(char *out, size_t n, const char *s)
{
	size_t i = 0;
	for (; s[i] && i + 1 < n; i++)
		out[i] = s[i];
	out[i] = 0;
}

static uint64_t hexval(const char **p)
{
	uint64_t v = 0;
	for (;; (*p)++) {
		char c = **p;
		if (c >= '0' && c <= '9')
			v = v * 16 + (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (uint64_t)(c - 'a' + 10);
		else
			return v;
	}
}

/* Where each target is mapped, from /proc/self/maps. */
static void find_mappings(struct tinfo *ti, const uint64_t *addr, uint32_t n)
{
	uint64_t cap = 8 << 20;
	char *buf = rt_mmap(cap);
	if (!buf)
		return;
	long fd = sys(SYS_openat, AT_FDCWD, (long)"/proc/self/maps", O_RDONLY | O_CLOEXEC);
	uint64_t len = 0;
	if (fd >= 0) {
		long r;
		while (len + 1 < cap && (r = sys(SYS_read, fd, (long)(buf + len), (long)(cap - 1 - len))) > 0)
			len += (uint64_t)r;
		sys(SYS_close, fd, 0, 0);
	}
	buf[len] = 0;
	for (const char *p = buf; *p;) {
		const char *line = p;
		while (*p && *p != '\n')
			p++;
		const char *q = line;
		uint64_t start = hexval(&q);
		q++;
		uint64_t end = hexval(&q);
		while (*q == ' ')
			q++;
		q += 5; /* perms */
		while (*q == ' ')
			q++;
		uint64_t off = hexval(&q);
		for (int field = 0; field < 2; field++) { /* dev, inode */
			while (*q == ' ')
				q++;
			while (*q != ' ' && q < p)
				q++;
		}
		while (*q == ' ' && q < p)
			q++;
		for (uint32_t i = 0; i < n; i++) {
			if (addr[i] < start || addr[i] >= end)
				continue;
			ti[i].start = start, ti[i].end = end, ti[i].off = off;
			ti[i].file = *q == '/';
			size_t k = 0;
			for (; q + k < p && k + 1 < sizeof(ti[i].path); k++)
				ti[i].path[k] = q[k];
			ti[i].path[k] = 0;
		}
		if (*p)
			p++;
	}
	rt_munmap(buf, cap);
}

/* The executable's dynamic symbol whose GOT slot (or whose PLT entry's
 * slot) holds addr: the name the program called. */
static const char *got_name(uint64_t addr, uint64_t target_is_plt_slot)
{
	/* the executable's headers, mapped with its first segment */
	extern const Elf64_Ehdr __ehdr_start __attribute__((weak, visibility("hidden")));
	const Elf64_Ehdr *eh = &__ehdr_start;
	if (!eh)
		return NULL;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)((const char *)eh + eh->e_phoff);
	uint64_t base = 0;
	const Elf64_Dyn *dyn = NULL;
	for (uint32_t i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0) {
			base = (uint64_t)eh - ph[i].p_vaddr;
			break;
		}
	for (uint32_t i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = (const Elf64_Dyn *)(base + ph[i].p_vaddr);
	if (!dyn)
		return NULL;
	uint64_t symtab = 0, strtab = 0, rela = 0, relasz = 0, jmprel = 0, pltrelsz = 0;
	for (const Elf64_Dyn *d = dyn; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB: symtab = d->d_un.d_ptr; break;
		case DT_STRTAB: strtab = d->d_un.d_ptr; break;
		case DT_RELA: rela = d->d_un.d_ptr; break;
		case DT_RELASZ: relasz = d->d_un.d_val; break;
		case DT_JMPREL: jmprel = d->d_un.d_ptr; break;
		case DT_PLTRELSZ: pltrelsz = d->d_un.d_val; break;
		}
	}
	/* the C library's loader relocates these in place; another may not */
	if (symtab && symtab < base)
		symtab += base, strtab += base, rela += rela ? base : 0, jmprel += jmprel ? base : 0;
	if (!symtab || !strtab)
		return NULL;
	const Elf64_Sym *sym = (const Elf64_Sym *)symtab;
	const uint64_t tabs[2][2] = {{rela, relasz}, {jmprel, pltrelsz}};
	for (int t = 0; t < 2; t++) {
		const Elf64_Rela *r = (const Elf64_Rela *)tabs[t][0];
		for (uint64_t i = 0; r && i < tabs[t][1] / sizeof(*r); i++) {
			uint32_t type = ELF64_R_TYPE(r[i].r_info), si = ELF64_R_SYM(r[i].r_info);
			if (!si || (type != R_X86_64_GLOB_DAT && type != R_X86_64_JUMP_SLOT && type != R_X86_64_64))
				continue;
			uint64_t slot = base + r[i].r_offset;
			if (target_is_plt_slot ? slot == addr : *(const uint64_t *)slot == addr)
				return (const char *)strtab + sym[si].st_name;
		}
	}
	return NULL;
}

/* A PLT entry ([endbr64] [bnd] jmp *slot(%rip)): its slot, or 0. */
static uint64_t plt_slot(uint64_t addr)
{
	const uint8_t *p = (const uint8_t *)addr;
	if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		p += 4;
	if (p[0] == 0xf2)
		p++;
	if (p[0] != 0xff || p[1] != 0x25)
		return 0;
	int32_t disp;
	__builtin_memcpy(&disp, p + 2, 4);
	return (uint64_t)(p + 6) + (uint64_t)(int64_t)disp;
}

/* The symbol of path's symbol tables (.symtab, else .dynsym) that holds
 * the file offset foff, into out. */
static int file_name(const char *path, uint64_t foff, char *out, size_t n)
{
	long fd = sys(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	long size = sys(SYS_lseek, fd, 0, 2 /* SEEK_END */);
	int found = 0;
	const uint8_t *f = size > (long)sizeof(Elf64_Ehdr)
				   ? (const uint8_t *)rt_syscall6(SYS_mmap, 0, size, PROT_READ, MAP_PRIVATE, fd, 0)
				   : (const uint8_t *)-1;
	sys(SYS_close, fd, 0, 0);
	if ((long)f < 0 && (long)f > -4096)
		return 0;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
	uint64_t usize = (uint64_t)size;
	if (__builtin_memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > usize ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > usize)
		goto done;
	/* the file offset as an address of the file's own */
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(f + eh->e_phoff);
	uint64_t vaddr = 0;
	int have = 0;
	for (uint32_t i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && foff >= ph[i].p_offset && foff < ph[i].p_offset + ph[i].p_filesz) {
			vaddr = foff - ph[i].p_offset + ph[i].p_vaddr;
			have = 1;
		}
	if (!have)
		goto done;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(f + eh->e_shoff);
	for (int pass = 0; pass < 2 && !found; pass++) {
		uint32_t want = pass ? SHT_DYNSYM : SHT_SYMTAB;
		for (uint32_t i = 0; i < eh->e_shnum && !found; i++) {
			if (sh[i].sh_type != want || sh[i].sh_link >= eh->e_shnum ||
			    sh[i].sh_offset + sh[i].sh_size > usize)
				continue;
			const Elf64_Shdr *ss = &sh[sh[i].sh_link];
			if (ss->sh_offset + ss->sh_size > usize || !ss->sh_size)
				continue;
			const Elf64_Sym *sym = (const Elf64_Sym *)(f + sh[i].sh_offset);
			const char *str = (const char *)(f + ss->sh_offset);
			const Elf64_Sym *best = NULL;
			for (uint64_t k = 0; k < sh[i].sh_size / sizeof(*sym); k++) {
				const Elf64_Sym *s = &sym[k];
				uint32_t type = ELF64_ST_TYPE(s->st_info);
				if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s->st_shndx == SHN_UNDEF ||
				    s->st_name >= ss->sh_size)
					continue;
				if (vaddr < s->st_value || vaddr >= s->st_value + (s->st_size ? s->st_size : 1))
					continue;
				/* a global name before a local alias */
				if (!best || (ELF64_ST_BIND(s->st_info) != STB_LOCAL &&
					      ELF64_ST_BIND(best->st_info) == STB_LOCAL))
					best = s;
			}
			if (best) {
				const char *nm = str + best->st_name;
				size_t room = (size_t)(ss->sh_size - best->st_name);
				size_t i2 = 0;
				for (; i2 + 1 < n && i2 < room && nm[i2]; i2++)
					out[i2] = nm[i2];
				out[i2] = 0;
				if (vaddr != best->st_value) {
					copy(out + slen(out), n - slen(out), "+");
					put_hex(out, n, vaddr - best->st_value);
				}
				found = 1;
			}
		}
	}
done:
	rt_munmap((void *)f, (uint64_t)size);
	return found;
}

static const char *base_name(const char *path)
{
	const char *b = path;
	for (const char *p = path; *p; p++)
		if (*p == '/')
			b = p + 1;
	return b;
}

static void name_target(struct tinfo *ti, uint64_t addr)
{
	if (!ti->end || !ti->file) {
		copy(ti->name, sizeof(ti->name), "<unknown>");
		return;
	}
	const char *g = got_name(addr, 0);
	uint64_t slot = g ? 0 : plt_slot(addr);
	if (!g && slot)
		g = got_name(slot, 1);
	if (g) {
		copy(ti->name, sizeof(ti->name), g);
		return;
	}
	if (file_name(ti->path, addr - ti->start + ti->off, ti->name, sizeof(ti->name)))
		return;
	copy(ti->name, sizeof(ti->name), base_name(ti->path));
	copy(ti->name + slen(ti->name), sizeof(ti->name) - slen(ti->name), "+");
	put_hex(ti->name, sizeof(ti->name), addr - ti->start + ti->off);
}

/* The path of the file mapped at addr, as /proc/self/maps gives it: its
 * length, or 0 if none, or it does not fit out[n] (which it then does
 * not hold). */
size_t rt_mapping_path(uint64_t addr, char *out, size_t n)
{
	struct tinfo ti;
	rt_zero(&ti, sizeof(ti));
	find_mappings(&ti, &addr, 1);
	size_t len = slen(ti.path);
	if (!ti.file || len + 1 >= sizeof(ti.path) || len + 1 > n)
		return 0;
	copy(out, n, ti.path);
	return len;
}

/* The direct externals' record of that name (the one all share), if one. */
static const struct pi_funcrec *external_named(const char *name)
{
	RT_EACH_FUNC(r) {
		if (!rt_is_external(r) || rt_is_target(r) || (rt_ext_shared(r) && rt_ext_shared(r) != r))
			continue;
		const struct pi_map_hdr *m = pi_obj_map(pi_rec_obj(r));
		const struct pi_map_func *fs = (const struct pi_map_func *)((const char *)m + m->funcs_off);
		if (seq((const char *)m + m->str_off + fs[r->index].name, name))
			return r;
	}
	return NULL;
}

static struct pi_objdesc targets_obj;

/*
 * Name the targets and write what the views need: an object whose map
 * holds a function (PI_FUNC_EXTERNAL, no blocks) for each name not called
 * directly too (a name called directly as well is that external's row),
 * numbered index, then the TARGETS record (pi_prof_target[]) and, if the
 * table overflowed, a LOSS record.  Called once every thread is stopped,
 * before the threads' nodes are written (which name the records' object
 * and function as set here).
 */
void rt_targets_write(struct pw *w, uint32_t index)
{
	uint32_t n = 0;
	uint64_t addr[RT_TARGETS];
	uint32_t slot[RT_TARGETS];
	for (uint32_t i = 0; i < RT_TARGETS; i++)
		if (rt_targets[i].addr[1]) {
			addr[n] = rt_targets[i].addr[1];
			slot[n++] = i;
		}
	if (n) {
		uint64_t tisize = (uint64_t)n * sizeof(struct tinfo);
		struct tinfo *ti = rt_mmap(tisize);
		/* the map: header, functions, strings (at most a name and a
		 * path each, and the object's name and the model's) */
		uint64_t msize = sizeof(struct pi_map_hdr) + (uint64_t)n * sizeof(struct pi_map_func) +
				 (uint64_t)n * (sizeof(ti->name) + sizeof(ti->path)) + 512;
		char *map = rt_mmap(msize);
		if (!ti || !map) {
			if (ti)
				rt_munmap(ti, tisize);
			if (map)
				rt_munmap(map, msize);
			return;
		}
		find_mappings(ti, addr, n);
		const struct pi_map_hdr *first = rt_first_map();
		struct pi_map_hdr *h = (struct pi_map_hdr *)map;
		struct pi_map_func *fs = (struct pi_map_func *)(map + sizeof(*h));
		char *str = (char *)(fs + n);
		uint32_t slen_ = 1; /* offset 0: "" */
#define ADDSTR(s) ({ uint32_t at_ = slen_; copy(str + slen_, 256, (s)); slen_ += (uint32_t)slen(s) + 1; at_; })
		h->object = ADDSTR("<called through pointers>");
		h->cpu = ADDSTR(first ? (const char *)first + first->str_off + first->cpu : "");
		uint32_t nf = 0;
		/* functions in the order of their names: the same map in every
		 * run that calls the same ones (profview merge wants that),
		 * wherever the loader put them */
		uint32_t ord[RT_TARGETS];
		for (uint32_t i = 0; i < n; i++) {
			name_target(&ti[i], addr[i]);
			uint32_t j = i;
			for (; j > 0 && scmp(ti[ord[j - 1]].name, ti[i].name) > 0; j--)
				ord[j] = ord[j - 1];
			ord[j] = i;
		}
		for (uint32_t o = 0; o < n; o++) {
			uint32_t i = ord[o];
			struct pi_funcrec *r = &rt_targets[slot[i]];
			const struct pi_funcrec *x = external_named(ti[i].name);
			if (x) {
				r->obj = pi_rel(&r->obj, pi_rec_obj(x));
				r->index = x->index;
				continue;
			}
			uint32_t j = 0;
			while (j < nf && !seq(str + fs[j].name, ti[i].name))
				j++;
			if (j == nf) {
				fs[j].name = ADDSTR(ti[i].name);
				fs[j].section = ADDSTR(ti[i].file ? ti[i].path : "");
				fs[j].flags = PI_FUNC_EXTERNAL;
				nf++;
			}
			r->obj = pi_rel(&r->obj, &targets_obj);
			r->index = j;
		}
#undef ADDSTR
		rt_obj_index_set(&targets_obj, index);
		if (nf) {
			h->magic = PI_MAP_MAGIC;
			h->version = PI_MAP_VERSION;
			h->nfuncs = nf;
			h->funcs_off = sizeof(*h);
			h->str_off = (uint32_t)(sizeof(*h) + nf * sizeof(struct pi_map_func));
			/* the strings follow the functions written */
			char *dst = map + h->str_off;
			for (uint32_t k = 0; k < slen_; k++)
				dst[k] = str[k];
			h->str_size = slen_;
			h->blocks_off = h->sites_off = h->lines_off = h->code_off = h->str_off + ((slen_ + 3) & ~3u);
			h->size = h->blocks_off;
			h->units = first && first->units ? first->units : 1;
			h->reserved = first ? first->reserved & (PI_MAP_CHARGE_OS | PI_MAP_CHARGE_WAITS) : 0;
			uint32_t hdr[2] = {index, 0};
			pw_rec(w, PI_REC_OBJECT, 8 + h->size);
			pw_put(w, hdr, sizeof(hdr));
			pw_put(w, h, h->size);
			pw_pad(w, 8 + h->size);
		}
		pw_rec(w, PI_REC_TARGETS, (uint64_t)n * sizeof(struct pi_prof_target));
		for (uint32_t i = 0; i < n; i++) {
			const struct pi_funcrec *r = &rt_targets[slot[i]];
			struct pi_prof_target pt = {
				.addr = addr[i],
				.map_start = ti[i].start,
				.map_end = ti[i].end,
				.map_offset = ti[i].off,
				.obj = rt_obj_index(pi_rec_obj(r)),
				.func = r->index,
			};
			pw_put(w, &pt, sizeof(pt));
		}
		rt_munmap(ti, tisize);
		rt_munmap(map, msize);
	}
	uint64_t l = __atomic_load_n(&lost, __ATOMIC_RELAXED);
	if (l) {
		struct pi_prof_loss loss = {.kind = PI_LOSS_TARGETS, .thread = UINT32_MAX, .count = l};
		pw_rec(w, PI_REC_LOSS, sizeof(loss));
		pw_put(w, &loss, sizeof(loss));
	}
}
