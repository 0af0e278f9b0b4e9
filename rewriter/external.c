/* SPDX-License-Identifier: MIT */
#include "external.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "format.h"
#include "util.h"

static void nameset_put(char **slot, size_t cap, char *name)
{
	size_t i = str_hash(name) & (cap - 1);
	while (slot[i])
		i = (i + 1) & (cap - 1);
	slot[i] = name;
}

void nameset_add(struct nameset *s, const char *name)
{
	if (nameset_has(s, name))
		return;
	if (2 * (s->n + 1) > s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 256;
		char **n = xcalloc(ncap, sizeof(char *));
		for (size_t i = 0; i < s->cap; i++)
			if (s->slot[i])
				nameset_put(n, ncap, s->slot[i]);
		free(s->slot);
		s->slot = n;
		s->cap = ncap;
	}
	nameset_put(s->slot, s->cap, xstrdup(name));
	s->n++;
}

bool nameset_has(const struct nameset *s, const char *name)
{
	if (!s || !s->cap)
		return false;
	for (size_t i = str_hash(name) & (s->cap - 1); s->slot[i]; i = (i + 1) & (s->cap - 1))
		if (!strcmp(s->slot[i], name))
			return true;
	return false;
}

void nameset_free(struct nameset *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->slot[i]);
	free(s->slot);
	memset(s, 0, sizeof(*s));
}

/* Calls that block: on the outside world (a terminal, a peer, a timer, a
 * child process) or on other threads (a lock, a condition, a barrier, a
 * semaphore, a join).  Their time is measured and left out unless
 * --charge-waits: it is not the program's work, and it would not be the
 * same from run to run.  A lock is a wait whether or not it blocks: taken
 * without contention it costs a few cycles, left out as well. */
static bool waits(const char *n)
{
	static const char *names[] = {
		"sleep", "usleep", "nanosleep", "clock_nanosleep", "thrd_sleep", "poll", "ppoll", "select",
		"pselect", "epoll_wait", "epoll_pwait", "epoll_pwait2", "pause", "sigsuspend",
		"sigwait", "sigwaitinfo", "sigtimedwait", "wait", "waitpid", "wait3", "wait4",
		"waitid", "pthread_join", "pthread_timedjoin_np", "pthread_clockjoin_np", "thrd_join",
		"pthread_cond_wait", "pthread_cond_timedwait", "pthread_cond_clockwait", "cnd_wait",
		"cnd_timedwait", "pthread_mutex_lock", "pthread_mutex_timedlock", "pthread_mutex_clocklock",
		"mtx_lock", "mtx_timedlock", "pthread_rwlock_rdlock", "pthread_rwlock_wrlock",
		"pthread_rwlock_timedrdlock", "pthread_rwlock_timedwrlock", "pthread_rwlock_clockrdlock",
		"pthread_rwlock_clockwrlock", "pthread_barrier_wait", "sem_wait", "sem_timedwait",
		"sem_clockwait", "flock", "accept", "accept4", "connect", "msgrcv", "semop", "semtimedop",
		"system", NULL};
	for (const char **p = names; *p; p++)
		if (!strcmp(n, *p))
			return true;
	return false;
}

/* A call whose cost is the model's on a condition its site checks: a
 * mutex's lock or unlock, which cannot wait while the process has one
 * thread and the mutex is its own (PI_EXT_SOLO), a read-write lock's
 * likewise (PI_EXT_SOLO_RW: no other thread can hold it, and the one
 * thread's own hold makes the call fail, EDEADLK, or never return);
 * pthread_once once its initializer has run (PI_EXT_ONCE); or 0 */
static uint32_t solo(const char *n)
{
	if (!strcmp(n, "pthread_mutex_lock") || !strcmp(n, "pthread_mutex_unlock"))
		return PI_EXT_SOLO;
	if (!strcmp(n, "pthread_rwlock_rdlock") || !strcmp(n, "pthread_rwlock_wrlock") ||
	    !strcmp(n, "pthread_rwlock_unlock"))
		return PI_EXT_SOLO | PI_EXT_SOLO_RW;
	return !strcmp(n, "pthread_once") ? PI_EXT_ONCE : 0;
}

/* Reads wait when what they read is a pipe, a socket or a terminal that
 * blocks (the runtime looks at the descriptor: PI_EXT_TTYREAD); where the
 * descriptor is (PI_READ_*), or 0 for a call that is not a read. */
static uint32_t reads(const char *n)
{
	static const struct {
		const char *name;
		uint32_t at;
	} r[] = {{"read", PI_READ_FD}, {"readv", PI_READ_FD}, {"__read_chk", PI_READ_FD},
		 {"recv", PI_READ_FD}, {"recvfrom", PI_READ_FD}, {"recvmsg", PI_READ_FD},
		 {"recvmmsg", PI_READ_FD}, {"fgetc", PI_READ_FILE1}, {"getc", PI_READ_FILE1},
		 {"_IO_getc", PI_READ_FILE1}, {"fgets", PI_READ_FILE3}, {"__fgets_chk", PI_READ_FILE4},
		 {"fread", PI_READ_FILE4}, {"__fread_chk", PI_READ_FILE4}, {"getline", PI_READ_FILE3},
		 {"getdelim", PI_READ_FILE4}, {"__getdelim", PI_READ_FILE4}, {"fscanf", PI_READ_FILE1},
		 {"__isoc99_fscanf", PI_READ_FILE1}, {"getchar", PI_READ_STDIN}, {"scanf", PI_READ_STDIN},
		 {"__isoc99_scanf", PI_READ_STDIN}};
	for (size_t i = 0; i < sizeof(r) / sizeof(*r); i++)
		if (!strcmp(n, r[i].name))
			return r[i].at;
	return 0;
}

/* Calls that must stay as they are: the linker rewrites TLS sequences by
 * their exact bytes, thunks take their target in %r11, and the runtime's
 * own helpers are not external. */
static bool never_wrapped(const char *n)
{
	return !strcmp(n, "__tls_get_addr") || !strncmp(n, "__profinst", 10) ||
	       !strncmp(n, "__x86_indirect_thunk", 20) || !strncmp(n, "__x86_return_thunk", 18) ||
	       !strcmp(n, "__morestack") || !strcmp(n, "__fentry__") || !strcmp(n, "mcount") ||
	       returns_twice(n) || ends_image(n);
}

static uint32_t ext_index(struct code *c, const char *name)
{
	for (size_t i = 0; i < c->nexts; i++)
		if (!strcmp(c->exts[i].name, name))
			return (uint32_t)i;
	struct external *x = VEC_PUSH(c->exts, c->nexts, c->extcap);
	memset(x, 0, sizeof(*x));
	x->name = xstrdup(name);
	bool w = waits(name);
	uint32_t rd = reads(name);
	x->flags = (c->model->charges_os ? PI_EXT_CHARGE : 0) | (w ? PI_EXT_WAIT : 0) |
		   (rd ? PI_EXT_TTYREAD : 0) |
		   (c->opts->charge_waits ? PI_EXT_CHARGE_WAITS : 0) |
		   (c->opts->defined ? 0 : PI_EXT_CHECK) |
		   (!strcmp(name, "swapcontext") ? PI_EXT_SWITCH : 0) |
		   (!strcmp(name, "setcontext") ? PI_EXT_SETCTX : 0) |
		   (!strcmp(name, "setlocale") || !strcmp(name, "uselocale") ? PI_EXT_LOCALE : 0);
	/* a short C library function the model costs, where it does: no clock
	 * (nor its cost) on each call, and the same cost every run; a lock
	 * that cannot wait where the process has one thread (PI_EXT_SOLO) */
	uint32_t so = solo(name);
	if (c->model->charges_os && (!w || so) && !rd && model_ext_cost(c->model, name, &x->cost))
		x->flags |= PI_EXT_FIXED | x->cost.heap << PI_EXT_HEAP_SHIFT |
			    (x->cost.c_locale ? PI_EXT_C_LOCALE : 0) | so;
	else if (rd)
		x->cost.arg = rd; /* (size[3]: where its descriptor is) */
	else if (x->flags & PI_EXT_LOCALE)
		x->cost.arg = !strcmp(name, "uselocale") ? 1 : 2; /* (size[3]: its locale argument) */
	/* a shared object's call outside it may go to a function the
	 * program or another shared object instruments, and the program's
	 * to one of an instrumented shared object's: the runtime looks
	 * (by name, at its first call in a context) */
	if ((c->opts->pic && !(x->flags & PI_EXT_FIXED)) || (c->opts->shared && nameset_has(c->opts->shared, name)))
		x->flags |= PI_EXT_CHECK;
	x->map_index = (uint32_t)(c->nfuncs + c->nexts - 1);
	return (uint32_t)(c->nexts - 1);
}

bool ext_transparent(const struct external *x)
{
	return (x->flags & PI_EXT_FIXED) &&
	       !(x->flags & (PI_EXT_C_LOCALE | PI_EXT_CHECK | PI_EXT_SWITCH | PI_EXT_SETCTX | PI_EXT_LOCALE |
			     PI_EXT_SOLO | PI_EXT_SOLO_RW | PI_EXT_ONCE));
}

bool ext_measured(const struct external *x)
{
	return !(x->flags & PI_EXT_FIXED) || (x->flags & (PI_EXT_C_LOCALE | PI_EXT_SOLO | PI_EXT_ONCE));
}

/* The name a call k leaves instrumented code for, or NULL. */
static const char *called_external(const struct code *c, const struct text *t, uint32_t k)
{
	const struct insn *in = &t->insns[k];
	const struct rela *r = NULL;
	bool tail = (in->kind == INSN_JMP || in->kind == INSN_JMP_IND) && (t->mark[k] & MARK_TAIL);
	if (in->kind == INSN_CALL || (tail && in->kind == INSN_JMP))
		r = reloc_find(c->o, t->sec, in->off + in->rel_off);
	else if ((in->kind == INSN_CALL_IND || (tail && in->kind == INSN_JMP_IND)) && in->rip_rel &&
		 !in->ind_reg && in->modrm_off) {
		/* call *foo@GOTPCREL(%rip), as -fno-plt makes it */
		r = reloc_find(c->o, t->sec, in->off + in->disp_off);
		if (r && r->type != R_X86_64_GOTPCRELX && r->type != R_X86_64_GOTPCREL &&
		    r->type != R_X86_64_REX_GOTPCRELX)
			r = NULL;
	}
	if (!r || r->sym >= c->o->nsyms)
		return NULL;
	const struct symbol *s = &c->o->syms[r->sym];
	if (!s->name || !*s->name || never_wrapped(s->name))
		return NULL;
	if (s->shndx == SHN_UNDEF) {
		if (ELF64_ST_TYPE(s->info) == STT_TLS)
			return NULL;
		return nameset_has(c->opts->defined, s->name) && !nameset_has(c->opts->left, s->name) ? NULL
											  : s->name;
	}
	/* a function of this object left as it was */
	int32_t fi = c->func_of_sym ? c->func_of_sym[r->sym] : -1;
	if (fi >= 0 && !c->funcs[fi].instrument)
		return c->funcs[fi].name;
	return NULL;
}

/* Where in this object's code a direct call or jump k goes (a section
 * symbol's relocation may name another text section: a call from
 * .text.startup to a static function of .text): its text and offset. */
static const struct text *branch_place(const struct code *c, const struct text *t, uint32_t k,
				       const struct rela *r, uint64_t *off)
{
	const struct insn *in = &t->insns[k];
	const struct text *tt = t;
	int tsec;
	if (!r)
		*off = in->target;
	else if (r->sym >= c->o->nsyms || !code_rel_target(c, t->sec, r, in->off + in->len, &tsec, off) ||
		 !is_text(c, tsec))
		return NULL;
	else
		tt = &c->texts[text_index(c, tsec)];
	return *off < c->o->secs[tt->sec].size && tt->at[*off] != NO_INSN ? tt : NULL;
}

/* The function of this object a direct call goes to, or -1; only where
 * it goes to the function's start if at_entry. */
static int32_t callee_of(const struct code *c, const struct text *t, uint32_t k, bool at_entry)
{
	const struct insn *in = &t->insns[k];
	const struct rela *r = reloc_find(c->o, t->sec, in->off + in->rel_off);
	if (r && r->sym < c->o->nsyms && ELF64_ST_TYPE(c->o->syms[r->sym].info) != STT_SECTION) {
		if (at_entry && r->addend != -4)
			return -1;
		return c->o->syms[r->sym].shndx != SHN_UNDEF && c->func_of_sym ? c->func_of_sym[r->sym] : -1;
	}
	uint64_t off;
	const struct text *tt = branch_place(c, t, k, r, &off);
	return tt && (!at_entry || (tt->mark[tt->at[off]] & MARK_FSTART)) ? tt->fn[tt->at[off]] : -1;
}

int32_t local_callee(const struct code *c, const struct text *t, uint32_t k)
{
	return callee_of(c, t, k, false);
}

int32_t local_entry_callee(const struct code *c, const struct text *t, uint32_t k)
{
	return callee_of(c, t, k, true);
}

bool calls_instrumented(const struct code *c, const struct text *t, uint32_t k)
{
	const struct insn *in = &t->insns[k];
	if (in->kind != INSN_CALL && in->kind != INSN_JMP && in->kind != INSN_JCC)
		return false;
	if (t->mark[k] & (MARK_EXT | MARK_NOCOST))
		return false;
	const struct rela *r = reloc_find(c->o, t->sec, in->off + in->rel_off);
	if (r && r->sym >= c->o->nsyms)
		return false;
	const struct symbol *s = r ? &c->o->syms[r->sym] : NULL;
	if (!r || ELF64_ST_TYPE(s->info) == STT_SECTION) {
		uint64_t off;
		const struct text *tt = branch_place(c, t, k, r, &off);
		int32_t fi = tt ? tt->fn[tt->at[off]] : -1;
		return fi >= 0 && c->funcs[fi].instrument;
	}
	if (!s->name || !*s->name || never_wrapped(s->name) || ELF64_ST_TYPE(s->info) == STT_TLS)
		return false;
	if (s->shndx == SHN_UNDEF)
		return true; /* another input defines it (else it would be external) */
	int32_t fi = c->func_of_sym ? c->func_of_sym[r->sym] : -1;
	return fi >= 0 && c->funcs[fi].instrument;
}

void find_external_calls(struct code *c)
{
	for (int ti = 0; ti < c->ntexts; ti++) {
		struct text *t = &c->texts[ti];
		for (uint32_t k = 0; k < t->ninsns; k++) {
			if (t->fn[k] < 0 || !c->funcs[t->fn[k]].instrument)
				continue;
			const struct insn *in = &t->insns[k];
			if (in->kind == INSN_SYSCALL) {
				t->mark[k] |= MARK_EXT;
				continue;
			}
			if (in->kind != INSN_CALL && in->kind != INSN_CALL_IND && in->kind != INSN_JMP &&
			    in->kind != INSN_JMP_IND)
				continue;
			const char *name = called_external(c, t, k);
			if (!name)
				continue;
			t->mark[k] |= MARK_EXT;
			if (!t->ext)
				t->ext = xcalloc(t->ninsns + 1, sizeof(*t->ext));
			t->ext[k] = ext_index(c, name);
		}
	}
}

bool tests_external_result(const struct code *c, const struct text *t, uint32_t k)
{
	const struct block *b = &c->blocks[t->block[k]];
	uint32_t call = b->first - 1;
	if (b->first == 0 || !(t->mark[call] & MARK_EXT) || !t->ext || t->fn[call] != t->fn[k])
		return false;
	const struct insn *ci = &t->insns[call];
	if ((ci->kind != INSN_CALL && ci->kind != INSN_CALL_IND) ||
	    !(c->exts[t->ext[call]].flags & PI_EXT_FIXED))
		return false;
	/* which registers hold something computed from %rax as returned */
	uint64_t from_result = 1ull << REGN_GPR; /* %rax */
	for (uint32_t i = b->first; i < k; i++) {
		const struct insn_detail *d = code_detail(c, &t->insns[i]);
		/* (a zeroing idiom reads nothing, as insn_describe says) */
		bool dep = (d->rd | d->addr | d->merge) & from_result;
		if (dep)
			from_result |= d->wr;
		else
			from_result &= ~d->wr;
	}
	return (from_result >> REGN_FLAGS) & 1;
}
