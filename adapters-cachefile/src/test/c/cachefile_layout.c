/*
 * HAMi-Core's shared region, declared as HAMi-Core declares it, so that the C compiler (not the
 * Java code under test) decides every offset. Modes:
 *   offsets                 print sizeof/offsetof of both layouts as key=value lines
 *   write-v1 MINOR FILE     write a v1 file with known values (see fill_* below)
 *   write-v0 FILE           the same for the v0 layout
 * The values are a formula of (process, device); the Java test computes the same formula.
 */
#include <semaphore.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC 19920718
#define MAX_DEVICES 16
#define MAX_PROCS 1024
#define UUID_LEN 96

_Static_assert(sizeof(sem_t) == 32, "sem_t is 32 bytes on the platforms HAMi-Core supports");

/* ---- v1 (HAMi-Core 1.x) ---- */
typedef struct {
    uint64_t context_size;
    uint64_t module_size;
    uint64_t data_size;
    uint64_t offset;
    uint64_t total;
    uint64_t unused[3];
} device_memory_t;

typedef struct {
    uint64_t dec_util;
    uint64_t enc_util;
    uint64_t sm_util;
    uint64_t unused[3];
} device_util_t;

typedef struct {
    int32_t pid;
    int32_t hostpid;
    device_memory_t used[MAX_DEVICES];
    uint64_t monitorused[MAX_DEVICES];
    device_util_t device_util[MAX_DEVICES];
    int32_t status;
    uint64_t seqlock;
    uint64_t unused[2];
} shrreg_proc_slot_t;

typedef struct {
    int32_t initialized_flag;
    uint32_t major_version;
    uint32_t minor_version;
    int32_t sm_init_flag;
    size_t owner_pid;
    sem_t sem;
    uint64_t device_num;
    char uuids[MAX_DEVICES][UUID_LEN];
    uint64_t limit[MAX_DEVICES];
    uint64_t sm_limit[MAX_DEVICES];
    shrreg_proc_slot_t procs[MAX_PROCS];
    int proc_num;
    int utilization_switch;
    int recent_kernel;
    int priority;
    int64_t last_kernel_time;
    sem_t sem_postinit;
} shared_region_t;

/* ---- v0 (before version fields) ---- */
typedef struct {
    uint64_t context_size;
    uint64_t module_size;
    uint64_t data_size;
    uint64_t offset;
    uint64_t total;
} device_memory_v0_t;

typedef struct {
    uint64_t dec_util;
    uint64_t enc_util;
    uint64_t sm_util;
} device_util_v0_t;

typedef struct {
    int32_t pid;
    int32_t hostpid;
    device_memory_v0_t used[MAX_DEVICES];
    uint64_t monitorused[MAX_DEVICES];
    device_util_v0_t device_util[MAX_DEVICES];
    int32_t status;
} shrreg_proc_slot_v0_t;

typedef struct {
    int32_t initialized_flag;
    int32_t sm_init_flag;
    uint32_t owner_pid;
    sem_t sem;
    uint64_t num;
    char uuids[MAX_DEVICES][UUID_LEN];
    uint64_t limit[MAX_DEVICES];
    uint64_t sm_limit[MAX_DEVICES];
    shrreg_proc_slot_v0_t procs[MAX_PROCS];
    int proc_num;
    int utilization_switch;
    int recent_kernel;
    int priority;
} shared_region_v0_t;

#define P(prefix, type, field) printf(prefix "." #field "=%zu\n", offsetof(type, field))

static void offsets(void) {
    printf("v1.sizeof=%zu\n", sizeof(shared_region_t));
    P("v1", shared_region_t, major_version);
    P("v1", shared_region_t, minor_version);
    P("v1", shared_region_t, sm_init_flag);
    P("v1", shared_region_t, owner_pid);
    P("v1", shared_region_t, sem);
    P("v1", shared_region_t, device_num);
    P("v1", shared_region_t, uuids);
    P("v1", shared_region_t, limit);
    P("v1", shared_region_t, sm_limit);
    P("v1", shared_region_t, procs);
    P("v1", shared_region_t, proc_num);
    P("v1", shared_region_t, utilization_switch);
    P("v1", shared_region_t, recent_kernel);
    P("v1", shared_region_t, priority);
    P("v1", shared_region_t, last_kernel_time);
    P("v1", shared_region_t, sem_postinit);
    printf("v1.slot.sizeof=%zu\n", sizeof(shrreg_proc_slot_t));
    P("v1.slot", shrreg_proc_slot_t, hostpid);
    P("v1.slot", shrreg_proc_slot_t, used);
    P("v1.slot", shrreg_proc_slot_t, monitorused);
    P("v1.slot", shrreg_proc_slot_t, device_util);
    P("v1.slot", shrreg_proc_slot_t, status);
    P("v1.slot", shrreg_proc_slot_t, seqlock);
    P("v1.slot", shrreg_proc_slot_t, unused);
    printf("v1.used.sizeof=%zu\n", sizeof(device_memory_t));
    P("v1.used", device_memory_t, total);
    printf("v1.util.sizeof=%zu\n", sizeof(device_util_t));
    P("v1.util", device_util_t, sm_util);

    printf("v0.sizeof=%zu\n", sizeof(shared_region_v0_t));
    P("v0", shared_region_v0_t, sm_init_flag);
    P("v0", shared_region_v0_t, owner_pid);
    P("v0", shared_region_v0_t, sem);
    P("v0", shared_region_v0_t, num);
    P("v0", shared_region_v0_t, uuids);
    P("v0", shared_region_v0_t, limit);
    P("v0", shared_region_v0_t, sm_limit);
    P("v0", shared_region_v0_t, procs);
    P("v0", shared_region_v0_t, proc_num);
    P("v0", shared_region_v0_t, utilization_switch);
    P("v0", shared_region_v0_t, recent_kernel);
    P("v0", shared_region_v0_t, priority);
    printf("v0.slot.sizeof=%zu\n", sizeof(shrreg_proc_slot_v0_t));
    P("v0.slot", shrreg_proc_slot_v0_t, used);
    P("v0.slot", shrreg_proc_slot_v0_t, monitorused);
    P("v0.slot", shrreg_proc_slot_v0_t, device_util);
    P("v0.slot", shrreg_proc_slot_v0_t, status);
    printf("v0.used.sizeof=%zu\n", sizeof(device_memory_v0_t));
    printf("v0.util.sizeof=%zu\n", sizeof(device_util_v0_t));
}

/* The known values. Keep in step with CLayoutTest.java. */
enum { DEVICES = 3, PROCS = 5 };
static int status_of(int p) { return p == 3 ? 0 : (p == 4 ? 2 : 1); }
static uint64_t context_of(int p, int d) { return (uint64_t)(p + 1) * (d + 1) * 1000 + 1; }
static uint64_t module_of(int p, int d) { return context_of(p, d) + 1; }
static uint64_t data_of(int p, int d) { return context_of(p, d) * 3; }
static uint64_t sm_of(int p, int d) { return (uint64_t)p * 10 + d; }
static uint64_t limit_of(int d) { return (uint64_t)(d + 1) * (1ULL << 30) + 12345; }
static uint64_t sm_limit_of(int d) { return (uint64_t)d * 10; }

static int write_file(const char *path, const void *region, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); return 1; }
    /* Like HAMi-Core: the file is one byte longer than the struct. */
    if (fwrite(region, size, 1, f) != 1 || fputc(0, f) == EOF || fclose(f) != 0) { perror(path); return 1; }
    return 0;
}

static int write_v1(unsigned minor, const char *path) {
    shared_region_t *r = calloc(1, sizeof *r);
    if (!r) return 1;
    r->initialized_flag = MAGIC;
    r->major_version = 1;
    r->minor_version = minor;
    r->sm_init_flag = 1;
    r->owner_pid = 777;
    r->device_num = DEVICES;
    for (int d = 0; d < DEVICES; d++) {
        snprintf(r->uuids[d], UUID_LEN, "GPU-c0ffee00-0000-4000-8000-00000000000%d", d);
        r->limit[d] = limit_of(d);
        r->sm_limit[d] = sm_limit_of(d);
    }
    for (int p = 0; p < PROCS; p++) {
        shrreg_proc_slot_t *s = &r->procs[p];
        s->pid = 1000 + p;
        s->hostpid = 2000 + p;
        s->status = status_of(p);
        s->seqlock = minor >= 2 ? (uint64_t)p * 2 : 0;
        for (int d = 0; d < DEVICES; d++) {
            s->used[d].context_size = context_of(p, d);
            s->used[d].module_size = module_of(p, d);
            s->used[d].data_size = data_of(p, d);
            s->used[d].offset = 7;
            s->used[d].total = context_of(p, d) + module_of(p, d) + data_of(p, d);
            s->monitorused[d] = s->used[d].total;
            s->device_util[d].sm_util = sm_of(p, d);
            s->device_util[d].dec_util = 3;
            s->device_util[d].enc_util = 4;
        }
    }
    r->proc_num = PROCS;
    r->utilization_switch = 1;
    r->recent_kernel = 2;
    r->priority = 1;
    r->last_kernel_time = 1700000005;
    int rc = write_file(path, r, sizeof *r);
    free(r);
    return rc;
}

static int write_v0(const char *path) {
    shared_region_v0_t *r = calloc(1, sizeof *r);
    if (!r) return 1;
    r->initialized_flag = MAGIC;
    r->sm_init_flag = 1;
    r->owner_pid = 777;
    r->num = DEVICES;
    for (int d = 0; d < DEVICES; d++) {
        snprintf(r->uuids[d], UUID_LEN, "GPU-c0ffee00-0000-4000-8000-00000000000%d", d);
        r->limit[d] = limit_of(d);
        r->sm_limit[d] = sm_limit_of(d);
    }
    for (int p = 0; p < PROCS; p++) {
        shrreg_proc_slot_v0_t *s = &r->procs[p];
        s->pid = 1000 + p;
        s->hostpid = 2000 + p;
        s->status = status_of(p);
        for (int d = 0; d < DEVICES; d++) {
            s->used[d].context_size = context_of(p, d);
            s->used[d].module_size = module_of(p, d);
            s->used[d].data_size = data_of(p, d);
            s->used[d].offset = 7;
            s->used[d].total = context_of(p, d) + module_of(p, d) + data_of(p, d);
            s->monitorused[d] = s->used[d].total;
            s->device_util[d].sm_util = sm_of(p, d);
        }
    }
    r->proc_num = PROCS;
    r->priority = 1;
    int rc = write_file(path, r, sizeof *r);
    free(r);
    return rc;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "offsets") == 0) {
        offsets();
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "write-v1") == 0) {
        return write_v1((unsigned)atoi(argv[2]), argv[3]);
    }
    if (argc == 3 && strcmp(argv[1], "write-v0") == 0) {
        return write_v0(argv[2]);
    }
    fprintf(stderr, "usage: %s offsets | write-v1 MINOR FILE | write-v0 FILE\n", argv[0]);
    return 2;
}
