/* SPDX-License-Identifier: MIT */
/*
 * The instrumented images of the process.  The program's objects and
 * function records are its profinst_objs and profinst_funcs sections,
 * which the linker bounds with __start_ and __stop_ symbols; a shared
 * object that profinst instrumented (profinst -shared) has sections of
 * its own, which its constructor hands to the program's runtime when the
 * object is loaded (__profinst_image_add; runtime/image_so.c).  Objects
 * and records are numbered through all images in the order they came,
 * the program's first, so that the profile names each by one index.
 */
#include <sys/syscall.h>

#include "rt.h"
#include "sections.h"

const struct pi_objdesc *rt_objs_begin(void) { return __start_profinst_objs; }
const struct pi_objdesc *rt_objs_end(void) { return __stop_profinst_objs; }
const struct pi_funcrec *rt_funcs_begin(void) { return __start_profinst_funcs; }
const struct pi_funcrec *rt_funcs_end(void) { return __stop_profinst_funcs; }

struct rt_image rt_images[RT_MAX_IMAGES] = {{
	.desc = {.magic = PI_IMAGE_MAGIC,
	      .objs = __start_profinst_objs, .objs_end = __stop_profinst_objs,
	      .funcs = __start_profinst_funcs, .funcs_end = __stop_profinst_funcs,
	      .map = __start_profinst_map, .ehdr = __ehdr_start},
}};
static uint32_t nimages = 1;
static int adding; /* a lock: images come from constructors, dlopen's too */

/* Hold off images coming (a dlopen in another thread) while the profile
 * is written, for a second at most: a thread stopped while it held the
 * lock (in a debugger) does not keep the profile from being written. */
int rt_images_lock(void)
{
	for (int i = 0; i < 100000; i++) {
		if (!__atomic_exchange_n(&adding, 1, __ATOMIC_ACQUIRE))
			return 1;
		rt_sleep_us(10);
	}
	return 0;
}

void rt_images_unlock(void)
{
	__atomic_store_n(&adding, 0, __ATOMIC_RELEASE);
}

uint32_t rt_image_count(void)
{
	return __atomic_load_n(&nimages, __ATOMIC_ACQUIRE);
}

uint64_t rt_nobjs(void)
{
	uint32_t n = rt_image_count();
	const struct rt_image *last = &rt_images[n - 1];
	return last->obj_base + (uint64_t)(last->desc.objs_end - last->desc.objs);
}

uint64_t rt_nfuncs(void)
{
	uint32_t n = rt_image_count();
	const struct rt_image *last = &rt_images[n - 1];
	return last->func_base + (uint64_t)(last->desc.funcs_end - last->desc.funcs);
}

uint64_t rt_func_index_any(const struct pi_funcrec *f)
{
	for (uint32_t i = 0, n = rt_image_count(); i < n; i++)
		if (f >= rt_images[i].desc.funcs && f < rt_images[i].desc.funcs_end)
			return rt_images[i].func_base + (uint64_t)(f - rt_images[i].desc.funcs);
	return rt_nfuncs();
}

const struct pi_map_hdr *rt_first_map(void)
{
	for (uint32_t i = 0, n = rt_image_count(); i < n; i++)
		if (rt_images[i].desc.objs < rt_images[i].desc.objs_end)
			return pi_obj_map(rt_images[i].desc.objs);
	return NULL;
}

/* (the descriptors are not written: their pages stay the file's) */
static const struct pi_objdesc *extra_obj;
static uint32_t extra_index;

uint32_t rt_obj_index_any(const struct pi_objdesc *d)
{
	for (uint32_t i = 0, n = rt_image_count(); i < n; i++)
		if (d >= rt_images[i].desc.objs && d < rt_images[i].desc.objs_end)
			return rt_images[i].obj_base + (uint32_t)(d - rt_images[i].desc.objs);
	return d == __atomic_load_n(&extra_obj, __ATOMIC_ACQUIRE) ? extra_index : UINT32_MAX;
}

void rt_obj_index_set(const struct pi_objdesc *d, uint32_t index)
{
	extra_index = index;
	__atomic_store_n(&extra_obj, d, __ATOMIC_RELEASE);
}

static void say(const char *msg, uint64_t n)
{
	rt_syscall6(SYS_write, 2, (long)msg, (long)n, 0, 0, 0);
}

/* Exported: what an instrumented shared object's constructor calls. */
__attribute__((visibility("default"))) void __profinst_image_add(const struct pi_image_desc *d)
{
	if (!d || d->magic != PI_IMAGE_MAGIC || (d->objs < d->objs_end && d->objs->magic != PI_OBJDESC_MAGIC)) {
		static const char msg[] = "profinst: a shared object instrumented by another version of profinst "
					  "was loaded: its functions are not in the profile\n";
		say(msg, sizeof(msg) - 1);
		return;
	}
	int locked = rt_images_lock();
	uint32_t n = nimages;
	if (n == RT_MAX_IMAGES) {
		if (locked)
			rt_images_unlock();
		static const char msg[] = "profinst: too many instrumented shared objects: "
					  "those loaded after the 255th are not in the profile\n";
		say(msg, sizeof(msg) - 1);
		return;
	}
	struct rt_image *im = &rt_images[n], *last = &rt_images[n - 1];
	im->desc = *d;
	im->obj_base = last->obj_base + (uint32_t)(last->desc.objs_end - last->desc.objs);
	im->func_base = last->func_base + (uint64_t)(last->desc.funcs_end - last->desc.funcs);
	__atomic_store_n(&nimages, n + 1, __ATOMIC_RELEASE);
	if (rt_initialized()) {
		/* loaded after the start (dlopen): what the runtime made
		 * of the images at its start takes this one in */
		rt_entries_add();
		rt_externals_add(im);
		rt_counting_add(im);
	}
	if (locked)
		rt_images_unlock();
}

int rt_secondary;

#ifdef PI_PIC_RUNTIME
#include <dlfcn.h>

/* (this object's own, where a reference by name finds the program's) */
extern void rt_image_add_here(const struct pi_image_desc *d)
	__attribute__((alias("__profinst_image_add"), visibility("hidden")));

/* Whether the program has a runtime of its own (profinst instrumented
 * it): its exports come first, and every instrumented shared object's
 * references went to them, not here. */
bool rt_program_has_runtime(void)
{
	void *first = dlsym(RTLD_DEFAULT, "__profinst_image_add");
	return first && first != (void *)rt_image_add_here;
}
#endif
