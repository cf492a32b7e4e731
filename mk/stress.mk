# stress area: pid churn in the suite, a soak outside it.
INTEGRATION_TESTS += tests/it_churn.sh
EXTRA_DIST += tests/it_churn.sh tests/soak.sh

# memz watching itself for SOAK_SECONDS (default 900); not in make check.
SOAK_SECONDS = 900
soak: all
	SOAK_SECONDS=$(SOAK_SECONDS) top_builddir='$(abs_top_builddir)' \
	  $(SHELL) $(top_srcdir)/tests/soak.sh
.PHONY: soak
