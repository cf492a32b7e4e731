/* A container's name from docker's config.v2.json (the container's owner
 * writes much of it, so hostile), the depth check every JSON reader runs
 * before yajl builds a tree, and the name it gives a cgroup path. The
 * first byte picks the name buffer's size and the depth bound; then a
 * cgroup path, a newline, and the config file. */
#include <string.h>

#include "fuzz_util.h"
#include "memz/cgname.h"
#include "memz/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memz_cgname n;
	char *buf, *cfg, *name;
	size_t len, cfglen, outlen;
	unsigned max;
	bool within;

	if (size < 1)
		return 0;
	/* 1 to MEMZ_CGNAME_MAX: the cache passes the whole buffer */
	outlen = (size_t)(data[0] & 0x3f) + 1;
	if (data[0] & 0x40)
		outlen = MEMZ_CGNAME_MAX;
	buf = fuzz_cstr(data + 1, size - 1);
	len = size - 1;
	cfg = memchr(buf, '\n', len);
	if (cfg) {
		*cfg++ = '\0';
		cfglen = len - (size_t)(cfg - buf);
	} else {
		cfg = buf;
		cfglen = len;
	}
	/* a deeper bound never refuses what a shallower one took */
	max = data[0] & 0x80 ? MEMZ_JSON_DEPTH_MAX : data[0] & 7;
	within = memz_json_depth_within(cfg, cfglen, max);
	if (within && !memz_json_depth_within(cfg, cfglen, max + 1))
		__builtin_trap();
	name = malloc(outlen);
	if (!name)
		abort();
	if (!memz_cgname_docker(cfg, cfglen, name, outlen)) {
		if (memchr(name, '\0', outlen) == NULL)
			__builtin_trap();
		/* a name means the tree was built, so the depth was checked */
		if (!memz_json_depth_within(cfg, cfglen, MEMZ_JSON_DEPTH_MAX))
			__builtin_trap();
		if (cfg != buf && !memz_cgname_parse(buf, &n)) {
			memz_cgname_apply_docker(&n, name);
			if (memchr(n.name, '\0', sizeof n.name) == NULL ||
			    memchr(n.runtime, '\0', sizeof n.runtime) == NULL ||
			    memchr(n.id, '\0', sizeof n.id) == NULL ||
			    memchr(n.pod_uid, '\0', sizeof n.pod_uid) == NULL)
				__builtin_trap();
		}
	}
	free(name);
	free(buf);
	return 0;
}
