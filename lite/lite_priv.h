/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LITE internals shared by the module's files. One section per file.
 */
#ifndef LITE_PRIV_H
#define LITE_PRIV_H

#include <linux/mutex.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>

#include "include/lite_proto.h"

#define lite_err(fmt, ...)	pr_err("lite: " fmt, ##__VA_ARGS__)
#define lite_warn(fmt, ...)	pr_warn("lite: " fmt, ##__VA_ARGS__)
#define lite_info(fmt, ...)	pr_info("lite: " fmt, ##__VA_ARGS__)

/* main.c: module parameters */
extern char *lite_param_device;
extern unsigned int lite_param_port;
extern unsigned int lite_param_gid_index;
extern unsigned int lite_param_qps_per_peer;

/* device.c: the RDMA device LITE runs on (one per node) */
struct lite_dev {
	struct ib_device	*ibdev;
	u32			port;
	u32			gid_index;
	union ib_gid		gid;
	enum rdma_link_layer	link_layer;
	u16			lid;
	enum ib_mtu		mtu;
	struct ib_pd		*pd;	/* with the unsafe global rkey */
	struct ib_cq		*cq;	/* shared by every QP of the pool */
};

int lite_device_init(void);
void lite_device_exit(void);
struct lite_dev *lite_device_get(void);

/* qp_pool.c: K RC QPs per peer */
#define LITE_RX_DEPTH	8	/* receives posted per QP */
#define LITE_TX_DEPTH	16	/* sends outstanding per QP */

struct lite_peer;

struct lite_rx_buf {
	struct ib_cqe		cqe;
	struct lite_qp		*lqp;
	void			*data;
	u64			dma;
};

struct lite_qp {
	struct lite_peer	*peer;
	unsigned int		index;
	struct ib_qp		*qp;
	u32			psn;
	bool			inited;	/* reached INIT: must be drained */
	bool			rts;
	struct lite_rx_buf	rx[LITE_RX_DEPTH];
	struct ib_cqe		tx_cqe;
	void			*tx_data;	/* the hello */
	u64			tx_dma;
};

enum lite_peer_state {
	LITE_PEER_CREATED,	/* our QPs exist, waiting for the peer's */
	LITE_PEER_CONNECTING,	/* QPs in RTS, hellos in flight */
	LITE_PEER_UP,		/* a hello arrived on every QP */
	LITE_PEER_FAILED,
};

struct lite_peer {
	u16			id;
	u32			gen;
	char			name[LITE_NAME_LEN];
	struct lite_port_addr	addr;
	enum lite_peer_state	state;
	unsigned long		hello_seen;	/* bit i: hello on QP i */
	spinlock_t		lock;		/* closing vs. reposting */
	bool			closing;
	struct lite_dev		*dev;
	unsigned int		nr_qps;
	struct lite_qp		qps[];
};

struct lite_peer *lite_peer_create(struct lite_dev *dev, u16 id, u32 gen,
				   const struct lite_msg_peer_up *up,
				   unsigned int nr_qps);
int lite_peer_connect(struct lite_peer *peer,
		      const struct lite_msg_qp_info *info);
void lite_peer_destroy(struct lite_peer *peer);
void lite_peer_fill_qp_info(struct lite_peer *peer,
			    struct lite_msg_qp_info *info);

/* membership.c: the manager connection and the peer table */
int lite_membership_join(const char *manager, u16 port, u32 ib_port,
			 u32 *node_id);
void lite_membership_exit(void);
u16 lite_node_id(void);
u32 lite_node_gen(void);
unsigned int lite_nr_nodes(u64 *connected);
unsigned int lite_qps_per_peer(void);

/* chardev.c: /dev/lite */
int lite_chardev_init(void);
void lite_chardev_exit(void);

#endif /* LITE_PRIV_H */
