// Starts a server and measures the time from exec to its first answered `GET /health` (status 200), polling
// 127.0.0.1:PORT every 200 microseconds. Prints "FIRST <milliseconds> <pid>" and leaves the server running
// (its standard output goes to /dev/null; standard error is inherited).
// Usage: first-answer PORT TIMEOUT_MS command [arguments...]
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char request[] = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int answered(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 0;
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(port) };
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int ok = 0;
    char buffer[512];
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0
        && write(fd, request, sizeof request - 1) == (ssize_t)(sizeof request - 1)) {
        ssize_t n = read(fd, buffer, sizeof buffer);
        ok = n >= 12 && memcmp(buffer + 9, "200", 3) == 0;
    }
    close(fd);
    return ok;
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: first-answer PORT TIMEOUT_MS command [arguments...]\n"); return 64; }
    int port = atoi(argv[1]);
    double timeout = atof(argv[2]);
    double start = now_ms();
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) { dup2(null, STDOUT_FILENO); close(null); }
        execvp(argv[3], argv + 3);
        perror("exec");
        _exit(127);
    }
    while (now_ms() - start < timeout) {
        if (answered(port)) {
            printf("FIRST %.1f %d\n", now_ms() - start, pid);
            return 0;
        }
        usleep(200);
    }
    printf("FIRST timeout %d\n", pid);
    return 1;
}
