// Node.js programs of the busy-host mix recording
// (tests/busy-host/record-mix.sh), each started through a symlink to node
// named after it (its comm is honest from its exec); events go to
// $PLANTED_EVENTS as planted.c writes them.
//
//   leak-node16 node.js leak FLAT_S KIB_PER_S
//       a service handling made-up requests (garbage each tick) that after
//       FLAT_S keeps every request's record, about KIB_PER_S KiB a second,
//       in an array nothing prunes
//   ctl-lru node.js lru PORTFILE ENTRIES
//       an HTTP server with an LRU cache of at most ENTRIES values of
//       4 KiB: a miss makes the value and keeps it, evicting the least
//       recently used when full; logs stop when the cache is first full
//   lru-client node.js client PORTFILE KEYS RATE
//       asks the server for random keys of KEYS, RATE requests a second
'use strict';
const fs = require('fs');
const http = require('http');

const NAME = fs.readFileSync('/proc/self/comm', 'utf8').trim();
function boottime() {
	return parseFloat(fs.readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
}
function event(what, detail) {
	const path = process.env.PLANTED_EVENTS;
	if (!path)
		return;
	const fd = fs.openSync(path, 'a');
	fs.writeSync(fd, `${boottime().toFixed(3)} ${process.pid} ${NAME} ${what} ${detail || ''}\n`);
	fs.closeSync(fd);
}

const [mode, a, b, c] = process.argv.slice(2);
if (mode === 'leak') {
	const flat = +a, kib = +b, t0 = boottime(), onset = t0 + flat;
	const kept = [];
	let n = 0, started = false;
	event('start', 'node leak');
	setInterval(() => {
		const scratch = [];
		for (let i = 0; i < 2000; i++)
			scratch.push({ i, s: 'x' + Math.random() });
		const t = boottime();
		if (t >= onset) {
			if (!started) {
				started = true;
				event('onset', `${kib} KiB/s`);
			}
			while (n + 1 <= kib * (t - onset)) {
				kept.push({ id: n, at: t, body: 'r'.repeat(1000) + n });
				n++;
			}
		}
	}, 100);
} else if (mode === 'lru') {
	const max = +b, cache = new Map();
	let full = false;
	event('start', `lru cache of ${max} x 4 KiB`);
	const server = http.createServer((req, res) => {
		const key = req.url;
		let v = cache.get(key);
		if (v !== undefined) {
			cache.delete(key);
		} else {
			v = Buffer.alloc(4096, key.length % 256);
			if (cache.size >= max) {
				cache.delete(cache.keys().next().value);
				if (!full) {
					full = true;
					event('stop', `cache full, ${max} entries`);
				}
			}
		}
		cache.set(key, v);
		res.end(v.subarray(0, 64));
	});
	server.listen(0, '127.0.0.1', () => {
		fs.writeFileSync(a, String(server.address().port));
	});
} else if (mode === 'client') {
	const keys = +b, rate = +c;
	let port = 0;
	const tick = () => {
		if (!port) {
			try { port = +fs.readFileSync(a, 'utf8'); } catch (e) { port = 0; }
			return;
		}
		const k = Math.floor(Math.random() * keys);
		http.get({ host: '127.0.0.1', port, path: '/k' + k, agent: false },
			 (res) => res.resume()).on('error', () => {});
	};
	setInterval(tick, 1000 / rate);
} else {
	console.error('node.js: unknown mode ' + mode);
	process.exit(2);
}
