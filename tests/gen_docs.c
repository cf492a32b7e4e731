/*
 * gen_docs - text generated from the core's settings table, so the docs
 * cannot drift from it:
 *   gen_docs markdown   the README's settings table
 *   gen_docs defaults   "Name<TAB>default" a line, for checking shipped configs
 */
#include <stdio.h>
#include <string.h>

#include "memz/settings.h"

static const char *type_name(const struct memz_setting_desc *d)
{
	switch (d->type) {
	case MEMZ_SETTING_BOOL: return "boolean";
	case MEMZ_SETTING_INT: return "integer";
	case MEMZ_SETTING_DOUBLE: return "number";
	case MEMZ_SETTING_PATH: return "path";
	case MEMZ_SETTING_ENUM: return "choice";
	case MEMZ_SETTING_LIST: return "name, repeatable";
	case MEMZ_SETTING_REGEX_LIST: return "regex, repeatable";
	}
	return "?";
}

static void allowed(const struct memz_setting_desc *d, char *buf, size_t n)
{
	size_t off = 0;

	buf[0] = '\0';
	if (d->type == MEMZ_SETTING_INT || d->type == MEMZ_SETTING_DOUBLE) {
		snprintf(buf, n, "%g to %g%s%s", d->min, d->max, *d->unit ? " " : "",
			 d->unit);
	} else if (d->type == MEMZ_SETTING_ENUM) {
		for (int i = 0; d->choices[i] && off < n; i++)
			off += (size_t)snprintf(buf + off, n - off, "%s`%s`",
						i ? ", " : "", d->choices[i]);
	}
}

int main(int argc, char **argv)
{
	size_t n;
	const struct memz_setting_desc *t = memz_settings_table(&n);
	char buf[256];

	if (argc != 2)
		return 2;
	if (!strcmp(argv[1], "defaults")) {
		for (size_t i = 0; i < n; i++)
			printf("%s\t%s\n", t[i].name, t[i].def);
		return 0;
	}
	if (strcmp(argv[1], "markdown"))
		return 2;
	printf("| setting | type | default | allowed | meaning |\n");
	printf("| --- | --- | --- | --- | --- |\n");
	for (size_t i = 0; i < n; i++) {
		allowed(&t[i], buf, sizeof buf);
		printf("| `%s` | %s | %s%s%s | %s | %s |\n", t[i].name,
		       type_name(&t[i]), *t[i].def ? "`" : "", *t[i].def ? t[i].def : "(none)",
		       *t[i].def ? "`" : "", buf, t[i].help);
	}
	return 0;
}
