/* The settings parser: each line "Name=Value" through memz_settings_set,
 * as collectd's block, memz.conf and --set all do; then every setting is
 * formatted and the table compiles what was accepted. A refusal must say
 * why. */
#include "fuzz_util.h"
#include "memz/settings.h"
#include "memz/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memz_settings s;
	struct memz_table *t = NULL;
	const struct memz_setting_desc *d;
	char *buf = fuzz_cstr(data, size), *line, *next;
	char err[512], out[8192];
	size_t n;

	memz_settings_init(&s);
	for (line = buf; line; line = next) {
		char *eq;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		eq = strchr(line, '=');
		if (eq)
			*eq++ = '\0';
		err[0] = '\0';
		if (memz_settings_set(&s, line, eq, err, sizeof err) && !err[0])
			abort();
	}
	d = memz_settings_table(&n);
	for (size_t i = 0; i < n; i++)
		memz_setting_format(&s, &d[i], out, sizeof out);
	if (!memz_table_new(&t, &s, memz_allocator_libc()))
		memz_table_free(&t);
	free(buf);
	return 0;
}
