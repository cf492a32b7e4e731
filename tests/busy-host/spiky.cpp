// A C++ service that leaks slowly under big periodic spikes, planted in
// the busy-host mix recording (tests/busy-host/record-mix.sh): each second
// it builds and drops a work set of up to 4 MiB; every PERIOD_S it also
// builds a SPIKE_MIB batch (a std::vector, touched), holds it HOLD_S and
// drops it; after FLAT_S it starts keeping KIB_PER_S records of 1 KiB a
// second in a std::map nothing prunes. Started through a symlink named
// after it (its comm is honest from its exec); events go to
// $PLANTED_EVENTS as planted.c writes them.
//
//     leak-cxx2 FLAT_S KIB_PER_S SPIKE_MIB PERIOD_S HOLD_S
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <random>
#include <string>
#include <time.h>
#include <unistd.h>
#include <vector>

static char name[16];

static double now()
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	if (s > 0)
		usleep((useconds_t)(s * 1e6));
}

static void event(const char *what, const std::string &detail)
{
	const char *path = std::getenv("PLANTED_EVENTS");
	char line[256];
	int n = std::snprintf(line, sizeof line, "%.3f %d %s %s %s\n", now(),
			      (int)getpid(), name, what, detail.c_str());

	if (!path || n <= 0)
		return;
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) < 0)
		std::perror("spiky: event");
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		std::fprintf(stderr, "usage: %s FLAT_S KIB_PER_S SPIKE_MIB PERIOD_S HOLD_S\n", argv[0]);
		return 2;
	}
	double flat = std::atof(argv[1]), kib_s = std::atof(argv[2]);
	double spike = std::atof(argv[3]), period = std::atof(argv[4]);
	double hold = std::atof(argv[5]);
	FILE *f = std::fopen("/proc/self/comm", "r");
	if (!f || !std::fgets(name, sizeof name, f))
		std::snprintf(name, sizeof name, "spiky");
	if (f)
		std::fclose(f);
	name[std::strcspn(name, "\n")] = 0;

	double t0 = now(), onset = t0 + flat, next_spike = t0 + period;
	std::map<long, std::string> kept;
	std::vector<char> batch;
	double spike_end = 0;
	bool leaking = false;
	std::mt19937 rnd(1);
	long n = 0;

	event("start", "c++ spiky leak");
	for (;;) {
		double t = now();
		std::vector<std::string> work(rnd() % 4096);
		for (auto &s : work)
			s.assign(1024, 'w');
		if (t >= onset) {
			if (!leaking) {
				leaking = true;
				event("onset", std::to_string((long)kib_s) + " KiB/s");
			}
			while (n + 1 <= kib_s * (t - onset)) {
				kept[n] = std::string(1000, (char)('a' + n % 26));
				n++;
			}
		}
		if (spike > 0 && batch.empty() && t >= next_spike) {
			batch.assign((size_t)(spike * 1024 * 1024), 1);
			spike_end = t + hold;
			next_spike += period;
		}
		if (!batch.empty() && t >= spike_end)
			std::vector<char>().swap(batch);
		sleep_s(0.25);
	}
}
