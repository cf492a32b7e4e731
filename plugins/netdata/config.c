#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int memz_nd_config_load(const char *path, struct memz_settings *s, char *err,
			size_t errlen)
{
	struct memz_settings work = *s;
	char line[1024], msg[512];
	unsigned n = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		if (errno == ENOENT)
			return -ENOENT;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -EINVAL;
	}
	while (fgets(line, sizeof line, f)) {
		char *l, *eq, *name, *value;
		size_t vl;

		n++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(err, errlen, "%s:%u: line too long", path, n);
			goto bad;
		}
		l = trim(line);
		if (!*l || *l == '#' || *l == ';' || !strcmp(l, "[memz]"))
			continue;
		if (!(eq = strchr(l, '='))) {
			snprintf(err, errlen, "%s:%u: expected Name = value, got \"%s\"",
				 path, n, l);
			goto bad;
		}
		*eq = '\0';
		name = trim(l);
		value = trim(eq + 1);
		vl = strlen(value);
		if (vl >= 2 && value[0] == '"' && value[vl - 1] == '"') {
			value[vl - 1] = '\0';
			value++;
		}
		if (memz_settings_set(&work, name, value, msg, sizeof msg)) {
			snprintf(err, errlen, "%s:%u: %s", path, n, msg);
			goto bad;
		}
	}
	fclose(f);
	*s = work;
	return 0;
bad:
	fclose(f);
	return -EINVAL;
}

void memz_nd_config_path(char *out, size_t len)
{
	static const char *const env[] = { "NETDATA_USER_CONFIG_DIR",
					   "NETDATA_STOCK_CONFIG_DIR" };

	for (size_t i = 0; i < 2; i++) {
		const char *dir = getenv(env[i]);
		if (!dir || !*dir)
			continue;
		snprintf(out, len, "%s/memz.conf", dir);
		if (!access(out, F_OK))
			return;
	}
	*out = '\0';
}

int memz_nd_config_host_prefix(struct memz_settings *s, const char *prefix,
			       char *err, size_t errlen)
{
	char path[2 * MEMZ_PATH_MAX];

	if (!prefix || !*prefix)
		return 0;
	snprintf(path, sizeof path, "%s%s", prefix, s->proc_root);
	if (memz_settings_set(s, "ProcRoot", path, err, errlen))
		return -EINVAL;
	snprintf(path, sizeof path, "%s%s", prefix, s->sys_root);
	if (memz_settings_set(s, "SysRoot", path, err, errlen))
		return -EINVAL;
	/* netdata's container mounts the host's /etc/passwd there too */
	snprintf(path, sizeof path, "%s%s", prefix, s->passwd_file);
	if (memz_settings_set(s, "PasswdFile", path, err, errlen))
		return -EINVAL;
	return 0;
}
