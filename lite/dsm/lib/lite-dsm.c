// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * liblite-dsm: one open /dev/lite_dsm per attached region, its whole
 * region mapped MAP_SHARED (fork shares it, as for any shared mapping).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lite-dsm.h"
#include "../uapi/lite_dsm.h"

#define EXPORT __attribute__((visibility("default")))

struct lite_dsm {
	int	fd;
	void	*base;
	size_t	size;
	size_t	map_size;
};

/* -errno, with errno set: the convention of every int call. */
static int fail(int err)
{
	errno = err;
	return -err;
}

EXPORT struct lite_dsm *lite_dsm_attach(const char *name, size_t size)
{
	struct lite_dsm_ioc_attach a;
	struct lite_dsm *d;
	int err;

	if (!name || !size || strlen(name) >= sizeof(a.name) || !name[0]) {
		errno = EINVAL;
		return NULL;
	}
	memset(&a, 0, sizeof(a));
	strcpy(a.name, name);
	a.size = size;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->fd = open("/dev/" LITE_DSM_DEV_NAME, O_RDWR | O_CLOEXEC);
	if (d->fd < 0)
		goto out;
	if (ioctl(d->fd, LITE_DSM_IOC_ATTACH, &a))
		goto out_close;
	d->size = size;
	d->map_size = a.mmap_size;
	d->base = mmap(NULL, d->map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       d->fd, 0);
	if (d->base == MAP_FAILED)
		goto out_close;
	return d;
out_close:
	err = errno;
	close(d->fd);
	errno = err;
out:
	err = errno;
	free(d);
	errno = err;
	return NULL;
}

EXPORT void *lite_dsm_base(struct lite_dsm *d)
{
	return d ? d->base : NULL;
}

EXPORT size_t lite_dsm_size(struct lite_dsm *d)
{
	return d ? d->size : 0;
}

static int lock_call(struct lite_dsm *d, unsigned long req, unsigned int lock)
{
	struct lite_dsm_ioc_lock l = { .lock = lock };

	if (!d)
		return fail(EINVAL);
	return ioctl(d->fd, req, &l) ? fail(errno) : 0;
}

EXPORT int lite_dsm_acquire(struct lite_dsm *d, unsigned int lock)
{
	return lock_call(d, LITE_DSM_IOC_ACQUIRE, lock);
}

EXPORT int lite_dsm_release(struct lite_dsm *d, unsigned int lock)
{
	return lock_call(d, LITE_DSM_IOC_RELEASE, lock);
}

EXPORT int lite_dsm_barrier(struct lite_dsm *d, unsigned int nr)
{
	struct lite_dsm_ioc_barrier b = { .nr = nr };

	if (!d)
		return fail(EINVAL);
	return ioctl(d->fd, LITE_DSM_IOC_BARRIER, &b) ? fail(errno) : 0;
}

/*
 * Children that inherited the mapping keep the region (and the file)
 * until they unmap it or exit: DETACH then fails with EBUSY, and the
 * writes reach the homes when the last of them goes.
 */
EXPORT int lite_dsm_detach(struct lite_dsm *d)
{
	int ret = 0;

	if (!d)
		return fail(EINVAL);
	if (munmap(d->base, d->map_size))
		ret = -errno;
	if (!ret && ioctl(d->fd, LITE_DSM_IOC_DETACH))
		ret = errno == EBUSY ? 0 : -errno;
	if (close(d->fd) && !ret)
		ret = -errno;
	free(d);
	return ret ? fail(-ret) : 0;
}
