/* SPDX-License-Identifier: MIT */
#include "unit_obj.h"
#include "util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* argv run to its end: its exit status, or -1 */
static int run(char *const argv[])
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int read_all(const char *path, struct buf *b)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	struct stat sb;
	int rc = fstat(fd, &sb);
	if (!rc) {
		buf_room(b, (size_t)sb.st_size);
		rc = read(fd, b->p, (size_t)sb.st_size) == sb.st_size ? 0 : -1;
		b->len = (size_t)sb.st_size;
	}
	close(fd);
	return rc;
}

int unit_object(const char *src, struct object *o)
{
	memset(o, 0, sizeof *o);
	struct buf image = {0};
	char dir[] = "/tmp/pi-unit-XXXXXX";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return -1;
	}
	char *out = xasprintf("%s/a.o", dir);
	size_t n = strlen(src);
	char *as[] = {"as", "-g", (char *)src, "-o", out, NULL};
	char *cc[] = {"cc", "-O2", "-g", "-c", (char *)src, "-o", out, NULL};
	char *cxx[] = {"c++", "-O2", "-g", "-c", (char *)src, "-o", out, NULL};
	char *const *argv = n > 2 && !strcmp(src + n - 2, ".s") ? as : n > 3 && !strcmp(src + n - 3, ".cc") ? cxx : cc;
	int rc = run(argv);
	if (rc)
		fprintf(stderr, "%s: %s failed (%d)\n", src, argv[0], rc);
	else if (read_all(out, &image))
		fprintf(stderr, "%s: cannot read %s\n", src, out), rc = -1;
	unlink(out);
	rmdir(dir);
	free(out);
	if (!rc && obj_read(o, src, image.p, image.len))
		rc = -1; /* o holds copies of the sections */
	buf_free(&image);
	return rc;
}
