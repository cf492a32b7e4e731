#!/bin/sh
# LOG_COMPILER of every test. Tests that start leaking processes or daemons
# (integration tests, and the unit tests with a live leaking child) run one
# at a time: a leak verdict or an alarm is machine-wide, so one test's
# leaking helper would hold another test's alarm up. The rest run in
# parallel beside them.
case "$(basename "$1")" in
it_*.sh | test_cli.sh | test_budget_live)
	lock="flock ${top_builddir:-.}/.integration.lock" ;;
*)
	lock="" ;;
esac
case "$1" in
*.sh) exec $lock sh "$@" ;;
*) exec $lock "$@" ;;
esac
