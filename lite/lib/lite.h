/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * liblite: user-space access to LITE memory regions (LMRs) through
 * /dev/lite. The constants (LITE_PERM_*, LITE_PRIO_*, LITE_ALLOC_ATOMIC,
 * LITE_LMR_MAX_SIZE) and the meaning of each errno come from the ioctl ABI,
 * <uapi/lite.h>, included below.
 *
 * The library opens /dev/lite on first use and keeps it open for the life
 * of the process. Handles ("lh") belong to that open file: they are valid
 * in every thread, vanish at exit (the LMRs this process allocated are
 * freed), and are shared with a child created by fork().
 *
 * Every int-returning call returns >= 0 on success and a negative errno on
 * failure, and then also sets errno to the positive value.
 */
#ifndef LITE_H
#define LITE_H

#include <stddef.h>
#include <stdint.h>

#include <uapi/lite.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Join the cluster whose lite-manager listens on manager_ip:port; ib_port 0
 * picks the module's default. Needs CAP_NET_ADMIN. The node stays joined
 * after the process exits. Returns this node's id.
 */
int lite_join(const char *manager_ip, int port, int ib_port);

/* This node's id (> 0), or -ENOTCONN before the node has joined. */
int lite_node_id(void);

/* This node plus the peers it reaches, or -ENOTCONN before joining. */
int lite_nr_nodes(void);

/*
 * Allocate @size bytes on @node (this node's id for local memory); flags
 * is 0 or LITE_ALLOC_ATOMIC. Data operations must present @password.
 * Returns a handle (> 0) with every permission bit.
 */
int lite_alloc(unsigned int node, uint64_t size, unsigned int flags,
	       int password);

/* Free the LMR (needs LITE_PERM_ADMIN); other handles on it are revoked. */
int lite_free(int lh);

/* Drop this handle only; the LMR stays. */
int lite_unmap(int lh);

/* Copy between @buf and the LMR at @offset; prio is a LITE_PRIO_* value. */
int lite_write(int lh, uint64_t offset, const void *buf, uint64_t size,
	       int password, int prio);
int lite_read(int lh, uint64_t offset, void *buf, uint64_t size,
	      int password, int prio);

/* Set @size bytes at @offset to @byte, converted to unsigned char. */
int lite_memset(int lh, uint64_t offset, int byte, uint64_t size);

/*
 * Copy between two LMRs on any nodes (READ on @src, WRITE on @dst).
 * lite_memmove gives the result of a copy through a temporary buffer when
 * the ranges overlap; lite_memcpy does not promise that.
 */
int lite_memcpy(int dst, uint64_t dst_off, int src, uint64_t src_off,
		uint64_t size);
int lite_memmove(int dst, uint64_t dst_off, int src, uint64_t src_off,
		 uint64_t size);

/*
 * Publish the LMR under @identifier on its owner node (needs SHARE), so
 * that lite_ask() with @password can map it with at most @perm.
 */
int lite_publish(int lh, uint64_t identifier, unsigned int perm,
		 int password);

/* Map what @node published under @identifier; returns the new handle. */
int lite_ask(unsigned int node, uint64_t identifier, unsigned int perm,
	     int password);

/* Owner node, size and permission bits of a handle; any pointer may be NULL. */
int lite_lmr_info(int lh, unsigned int *node, uint64_t *size,
		  unsigned int *perm);

/*
 * Page-aligned memory the module reads and writes without a bounce buffer
 * (the zero-copy path of lite_read/lite_write). @size is rounded up to the
 * page size. Returns NULL and sets errno on failure. Release it with
 * lite_free_buffer() and the same @size.
 */
void *lite_alloc_buffer(size_t size);
int lite_free_buffer(void *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* LITE_H */
