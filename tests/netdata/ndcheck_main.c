/*
 * ndcheck - run the strict protocol checker over stdin (what memz.plugin
 * wrote), for shell tests. Exits 1 naming the first bad line. With
 * --results, prints each FUNCTION_RESULT as "uuid status type" and then its
 * body on the next line, so a test can parse the JSON. NETDATA_VERSION
 * (as netdata sets it for the plugin) picks the grammar checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndcheck.h"

int main(int argc, char **argv)
{
	struct ndc *c = ndc_new();
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	const char *err;
	int rc = 0;

	const char *ver = getenv("NETDATA_VERSION");
	unsigned major, minor;

	if (!c)
		return 2;
	if (ver && sscanf(ver + (*ver == 'v'), "%u.%u", &major, &minor) == 2)
		ndc_set_version(c, major, minor);
	do {
		if (len == cap) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : 65536);
			if (!nb)
				return 2;
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, stdin);
		len += n;
	} while (n);
	if (ndc_feed(c, buf, len) || (err = ndc_error(c))) {
		fprintf(stderr, "ndcheck: %s\n", ndc_error(c));
		rc = 1;
	}
	if (argc > 1 && !strcmp(argv[1], "--results"))
		for (size_t i = 0; i < ndc_n_results(c); i++) {
			const struct ndc_result *r = ndc_get_result(c, i);
			printf("%s %d %s\n%s\n", r->uuid, r->status, r->type,
			       r->body ? r->body : "");
		}
	printf("lines: CHART %u DIMENSION %u BEGIN %u SET %u FUNCTION %u DISABLE %u KEEPALIVE %u\n",
	       ndc_count(c, "CHART"), ndc_count(c, "DIMENSION"),
	       ndc_count(c, "BEGIN"), ndc_count(c, "SET"),
	       ndc_count(c, "FUNCTION"), ndc_count(c, "DISABLE"),
	       ndc_count(c, "PLUGIN_KEEPALIVE"));
	free(buf);
	ndc_free(c);
	return rc;
}
