#ifndef CLINUX_SHIMS_H
#define CLINUX_SHIMS_H
/* Linux-only system interfaces that Swift's Glibc module does not export: epoll(7), eventfd(2), accept4(2). */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

/* accept4(2) is declared by glibc only under _GNU_SOURCE. */
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

#endif
