// Sends exactly COUNT requests over CONNS keep-alive connections (one in flight per connection) and waits for
// every answer, so a profiler attached to the server sees a fixed amount of work (Benchmarks/cpu).
//
// Usage: fixed-requests PORT signin|me LINES-FILE COUNT CONNS [FIRST-LINE] [VALUES-OUT]
//   signin: POST /api/users/siwa with {"token":LINE,"name":"Bench User"}; a line "TOKEN CODE" sends the code too
//           (`authorizationCode`); VALUES-OUT gets each answer's "value".
//   me:     GET /api/users/me with Authorization: Bearer LINE.
// Lines are used in order from FIRST-LINE (0-based), wrapping. Prints "sent N non200 M".
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CONNS 1024
#define BUFFER 65536

struct conn {
    int fd;
    char in[BUFFER];
    size_t have;
    int busy;
};

static char **lines;
static size_t line_count;

static void load(const char *path) {
    FILE *file = fopen(path, "r");
    if (!file) { perror(path); exit(1); }
    size_t capacity = 1024;
    lines = malloc(capacity * sizeof(char *));
    char *line = NULL;
    size_t size = 0;
    ssize_t length;
    while ((length = getline(&line, &size, file)) > 0) {
        while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r')) line[--length] = 0;
        if (length == 0) continue;
        if (line_count == capacity) { capacity *= 2; lines = realloc(lines, capacity * sizeof(char *)); }
        lines[line_count++] = strdup(line);
    }
    fclose(file);
    if (line_count == 0) { fprintf(stderr, "%s is empty\n", path); exit(1); }
}

static int connect_to(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons(port) };
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) { perror("connect"); exit(1); }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static void send_all(int fd, const char *data, size_t length) {
    while (length > 0) {
        ssize_t sent = write(fd, data, length);
        if (sent < 0) { if (errno == EINTR) continue; perror("write"); exit(1); }
        data += sent;
        length -= (size_t)sent;
    }
}

static void send_request(struct conn *c, int signin, const char *line) {
    static char request[16384];
    int length;
    if (signin) {
        char body[12288];
        const char *space = strchr(line, ' ');
        int body_length = space
            ? snprintf(body, sizeof body, "{\"token\":\"%.*s\",\"authorizationCode\":\"%s\",\"name\":\"Bench User\"}",
                       (int)(space - line), line, space + 1)
            : snprintf(body, sizeof body, "{\"token\":\"%s\",\"name\":\"Bench User\"}", line);
        length = snprintf(request, sizeof request,
                          "POST /api/users/siwa HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                          "Content-Length: %d\r\n\r\n%s", body_length, body);
    } else {
        length = snprintf(request, sizeof request,
                          "GET /api/users/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n\r\n", line);
    }
    send_all(c->fd, request, (size_t)length);
    c->busy = 1;
}

// Returns the length of a complete response at the start of c->in (and its status), or 0 if incomplete.
static size_t complete(struct conn *c, int *status) {
    c->in[c->have] = 0;
    char *end = strstr(c->in, "\r\n\r\n");
    if (!end) return 0;
    size_t head = (size_t)(end - c->in) + 4;
    char *field = strcasestr(c->in, "\r\ncontent-length:");
    size_t body = field && field < end ? strtoul(field + 17, NULL, 10) : 0;
    if (c->have < head + body) return 0;
    *status = atoi(c->in + 9);
    return head + body;
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: %s PORT signin|me LINES-FILE COUNT CONNS [FIRST-LINE] [VALUES-OUT]\n", argv[0]);
        return 64;
    }
    int port = atoi(argv[1]);
    int signin = strcmp(argv[2], "signin") == 0;
    load(argv[3]);
    long count = atol(argv[4]);
    int conns = atoi(argv[5]);
    size_t next = argc > 6 ? strtoul(argv[6], NULL, 10) : 0;
    FILE *values = argc > 7 ? fopen(argv[7], "w") : NULL;
    if (conns < 1 || conns > MAX_CONNS) { fprintf(stderr, "CONNS must be 1-%d\n", MAX_CONNS); return 64; }
    static struct conn pool[MAX_CONNS];
    struct pollfd polls[MAX_CONNS];
    long sent = 0, answered = 0, bad = 0;
    for (int i = 0; i < conns; i++) {
        pool[i].fd = connect_to(port);
        polls[i] = (struct pollfd){ .fd = pool[i].fd, .events = POLLIN };
        if (sent < count) { send_request(&pool[i], signin, lines[next++ % line_count]); sent++; }
    }
    while (answered < count) {
        if (poll(polls, (nfds_t)conns, 10000) <= 0) { fprintf(stderr, "timed out after %ld answers\n", answered); return 1; }
        for (int i = 0; i < conns; i++) {
            if (!(polls[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            struct conn *c = &pool[i];
            ssize_t got = read(c->fd, c->in + c->have, BUFFER - 1 - c->have);
            if (got <= 0) { fprintf(stderr, "connection closed after %ld answers\n", answered); return 1; }
            c->have += (size_t)got;
            int status;
            size_t length;
            while ((length = complete(c, &status)) > 0) {
                answered++;
                if (status != 200) bad++;
                if (values) {
                    char *value = strstr(c->in, "\"value\":\"");
                    if (value && value < c->in + length) {
                        value += 9;
                        fprintf(values, "%.*s\n", (int)strcspn(value, "\""), value);
                    }
                }
                memmove(c->in, c->in + length, c->have - length);
                c->have -= length;
                c->busy = 0;
                if (sent < count) { send_request(c, signin, lines[next++ % line_count]); sent++; }
            }
        }
    }
    if (values) fclose(values);
    printf("sent %ld non200 %ld\n", sent, bad);
    return 0;
}
