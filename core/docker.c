#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memz/docker.h"
#include "memz/privilege.h"
#include "memz/readbuf.h"

void memz_docker_init(struct memz_docker *d, const char *root,
		      const struct memz_allocator *a)
{
	memset(d, 0, sizeof *d);
	d->a = a;
	snprintf(d->root, sizeof d->root, "%s", root);
}

void memz_docker_release(struct memz_docker *d)
{
	memz_free(d->a, &d->cfg);
}

int memz_docker_name(struct memz_docker *d, struct memz_cgname *n)
{
	char file[512], name[MEMZ_CGNAME_MAX];
	struct memz_caps saved;
	struct stat st;
	size_t len;
	int fd, rc;

	/* a bare id under a pod has no runtime in its path: docker's file
	 * tells whether it is docker's */
	if ((n->runtime[0] && strcmp(n->runtime, "docker")) || !n->id[0] ||
	    !d->root[0])
		return 0;
	if (!d->cfg) {
		d->cfg = memz_realloc(d->a, NULL, MEMZ_CGNAME_CONFIG_MAX + 1);
		if (!d->cfg)
			return 0;
	}
	snprintf(file, sizeof file, "%s/containers/%s/config.v2.json",
		 d->root, n->id);
	/* never waits on a FIFO, never follows a link: docker.h */
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	rc = memz_pread_file(fd, d->cfg, MEMZ_CGNAME_CONFIG_MAX + 1, &len);
	close(fd);
	d->reads++;
	if (rc || memz_priv_suspend(&saved))
		return 0;
	if (!memz_cgname_docker(d->cfg, len, name, sizeof name)) {
		snprintf(n->runtime, sizeof n->runtime, "docker");
		memz_cgname_apply_docker(n, name);
	}
	return memz_priv_resume(&saved) ? -EPERM : 0;
}
