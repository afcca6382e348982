/* The physical floor under kairos's OS-latency suite (`kairos platform latency`): the same
 * calls in a tight loop, timed as a whole and divided by the count, by a process set up as the
 * suite's measuring thread (SCHED_FIFO 80, memory locked, pinned to one CPU; partners forked
 * from it, so on its CPU). No per-call timing: this is the least each call can cost here.
 * Build and run: scripts/oslat-floor.sh (compiles this with cc, runs it beside kairos). */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static void die(const char *what) { perror(what); exit(1); }

static pid_t echo_partner(int in, int out) {
    pid_t pid = fork();
    if (pid < 0) die("fork");
    if (pid == 0) {
        char buf[8];
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        for (;;) {
            ssize_t n = read(in, buf, sizeof buf);
            if (n <= 0 || write(out, buf, n) != n) _exit(0);
        }
    }
    return pid;
}

/* Mean ns of one round trip through two pipes to a partner on this CPU. */
static double pipe_round_trip(long n) {
    int there[2], back[2];
    char msg[8] = "kairos!", reply[8];
    if (pipe(there) || pipe(back)) die("pipe");
    pid_t partner = echo_partner(there[0], back[1]);
    for (int i = 0; i < 100; i++)
        if (write(there[1], msg, 8) != 8 || read(back[0], reply, 8) != 8) die("warm-up");
    double start = now_ns();
    for (long i = 0; i < n; i++)
        if (write(there[1], msg, 8) != 8 || read(back[0], reply, 8) != 8) die("round trip");
    double took = (now_ns() - start) / n;
    kill(partner, SIGKILL);
    waitpid(partner, NULL, 0);
    return took;
}

static double syscall_floor(long n) {
    double start = now_ns();
    for (long i = 0; i < n; i++) syscall(SYS_getpid);
    return (now_ns() - start) / n;
}

static double sem_floor(long n) {
    int id = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
    if (id < 0) die("semget");
    struct sembuf up = {0, 1, 0}, down = {0, -1, 0};
    double start = now_ns();
    for (long i = 0; i < n; i += 2) {
        if (semop(id, &up, 1) || semop(id, &down, 1)) die("semop");
    }
    double took = (now_ns() - start) / n;
    semctl(id, 0, IPC_RMID);
    return took;
}

int main(int argc, char **argv) {
    int cpu = argc > 1 ? atoi(argv[1]) : 0;
    long n = argc > 2 ? atol(argv[2]) : 200000;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    struct sched_param param = {.sched_priority = 80};
    if (sched_setaffinity(0, sizeof set, &set)) die("sched_setaffinity");
    if (sched_setscheduler(0, SCHED_FIFO, &param)) die("sched_setscheduler (run as root)");
    if (mlockall(MCL_CURRENT | MCL_FUTURE)) die("mlockall");
    double pipe = pipe_round_trip(n / 4);
    printf("syscall %.0f\n", syscall_floor(n));
    printf("pipe %.0f\n", pipe);
    /* Two hand-overs per round trip between two processes on one CPU, as the suite counts. */
    printf("ctx %.0f\n", pipe / 2);
    printf("sem %.0f\n", sem_floor(n));
    return 0;
}
