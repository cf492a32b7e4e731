/*
 * config.h - memz.conf for the netdata plugin.
 *
 * One setting a line, `Name = value`, names and values exactly as in the
 * core's settings table (a repeatable setting is given on several lines).
 * '#' and ';' start comments; a `[memz]` section header is accepted so the
 * file looks like netdata's own; quotes around a value are removed.
 */
#ifndef MEMZ_ND_CONFIG_H
#define MEMZ_ND_CONFIG_H

#include <stddef.h>

#include "memz/settings.h"

/*
 * Apply path to s. Returns 0, -ENOENT when there is no such file, or
 * -EINVAL with err holding "PATH:LINE: message naming the setting".
 */
int memz_nd_config_load(const char *path, struct memz_settings *s, char *err,
			size_t errlen);

/*
 * The file netdata's environment points at: NETDATA_USER_CONFIG_DIR/memz.conf
 * if it exists, else NETDATA_STOCK_CONFIG_DIR/memz.conf. Writes "" when
 * neither exists.
 */
void memz_nd_config_path(char *out, size_t len);

/* Put NETDATA_HOST_PREFIX (when set) in front of ProcRoot and SysRoot. */
int memz_nd_config_host_prefix(struct memz_settings *s, const char *prefix,
			       char *err, size_t errlen);

#endif
