# dashboard: the netdata dashboard seen in a real (headless) browser.
# tests/it_dashboard.sh is the test (the rendered page must show the memz
# section and the raised alarm) and, with --screenshot, makes
# docs/dashboard.png, the picture in the README. It skips itself (77) without
# chromium or netdata, and in sanitizer builds.
INTEGRATION_TESTS += tests/it_dashboard.sh
EXTRA_DIST += tests/it_dashboard.sh docs/dashboard.png
