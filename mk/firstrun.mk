# first run: docs generated from the settings table, quick start, install

noinst_PROGRAMS += tests/gen_docs
tests_gen_docs_SOURCES = tests/gen_docs.c
tests_gen_docs_LDADD = libmemz.la

UNIT_TESTS += tests/test_docs.sh
EXTRA_DIST += tests/test_docs.sh README.md

# Rewrite the README's settings table from the core's table.
update-docs: tests/gen_docs$(EXEEXT)
	./tests/gen_docs markdown > settings.md.tmp
	awk 'BEGIN { skip = 0 } \
	  /<!-- settings:begin -->/ { print; while ((getline l < "settings.md.tmp") > 0) print l; skip = 1; next } \
	  /<!-- settings:end -->/ { skip = 0 } \
	  !skip { print }' $(srcdir)/README.md > README.md.tmp
	mv README.md.tmp $(srcdir)/README.md
	rm -f settings.md.tmp

.PHONY: update-docs

INTEGRATION_TESTS += tests/it_quickstart.sh
EXTRA_DIST += tests/it_quickstart.sh scripts/quickstart.sh scripts/install-deps.sh scripts/test-all.sh
