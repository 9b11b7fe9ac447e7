/*
 * A stand-in for libnvidia-ml.so.1 with scripted cards and scripted failures, so the adapter is
 * tested through the real JNA path. The script is a text file named by fakeNvmlSetScript() (or
 * FAKE_NVML_SCRIPT); it is re-read by nvmlInit_v2 and nvmlDeviceGetCount_v2, i.e. once per read,
 * so a test changes behaviour at run time by rewriting the file.
 *
 *   card uuid=GPU-1 name=NVIDIA_A100 total=BYTES used=BYTES util=PCT memutil=PCT temp=C power=MW pci=BUSID
 *   fail FN CODE [CARD]     FN returns CODE (for every card, or for CARD only)
 *   procs CARD PID:BYTES PID:na ...
 *   samples CARD PID:TIMESTAMP:SMUTIL ...   per-process utilisation samples (timestamps in microseconds;
 *                                           "now": sampled afresh at every call, a process kept busy)
 *   hang FN                 FN blocks until the line is removed from the script (at most 60 s)
 *
 * FN is one of init shutdown count handle uuid name memory utilization temperature power pci processes
 * process_utilization. nvmlDeviceGetProcessUtilization behaves as nvml.h documents it: a call without
 * a buffer answers INSUFFICIENT_SIZE and the number of samples newer than lastSeenTimeStamp, a
 * buffer too small the same, and NOT_FOUND when there is no newer sample; fakeNvmlLastSeen(CARD)
 * tells the lastSeenTimeStamp of the card's latest call and fakeNvmlUtilizationCalls() the calls.
 * Names use '_' for spaces. Struct layouts are declared as in nvml.h so that the compiler, not the
 * test author, decides the offsets the adapter must match.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int nvmlReturn_t;
#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_INSUFFICIENT_SIZE 7

typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;
typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlProcessInfo_t;
typedef struct {
    unsigned int pid;
    unsigned long long timeStamp;
    unsigned int smUtil;
    unsigned int memUtil;
    unsigned int encUtil;
    unsigned int decUtil;
} nvmlProcessUtilizationSample_t;

enum { F_INIT, F_SHUTDOWN, F_COUNT, F_HANDLE, F_UUID, F_NAME, F_MEMORY, F_UTIL, F_TEMP, F_POWER, F_PCI, F_PROCS,
       F_PUTIL, NFN };
static const char *FN_NAMES[NFN] = {"init", "shutdown", "count", "handle", "uuid", "name", "memory",
                                    "utilization", "temperature", "power", "pci", "processes", "process_utilization"};

#define MAX_CARDS 32
#define MAX_PROCS 256
typedef struct {
    char uuid[96], name[96], pci[32];
    unsigned long long total, used;
    unsigned int util, memutil, temp, power;
    int fail[NFN];
    int nprocs;
    nvmlProcessInfo_t procs[MAX_PROCS];
    int nsamples;
    nvmlProcessUtilizationSample_t samples[MAX_PROCS];
    char live[MAX_PROCS];
} card_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char script_path[4096];
static card_t cards[MAX_CARDS];
static int ncards;
static int global_fail[NFN];
static int hang[NFN];
static int refcount;
static int init_calls, shutdown_calls, utilization_calls;
static unsigned long long last_seen[MAX_CARDS];

static int fn_index(const char *name) {
    for (int i = 0; i < NFN; i++) if (strcmp(name, FN_NAMES[i]) == 0) return i;
    return -1;
}

static const char *current_script(void) {
    if (script_path[0]) return script_path;
    const char *env = getenv("FAKE_NVML_SCRIPT");
    return env && env[0] ? env : NULL;
}

static void parse_card(char *rest) {
    if (ncards >= MAX_CARDS) return;
    card_t *c = &cards[ncards++];
    for (char *tok = strtok(rest, " \t\n"); tok; tok = strtok(NULL, " \t\n")) {
        char *eq = strchr(tok, '=');
        if (!eq) continue;
        *eq = 0;
        const char *k = tok, *v = eq + 1;
        if (!strcmp(k, "uuid")) snprintf(c->uuid, sizeof c->uuid, "%s", v);
        else if (!strcmp(k, "name")) {
            snprintf(c->name, sizeof c->name, "%s", v);
            for (char *p = c->name; *p; p++) if (*p == '_') *p = ' ';
        } else if (!strcmp(k, "pci")) snprintf(c->pci, sizeof c->pci, "%s", v);
        else if (!strcmp(k, "total")) c->total = strtoull(v, NULL, 10);
        else if (!strcmp(k, "used")) c->used = strtoull(v, NULL, 10);
        else if (!strcmp(k, "util")) c->util = (unsigned) strtoul(v, NULL, 10);
        else if (!strcmp(k, "memutil")) c->memutil = (unsigned) strtoul(v, NULL, 10);
        else if (!strcmp(k, "temp")) c->temp = (unsigned) strtoul(v, NULL, 10);
        else if (!strcmp(k, "power")) c->power = (unsigned) strtoul(v, NULL, 10);
    }
}

static void parse_procs(char *rest) {
    char *tok = strtok(rest, " \t\n");
    if (!tok) return;
    int idx = atoi(tok);
    if (idx < 0 || idx >= ncards) return;
    card_t *c = &cards[idx];
    for (tok = strtok(NULL, " \t\n"); tok && c->nprocs < MAX_PROCS; tok = strtok(NULL, " \t\n")) {
        char *colon = strchr(tok, ':');
        if (!colon) continue;
        *colon = 0;
        nvmlProcessInfo_t *p = &c->procs[c->nprocs++];
        p->pid = (unsigned) strtoul(tok, NULL, 10);
        p->usedGpuMemory = strcmp(colon + 1, "na") == 0 ? ULLONG_MAX : strtoull(colon + 1, NULL, 10);
        p->gpuInstanceId = 0xFFFFFFFFu;
        p->computeInstanceId = 0xFFFFFFFFu;
    }
}

static void parse_samples(char *rest) {
    char *tok = strtok(rest, " \t\n");
    if (!tok) return;
    int idx = atoi(tok);
    if (idx < 0 || idx >= ncards) return;
    card_t *c = &cards[idx];
    for (tok = strtok(NULL, " \t\n"); tok && c->nsamples < MAX_PROCS; tok = strtok(NULL, " \t\n")) {
        unsigned int pid, sm;
        unsigned long long ts = 0;
        int live = sscanf(tok, "%u:now:%u", &pid, &sm) == 2;
        if (!live && sscanf(tok, "%u:%llu:%u", &pid, &ts, &sm) != 3) continue;
        c->live[c->nsamples] = (char) live;
        nvmlProcessUtilizationSample_t *p = &c->samples[c->nsamples++];
        p->pid = pid;
        p->timeStamp = ts;
        p->smUtil = sm;
        p->memUtil = sm / 2;
        p->encUtil = 0;
        p->decUtil = 0;
    }
}

static void load_script(void) {
    pthread_mutex_lock(&lock);
    memset(cards, 0, sizeof cards);
    memset(global_fail, 0, sizeof global_fail);
    memset(hang, 0, sizeof hang);
    ncards = 0;
    const char *path = current_script();
    FILE *f = path ? fopen(path, "r") : NULL;
    char line[8192];
    while (f && fgets(line, sizeof line, f)) {
        char word[32];
        int used = 0;
        if (sscanf(line, "%31s%n", word, &used) != 1 || word[0] == '#') continue;
        char *rest = line + used;
        if (!strcmp(word, "card")) parse_card(rest);
        else if (!strcmp(word, "procs")) parse_procs(rest);
        else if (!strcmp(word, "samples")) parse_samples(rest);
        else if (!strcmp(word, "fail") || !strcmp(word, "hang")) {
            char fn[32];
            int code = 0, card = -1;
            int n = !strcmp(word, "fail") ? sscanf(rest, "%31s %d %d", fn, &code, &card)
                                          : sscanf(rest, "%31s", fn);
            int i = fn_index(fn);
            if (i < 0) continue;
            if (!strcmp(word, "hang")) hang[i] = 1;
            else if (n >= 3 && card >= 0 && card < MAX_CARDS) cards[card].fail[i] = code;
            else if (n >= 2) global_fail[i] = code;
        }
    }
    if (f) fclose(f);
    pthread_mutex_unlock(&lock);
}

/* Whether the script still asks FN to hang; read from the file so that a test can release it. */
static int still_hanging(int fn) {
    const char *path = current_script();
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f) return 0;
    char line[8192], word[32], name[32];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%31s %31s", word, name) == 2 && !strcmp(word, "hang") && !strcmp(name, FN_NAMES[fn])) found = 1;
    }
    fclose(f);
    return found;
}

static void maybe_hang(int fn) {
    if (!hang[fn]) return;
    struct timespec pause = {0, 20 * 1000 * 1000};
    for (int i = 0; i < 3000 && still_hanging(fn); i++) nanosleep(&pause, NULL);
    hang[fn] = 0;
}

static card_t *card_of(void *device) {
    card_t *c = (card_t *) device;
    return c >= cards && c < cards + ncards ? c : NULL;
}

/* Common prologue: hang if scripted, then the scripted failure, then the handle check. */
#define ENTER(fn, device, c)                                      \
    maybe_hang(fn);                                               \
    if (refcount <= 0) return NVML_ERROR_UNINITIALIZED;           \
    card_t *c = card_of(device);                                  \
    if (!c) return NVML_ERROR_INVALID_ARGUMENT;                   \
    if (global_fail[fn]) return global_fail[fn];                  \
    if (c->fail[fn]) return c->fail[fn];

void fakeNvmlSetScript(const char *path) {
    pthread_mutex_lock(&lock);
    snprintf(script_path, sizeof script_path, "%s", path ? path : "");
    pthread_mutex_unlock(&lock);
}

int fakeNvmlInitCalls(void) { return init_calls; }
int fakeNvmlShutdownCalls(void) { return shutdown_calls; }
int fakeNvmlRefcount(void) { return refcount; }
int fakeNvmlUtilizationCalls(void) { return utilization_calls; }
long long fakeNvmlLastSeen(int card) { return card >= 0 && card < MAX_CARDS ? (long long) last_seen[card] : -1; }

nvmlReturn_t nvmlInit_v2(void) {
    init_calls++;
    load_script();
    maybe_hang(F_INIT);
    if (global_fail[F_INIT]) return global_fail[F_INIT];
    refcount++;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
    shutdown_calls++;
    maybe_hang(F_SHUTDOWN);
    if (refcount <= 0) return NVML_ERROR_UNINITIALIZED;
    refcount--;
    return global_fail[F_SHUTDOWN];
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
    load_script();
    maybe_hang(F_COUNT);
    if (refcount <= 0) return NVML_ERROR_UNINITIALIZED;
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    if (global_fail[F_COUNT]) return global_fail[F_COUNT];
    *count = (unsigned) ncards;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **device) {
    maybe_hang(F_HANDLE);
    if (refcount <= 0) return NVML_ERROR_UNINITIALIZED;
    if (!device || index >= (unsigned) ncards) return NVML_ERROR_INVALID_ARGUMENT;
    if (global_fail[F_HANDLE]) return global_fail[F_HANDLE];
    if (cards[index].fail[F_HANDLE]) return cards[index].fail[F_HANDLE];
    *device = &cards[index];
    return NVML_SUCCESS;
}

static nvmlReturn_t copy_text(const char *src, char *dst, unsigned int length) {
    if (!dst) return NVML_ERROR_INVALID_ARGUMENT;
    if (strlen(src) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
    strcpy(dst, src);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUUID(void *device, char *uuid, unsigned int length) {
    ENTER(F_UUID, device, c)
    return copy_text(c->uuid, uuid, length);
}

nvmlReturn_t nvmlDeviceGetName(void *device, char *name, unsigned int length) {
    ENTER(F_NAME, device, c)
    return copy_text(c->name, name, length);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(void *device, nvmlMemory_t *memory) {
    ENTER(F_MEMORY, device, c)
    if (!memory) return NVML_ERROR_INVALID_ARGUMENT;
    memory->total = c->total;
    memory->used = c->used;
    memory->free = c->total - c->used;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(void *device, nvmlUtilization_t *utilization) {
    ENTER(F_UTIL, device, c)
    if (!utilization) return NVML_ERROR_INVALID_ARGUMENT;
    utilization->gpu = c->util;
    utilization->memory = c->memutil;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(void *device, int sensor, unsigned int *temp) {
    ENTER(F_TEMP, device, c)
    if (!temp || sensor != 0) return NVML_ERROR_INVALID_ARGUMENT;
    *temp = c->temp;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(void *device, unsigned int *power) {
    ENTER(F_POWER, device, c)
    if (!power) return NVML_ERROR_INVALID_ARGUMENT;
    *power = c->power;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(void *device, nvmlPciInfo_t *pci) {
    ENTER(F_PCI, device, c)
    if (!pci) return NVML_ERROR_INVALID_ARGUMENT;
    memset(pci, 0, sizeof *pci);
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%.12s", c->pci);
    snprintf(pci->busId, sizeof pci->busId, "%s", c->pci);
    pci->pciDeviceId = 0x20b010de;
    return NVML_SUCCESS;
}

static nvmlReturn_t processes(void *device, unsigned int *count, nvmlProcessInfo_t *infos) {
    ENTER(F_PROCS, device, c)
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    if (*count < (unsigned) c->nprocs) {
        *count = (unsigned) c->nprocs;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    if (c->nprocs > 0 && !infos) return NVML_ERROR_INVALID_ARGUMENT;
    memcpy(infos, c->procs, sizeof(nvmlProcessInfo_t) * (size_t) c->nprocs);
    *count = (unsigned) c->nprocs;
    return NVML_SUCCESS;
}

#ifndef FAKE_NVML_NO_V3
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(void *device, unsigned int *count, nvmlProcessInfo_t *infos) {
    return processes(device, count, infos);
}
#endif

/* Older drivers export only _v2, which has the same 24-byte entries. */
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(void *device, unsigned int *count, nvmlProcessInfo_t *infos) {
    return processes(device, count, infos);
}

nvmlReturn_t nvmlDeviceGetProcessUtilization(void *device, nvmlProcessUtilizationSample_t *utilization,
                                             unsigned int *processSamplesCount, unsigned long long lastSeenTimeStamp) {
    utilization_calls++;
    ENTER(F_PUTIL, device, c)
    if (!processSamplesCount) return NVML_ERROR_INVALID_ARGUMENT;
    last_seen[c - cards] = lastSeenTimeStamp;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    for (int i = 0; i < c->nsamples; i++) {
        if (c->live[i]) c->samples[i].timeStamp = (unsigned long long) now.tv_sec * 1000000ULL + (unsigned long long) now.tv_nsec / 1000ULL;
    }
    unsigned int newer = 0;
    for (int i = 0; i < c->nsamples; i++) if (c->samples[i].timeStamp > lastSeenTimeStamp) newer++;
    if (newer == 0) {
        *processSamplesCount = 0;
        return NVML_ERROR_NOT_FOUND;
    }
    if (!utilization || *processSamplesCount < newer) {
        *processSamplesCount = newer;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    unsigned int n = 0;
    for (int i = 0; i < c->nsamples; i++) if (c->samples[i].timeStamp > lastSeenTimeStamp) utilization[n++] = c->samples[i];
    *processSamplesCount = n;
    return NVML_SUCCESS;
}
