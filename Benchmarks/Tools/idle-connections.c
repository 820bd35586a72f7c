#define _GNU_SOURCE
// Opens N keep-alive connections to 127.0.0.1:PORT, sends one `GET /health` on each and reads its answer, then
// holds them all idle until stdin closes (or SECONDS pass). Prints "HELD <n> <failed>" once all are open and
// "ALIVE <n>" (connections the server has not closed) before exiting.
// Usage: idle-connections PORT N SECONDS
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char request[] = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n";

static int open_one(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(port) };
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval timeout = { .tv_sec = 5 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) { close(fd); return -1; }
    if (write(fd, request, sizeof request - 1) != (ssize_t)(sizeof request - 1)) { close(fd); return -1; }
    char buffer[4096];
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 12 || memcmp(buffer + 9, "200", 3) != 0) { close(fd); return -1; }
    return fd;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: idle-connections PORT N SECONDS\n"); return 64; }
    int port = atoi(argv[1]), count = atoi(argv[2]), seconds = atoi(argv[3]);
    struct pollfd *fds = calloc((size_t)count + 1, sizeof *fds);
    int held = 0, failed = 0;
    for (int i = 0; i < count; i++) {
        int fd = open_one(port);
        if (fd < 0) { failed++; continue; }
        fds[held].fd = fd;
        fds[held].events = POLLRDHUP;
        held++;
    }
    printf("HELD %d %d\n", held, failed);
    fflush(stdout);
    struct pollfd in = { .fd = STDIN_FILENO, .events = POLLIN };
    poll(&in, 1, seconds * 1000);
    poll(fds, (nfds_t)held, 0);
    int alive = 0;
    for (int i = 0; i < held; i++) {
        if (!(fds[i].revents & (POLLRDHUP | POLLHUP | POLLERR))) alive++;
    }
    printf("ALIVE %d\n", alive);
    return 0;
}
