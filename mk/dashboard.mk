# dashboard: the netdata dashboard seen in a real (headless) browser
