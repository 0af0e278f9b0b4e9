/* SPDX-License-Identifier: MIT */
/*
 * The front end's bubbles at calls and returns (pi_objdesc.call_bubble,
 * ret_bubble, fe_window), where the model leaves them to the runtime.
 *
 * A core's branch predictor runs ahead of fetch: a call, and the return
 * that comes back, cost it a few cycles each (Zen 5: 2, bench/probes/
 * callret.c), but fetch, which the block costs account for, goes on with
 * what was predicted before.  So the cost of a stretch of code is about the
 * larger of its fetch work and its predictor work, not the sum of each
 * block's larger one.  The thread keeps when the predictor is done
 * (fe_pred, in clock units): a bubble starts when the predictor is free,
 * but no earlier than fe_window before the clock (how far it may run
 * ahead), and the clock waits for its end:
 *     pred = max(pred, clock - window) + bubble;  clock = max(clock, pred)
 * The entry helper charges a call's bubble before the callee's frame opens
 * (the caller's time, as a block ending in a call was); the exit helper a
 * return's after the frame closes (the caller's, where the front end
 * resumes).  But a function that called others keeps both, as perf finds
 * (docs/DESIGN.md): the exit helper charges its return's before the frame
 * closes and moves the frame's entry back by what the call's bubble charged
 * (rt_frame.fe_call).  stubs.S has the same in its fast paths (FE_EVENT).
 */
#include "rt.h"

uint64_t rt_fe_call __attribute__((visibility("hidden")));
uint64_t rt_fe_ret __attribute__((visibility("hidden")));
uint64_t rt_fe_window __attribute__((visibility("hidden")));

void rt_frontend_init(void)
{
	/* one model in a program: the first object that has bubbles says */
	for (const struct pi_objdesc *d = rt_objs_begin(); d < rt_objs_end(); d++) {
		if (d->call_bubble || d->ret_bubble) {
			rt_fe_call = d->call_bubble;
			rt_fe_ret = d->ret_bubble;
			rt_fe_window = d->fe_window;
			break;
		}
	}
}

/* Time the model did not make (an external call's or a system call's,
 * measured) drains the predictor: it is free again, as it would be after
 * any call of real length.  Whether a bubble after such a call hides
 * behind the one before then never depends on how long the call took, so
 * the modelled cycles stay the same run after run.  stubs.S's external
 * exit helper does the same (EXT_EXIT). */
void rt_fe_free(struct pi_tls *t)
{
	t->fe_pred = t->clock - rt_fe_window;
}

void rt_fe_event(struct pi_tls *t, uint64_t bubble)
{
	if (!bubble)
		return;
	int64_t clock = (int64_t)t->clock, pred = (int64_t)t->fe_pred;
	int64_t early = clock - (int64_t)rt_fe_window;
	pred = (pred > early ? pred : early) + (int64_t)bubble;
	t->fe_pred = (uint64_t)pred;
	if (pred > clock)
		t->clock = (uint64_t)pred;
}
