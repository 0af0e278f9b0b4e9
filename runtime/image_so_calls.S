/* SPDX-License-Identifier: MIT */
/*
 * Linked into each shared object profinst instruments (-shared,
 * libprofinst_so.a): where its stubs call the runtime's helpers.  Each
 * NAME.so jumps through the object's GOT to the NAME that the program's
 * runtime exports (or the shared runtime's).  A GOT entry is filled when
 * the object is loaded, as a PLT's is not under lazy binding, whose
 * resolver takes %r11 and the flags the stubs keep: so the object's own
 * calls through its PLT stay lazy, as a native object's are.
 */
.irp name, __profinst_enter, __profinst_enter_flags, __profinst_exit, __profinst_tailexit, __profinst_rep, \
	__profinst_resync, __profinst_flush, __profinst_branch, __profinst_load, __profinst_ext_enter, \
	__profinst_ext_exit, __profinst_ext_exit_fixed, __profinst_sys_enter, __profinst_sys_exit, \
	__profinst_icall, __profinst_centry, __profinst_cextnew, __profinst_cptr, __profinst_cptr_tail, \
	__profinst_centry_flags, __profinst_pentry, __profinst_cresync, __profinst_cmeas_start, \
	__profinst_cmeas_stop, __profinst_cpark, __profinst_cunpark, __profinst_cframe
	.text
	.globl \name\().so
	.hidden \name\().so
	.type \name\().so, @function
\name\().so:
	jmp *\name@GOTPCREL(%rip)
	.size \name\().so, .-\name\().so
.endr
	.section .note.GNU-stack, "", @progbits
