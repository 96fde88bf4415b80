// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What happens around the ioctls: files closed and opened again, forked
 * children, stopped and continued, the timer's period, and mappings made,
 * unmapped, split, moved and inherited.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ioctl_stress.h"

/* ---- open files, children, mappings ---------------------------------- */

int dev_open(void)
{
	return open("/dev/" LITE_DEV_NAME, O_RDWR | O_CLOEXEC);
}

/* Close one file (its handles, ports, descriptors go), open another. */
void act_reopen(void)
{
	unsigned int slot = rnd(NR_FDS);
	int other = pick_slot(), fd;

	if (st.fds[slot] >= 0) {
		close(st.fds[slot]);
		st.closes++;
	}
	st.fds[slot] = -1;
	forget_slot(slot);
	if (other >= 0 && other != (int)slot && chance(20))
		fd = fcntl(st.fds[other], F_DUPFD_CLOEXEC, 0);
	else
		fd = dev_open();
	if (fd < 0 && errno != ENOMEM && errno != EMFILE)
		unexpected("open errno %s", errname(errno));
	st.fds[slot] = fd;
}

void act_fork(void)
{
	uint64_t seed = rnd64();
	int k;
	pid_t pid;

	for (k = 0; k < MAX_KIDS && st.kids[k].pid; k++)
		;
	if (k == MAX_KIDS)
		return;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return;
	if (!pid)
		child_main(seed);
	st.kids[k] = (struct kid) { .pid = pid, .start_ms = now_ms() };
	st.forks++;
}

/* How a child ended: it exits with its count of unexpected results. */
static void kid_ended(struct kid *k, int status)
{
	if (WIFEXITED(status))
		st.unexpected += WEXITSTATUS(status);
	else if (WIFSIGNALED(status) && !k->killed)
		unexpected("child %d killed by signal %s", (int)k->pid,
			   strsignal(WTERMSIG(status)));
	k->pid = 0;
}

/* Reap the children that ended; kill one that runs for too long. */
void reap_kids(void)
{
	uint64_t now = now_ms();
	struct kid *k;
	int status;

	for (k = st.kids; k < st.kids + MAX_KIDS; k++) {
		if (!k->pid)
			continue;
		if (waitpid(k->pid, &status, WNOHANG) == k->pid) {
			kid_ended(k, status);
		} else if (!k->killed && now - k->start_ms > KID_KILL_MS) {
			unexpected("child %d still running after %d s: killed",
				   (int)k->pid, KID_KILL_MS / 1000);
			kill(k->pid, SIGKILL);
			kill(k->pid, SIGCONT);
			k->killed = true;
		} else if (k->killed &&
			   now - k->start_ms > KID_KILL_MS + KID_GONE_MS) {
			unexpected("child %d not gone %d s after SIGKILL",
				   (int)k->pid, KID_GONE_MS / 1000);
			k->pid = 0;	/* unkillable: init may have it */
		}
	}
}

/* Stop a child for a moment, in whatever it is doing. */
void act_stop_cont(void)
{
	unsigned int i = rnd(MAX_KIDS);

	if (!st.kids[i].pid || st.kids[i].killed)
		return;
	kill(st.kids[i].pid, SIGSTOP);
	nap_ms(1 + rnd(20));
	kill(st.kids[i].pid, SIGCONT);
}

void act_timer(void)
{
	static const unsigned int ms[] = { 2, 10, 30, 100, 250 };

	set_timer(ms[rnd(ARRAY_SIZE(ms))]);
}

void map_forget(struct map *m)
{
	m->used = false;
}

static struct map *map_slot(void)
{
	int i = UNUSED(st.maps);

	if (i < 0) {
		i = rnd(MAX_MAPS);
		munmap(st.maps[i].addr, st.maps[i].len);
		st.maps_done++;
	}
	return &st.maps[i];
}

static size_t pick_map_len(void)
{
	switch (rnd(4)) {
	case 0:
		return 1 + rnd(PAGE);		/* rounded up to a page */
	case 1:
		return MAP_MAX;
	default:
		return PAGE * (1 + rnd(MAP_MAX / PAGE));
	}
}

static void map_new(bool zc)
{
	size_t len = pick_map_len();
	int slot = pick_slot(), prot = PROT_READ | PROT_WRITE;
	struct map *m;
	void *p;

	if (zc && slot < 0)
		return;
	if (zc && chance(10))
		prot = PROT_READ;	/* the module may still write it */
	m = map_slot();
	p = zc ? mmap(NULL, len, prot, MAP_SHARED, st.fds[slot], 0) :
		 mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	st.maps_done++;
	if (p == MAP_FAILED) {
		check_mm(zc ? "mmap" : "mmap anon", errno);
		m->used = false;
		return;
	}
	*m = (struct map) {
		.used = true, .zc = zc, .ro = prot == PROT_READ,
		.inherit = !zc, .addr = p, .len = (len + PAGE - 1) & ~(PAGE - 1),
	};
}

/* What the module must refuse: each one a fresh mapping attempt. */
static void map_bad_zc(void)
{
	int slot = pick_slot(), flags = MAP_SHARED;
	size_t len = PAGE;
	off_t off = 0;
	void *p;

	if (slot < 0)
		return;
	switch (rnd(3)) {
	case 0:
		off = PAGE << rnd(20);
		break;
	case 1:
		flags = MAP_PRIVATE;
		break;
	default:
		len = (1ULL << 30) + PAGE;	/* above 1 GiB */
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, st.fds[slot], off);
	st.maps_done++;
	if (p == MAP_FAILED) {
		check_mm("mmap (bad)", errno);
		return;
	}
	unexpected("mmap of /dev/lite (len %zu, flags %#x, offset %lld) succeeded",
		   len, flags, (long long)off);
	munmap(p, len);
}

/* Unmap a mapping, then hand its address to one ioctl at once. */
static void map_unmap_use(void)
{
	struct map *m = pick_map();

	if (!m)
		return;
	if (munmap(m->addr, m->len)) {
		check_mm("munmap", errno);
		return;
	}
	st.maps_done++;
	map_forget(m);
	st.stale = (uintptr_t)m->addr;
	st.stale_len = m->len;
	switch (rnd(4)) {
	case 0:
		op_rw(LITE_IOC_READ);
		break;
	case 1:
		op_rw(LITE_IOC_WRITE);
		break;
	case 2:
		op_recv(LITE_IOC_RECV);
		break;
	default:
		op_call(LITE_IOC_CALL);
	}
	st.stale = 0;	/* if nothing took it */
}

/* Part of a mapping: refused for a zero-copy buffer, fine for the rest. */
static void map_split(void)
{
	struct map *m = pick_map();
	const char *how;
	size_t half;
	int ret;

	if (!m || m->len < 2 * PAGE)
		return;
	half = (m->len / 2) & ~(PAGE - 1);
	switch (rnd(3)) {
	case 0:
		how = "munmap of the upper half";
		ret = munmap(m->addr + half, m->len - half);
		if (!ret)
			m->len = half;
		break;
	case 1:
		how = "munmap of the first page";
		ret = munmap(m->addr, PAGE);
		if (!ret) {
			m->addr += PAGE;
			m->len -= PAGE;
		}
		break;
	default:
		/*
		 * Another protection than the mapping's, or nothing is split
		 * (mprotect to the same one is a no-op). The module may write
		 * a read-only half: ours.
		 */
		how = "mprotect of the upper half";
		ret = mprotect(m->addr + half, m->len - half,
			       m->ro ? PROT_READ | PROT_WRITE : PROT_READ);
	}
	st.maps_done++;
	if (ret)
		check_mm("split", errno);
	else if (m->zc)
		unexpected("a zero-copy buffer was split: %s", how);
}

/* Grow, shrink or move: refused for a zero-copy buffer. */
static void map_mremap(void)
{
	struct map *m = pick_map();
	size_t len;
	void *p, *spot = NULL;

	if (!m)
		return;
	switch (rnd(3)) {
	case 0:
		len = min_u64(m->len + PAGE * (1 + rnd(16)),
			      MAP_MAX + 16 * PAGE);
		p = mremap(m->addr, m->len, len, rnd(2) ? MREMAP_MAYMOVE : 0);
		break;
	case 1:
		len = m->len > PAGE ? (m->len / 2) & ~(PAGE - 1) :
				      m->len + PAGE;
		p = mremap(m->addr, m->len, len, 0);
		break;
	default:
		len = m->len;
		spot = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
		if (spot == MAP_FAILED)
			return;
		p = mremap(m->addr, m->len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
			   spot);
	}
	st.maps_done++;
	if (p == MAP_FAILED) {
		check_mm("mremap", errno);
		if (spot)	/* maybe already gone: harmless */
			munmap(spot, len);
		return;
	}
	if (m->zc)
		unexpected("a zero-copy buffer was resized or moved");
	m->addr = p;
	m->len = len;
}

/* Whether a forked child gets the mapping (MADV_DOFORK on a zc buffer). */
static void map_madvise(void)
{
	struct map *m = pick_map();
	bool dofork = chance(60);

	if (!m)
		return;
	st.maps_done++;
	if (madvise(m->addr, m->len, dofork ? MADV_DOFORK : MADV_DONTFORK))
		check_mm("madvise", errno);
	else
		m->inherit = dofork;
}

void act_map(void)
{
	switch (rnd(10)) {
	case 0:
	case 1:
	case 2:
		map_new(true);
		break;
	case 3:
		map_new(false);
		break;
	case 4:
		map_bad_zc();
		break;
	case 5:
	case 6:
		map_unmap_use();
		break;
	case 7:
		map_split();
		break;
	case 8:
		map_mremap();
		break;
	default:
		map_madvise();
	}
}
