/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * liblite is built with -fvisibility=hidden: a function is part of the
 * shared library's ABI only if its definition carries LITE_EXPORT (and its
 * name matches liblite.map). Private to the library; not installed.
 */
#ifndef LITE_EXPORT_H
#define LITE_EXPORT_H

#define LITE_EXPORT __attribute__((visibility("default")))

#endif /* LITE_EXPORT_H */
