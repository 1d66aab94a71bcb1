// LD_PRELOAD library for Benchmarks/cli/compare.sh --phases: timestamps (CLOCK_MONOTONIC, in
// ms from $PHASES_T0, the launcher's clock before exec) of the process's first constructor, its
// connect() to an IP address, each read/write of that socket, and its exit, written to
// $PHASES_LOG when the process ends. Loaded into both tools, it shows where whole-process time
// goes: start-up, connect to the search's command, the server's search, the rest, the exit.
//
//   cc -O2 -shared -fPIC -o phase-timestamps.so phase-timestamps.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int traced = -1;
static double start;
static char buffer[1 << 16];
static int used;

static double now(void) {
    struct timespec clock;
    clock_gettime(CLOCK_MONOTONIC, &clock);
    return clock.tv_sec * 1e3 + clock.tv_nsec / 1e6;
}

static void note(const char *event, long bytes) {
    if (used < (int)sizeof(buffer) - 128)
        used += snprintf(buffer + used, 128, "%.3f %s %ld\n", now() - start, event, bytes);
}

__attribute__((constructor)) static void begin(void) {
    const char *t0 = getenv("PHASES_T0");
    start = t0 ? atof(t0) : now();
    note("start", 0);
}

static void flush(void) {
    static int done;
    const char *path = getenv("PHASES_LOG");
    if (done || !path) return;
    done = 1;
    note("exit", 0);
    FILE *file = fopen(path, "w");
    if (file) {
        fwrite(buffer, 1, used, file);
        fclose(file);
    }
}

__attribute__((destructor)) static void end(void) { flush(); }

typedef int (*connect_f)(int, const struct sockaddr *, socklen_t);
typedef ssize_t (*write_f)(int, const void *, size_t);
typedef ssize_t (*send_f)(int, const void *, size_t, int);
typedef ssize_t (*read_f)(int, void *, size_t);
typedef ssize_t (*recv_f)(int, void *, size_t, int);
typedef void (*exit_f)(int);

// The function this library stands in front of.
#define NEXT(name, type) \
    static type real; \
    if (!real) real = (type)dlsym(RTLD_NEXT, name)

int connect(int fd, const struct sockaddr *address, socklen_t length) {
    NEXT("connect", connect_f);
    if (address->sa_family == AF_INET || address->sa_family == AF_INET6) {
        traced = fd;
        note("connect", 0);
    }
    return real(fd, address, length);
}

ssize_t write(int fd, const void *bytes, size_t count) {
    NEXT("write", write_f);
    ssize_t written = real(fd, bytes, count);
    if (fd == traced && written > 0) note("write", written);
    return written;
}

ssize_t send(int fd, const void *bytes, size_t count, int flags) {
    NEXT("send", send_f);
    ssize_t written = real(fd, bytes, count, flags);
    if (fd == traced && written > 0) note("write", written);
    return written;
}

ssize_t read(int fd, void *bytes, size_t count) {
    NEXT("read", read_f);
    ssize_t got = real(fd, bytes, count);
    if (fd == traced && got > 0) note("read", got);
    return got;
}

ssize_t recv(int fd, void *bytes, size_t count, int flags) {
    NEXT("recv", recv_f);
    ssize_t got = real(fd, bytes, count, flags);
    if (fd == traced && got > 0) note("read", got);
    return got;
}

void exit(int status) {
    NEXT("exit", exit_f);
    flush();
    real(status);
    __builtin_unreachable();
}

void _exit(int status) {
    NEXT("_exit", exit_f);
    flush();
    real(status);
    __builtin_unreachable();
}
