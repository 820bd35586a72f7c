#ifndef CLINUX_SHIMS_H
#define CLINUX_SHIMS_H
/* Linux-only system interfaces that Swift's Glibc module does not export: epoll(7), eventfd(2), accept4(2),
   mallopt(3), gettid(2). */
#include <sys/epoll.h>
#include <sys/eventfd.h>

/* accept4(2) is declared by glibc only under _GNU_SOURCE; `address` is a struct sockaddr *, `length` a socklen_t *.
   Declared here without <sys/socket.h> so this module does not take over the socket constants from Glibc. */
extern int accept4(int fd, void *address, unsigned int *length, int flags);

/* mallopt(3), and its M_MMAP_THRESHOLD parameter (-3 in glibc's <malloc.h>), declared here without <malloc.h> so
   this module does not declare malloc and free a second time beside Glibc's. */
extern int mallopt(int param, int value);
static const int CLINUX_M_MMAP_THRESHOLD = -3;

/* gettid(2), declared by glibc only under _GNU_SOURCE (pid_t is an int). */
extern int gettid(void);

#endif
