/* mpisim_record: a PMPI interposition library that logs a run's MPI calls for mpisim.
 *
 * Built by `mpisim record` with the user's own mpicc (-shared -fPIC -lz), loaded with
 * LD_PRELOAD (or linked before -lmpi in a static build). Each process writes one log,
 * $MPISIM_TRACE_DIR/rank.<world rank>.log: line-oriented, in the format that
 * mpisim/recorded/read/trace.py reads (its docstring is the specification), or, when
 * $MPISIM_TRACE_FORMAT is "compact", binary columns in compressed blocks
 * (mpisim/recorded/read/compact.py; the compact format's section below says how they are
 * written: a call's text is made as for a line, then kept as an interned key; a loop's calls
 * find their key by their binary arguments, the memo's section says how). In the text
 * format, lines are written into a 64 KiB buffer, flushed with
 * write(2) when it fills, at MPI_Finalize, at exit(), and on SIGTERM/SIGINT/SIGSEGV/SIGABRT/
 * SIGBUS/SIGHUP (then the previous disposition runs): a run that deadlocks and is killed
 * keeps every line up to the blocked calls. Beside the log, rank.<world rank>.now says which
 * call the process is in (mpisim record's stall watch) and loaded.<pid> names each process the
 * library was loaded into (to explain a run that leaves no log).
 *
 * Every call writes its entry line before it enters the library and a result line ("=")
 * when it returns, so a call still blocked when the process died has no result line.
 * Threads (MPI 4.1 §11.6): each call carries its thread, a small index kept in a thread-local
 * variable (0 for the thread that called MPI_Init/MPI_Init_thread, then 1, 2... in the order
 * of each thread's first logged call), as ` t=N` after its g= when N is not 0, and its g= is
 * the time since that thread's previous call returned (a thread's first: since MPI_Init
 * returned). Under MPI_THREAD_MULTIPLE (the level provided) a recursive mutex is held while
 * a call's entry and its result are made (never while it is in the library), and a text
 * log's call is written whole (entry and result lines) when it returns, the calls still in
 * progress (one per thread at most) at the log's end; at any other level no lock is taken
 * and nothing changes (one thread at a time calls MPI).
 *
 * Two blocks of this file are generated, each between its marker lines: the regular C
 * wrappers (sends, receives, counted and neighbourhood collectives in all their forms, the
 * one-sided operations and synchronizations, the file accesses) from the table of
 * mpisim/recorded/record/cwrappers.py, and the Fortran bindings from mpisim/recorded/record/fortran.py's.
 * Edit the tables and run `python -m mpisim.recorded.record.cwrappers` (or `.fortran`); the
 * logging helpers the generated wrappers call are written by hand below.
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
#define HAVE_MPI41 1
#else
#define HAVE_MPI41 0
#endif

/* ---- output buffer ---------------------------------------------------------------------- */
#define OUT_SIZE 65536
static char out[OUT_SIZE];
static size_t used;
static int fd = -1;
static pid_t log_pid;        /* the process whose log fd is (not a child of its fork()) */
/* Per thread (initial-exec: a few words each, no lookup call on the logging path). */
#define TLS __thread __attribute__((tls_model("initial-exec")))
static TLS int depth;        /* > 0 inside a logged call: nested MPI calls are not logged */
static TLS uint64_t last_exit;  /* when the thread's previous MPI call returned (ns) */
static TLS uint64_t entered;    /* when the thread's current call was entered (ns) */
static int threaded;         /* MPI_THREAD_MULTIPLE provided: logging takes the lock */
static pthread_mutex_t log_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
#define LOCK() do { if (threaded) pthread_mutex_lock(&log_lock); } while (0)
#define UNLOCK() do { if (threaded) pthread_mutex_unlock(&log_lock); } while (0)
static int world_rank = -1;
static int world_size = 0;
static char log_dir[4096];   /* $MPISIM_TRACE_DIR */
static char host[256];       /* gethostname(): the #host of this process's log */
/* Dynamic processes (MPI 4.1 §11.8): a process MPI_Comm_spawn started logs as
 * spawn.<ID>.rank.<its world rank>.log, ID the spawn that started it (see spawn_id_of). */
static char spawn_id[200];   /* "" in the processes mpiexec started */
static char log_prefix[224]; /* "" or "spawn.<ID>." before each file name */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void flush_out(void) {
    size_t done = 0;
    while (fd >= 0 && done < used) {
        ssize_t n = write(fd, out + done, used - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += (size_t)n;
    }
    used = 0;
}

/* The line of the current call is built in `line`; descriptions of handles first seen
 * (T, C and @ lines) go straight to the output, so they precede the call that names them. */
static char line[8192];
static size_t line_used;
static int in_line;

/* The compact format (below): 1 when $MPISIM_TRACE_FORMAT is "compact"; description lines
 * then go to the block being filled, the header (c_header) still as text. */
static int compact, c_header;
static void c_put_text(const char *s, size_t n);

static void put(const char *s, size_t n) {
    if (fd < 0) return;
    if (in_line) {
        if (line_used + n > sizeof line) n = sizeof line - line_used;
        memcpy(line + line_used, s, n);
        line_used += n;
        return;
    }
    if (compact && !c_header) { c_put_text(s, n); return; }
    if (used + n > OUT_SIZE) flush_out();
    if (n > OUT_SIZE) n = OUT_SIZE;
    memcpy(out + used, s, n);
    used += n;
}

static void puts_(const char *s) { put(s, strlen(s)); }

static void line_end(void) {
    in_line = 0;
    line[line_used < sizeof line ? line_used++ : sizeof line - 1] = '\n';
    put(line, line_used);
    line_used = 0;
}

/* putf formats %d %u %ld %lu %lld %llu %s %c %% itself (no flags, widths or precisions),
 * into one put: vsnprintf costs several times a call's logging. Any other conversion sends
 * the whole format to vsnprintf. */
static char *fmt_unsigned(char *o, unsigned long long v, int negative) {
    char digits[24], *p = digits + sizeof digits;
    do { *--p = (char)('0' + v % 10); v /= 10; } while (v);
    if (negative) *--p = '-';
    size_t n = (size_t)(digits + sizeof digits - p);
    memcpy(o, p, n);
    return o + n;
}

static void putf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void putf(const char *fmt, ...) {
    char tmp[512], *o = tmp, *stop = tmp + sizeof tmp - 24;
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    const char *f = fmt;
    for (; *f && o < stop; f++) {
        if (*f != '%') { *o++ = *f; continue; }
        int longs = 0;
        for (f++; *f == 'l'; f++) longs++;
        if (*f == 'd') {
            long long v = longs == 2 ? va_arg(ap, long long) : longs ? va_arg(ap, long) : va_arg(ap, int);
            o = fmt_unsigned(o, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v, v < 0);
        } else if (*f == 'u') {
            o = fmt_unsigned(o, longs == 2 ? va_arg(ap, unsigned long long) :
                                longs ? va_arg(ap, unsigned long) : va_arg(ap, unsigned), 0);
        } else if (*f == 's' && !longs) {
            const char *t = va_arg(ap, const char *);
            if (!t) t = "(null)";
            while (*t && o < stop) *o++ = *t++;
            if (*t) break;  /* longer than the buffer: vsnprintf's truncation */
        } else if (*f == 'c' && !longs) {
            *o++ = (char)va_arg(ap, int);
        } else if (*f == '%' && !longs) {
            *o++ = '%';
        } else {
            break;  /* a conversion of its own */
        }
    }
    va_end(ap);
    if (*f) {  /* not done: vsnprintf */
        int n = vsnprintf(tmp, sizeof tmp, fmt, again);
        va_end(again);
        if (n < 0) return;
        put(tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
        return;
    }
    va_end(again);
    put(tmp, (size_t)(o - tmp));
}

/* ---- the compact format: binary columns in compressed blocks ------------------------------
 * mpisim/recorded/read/compact.py specifies it. A call is a row of four numbers (its key's id,
 * ns outside MPI before it, ns inside it, its smallest request id) and its key, the text of
 * its two lines but those numbers, request ids relative to the smallest, interned here: a
 * loop's calls are one key. A block of c_rows_max rows (C_ROWS at most, fewer with many
 * processes: c_rows_for), the description lines written among them
 * and the keys first used in it is written with one write(2) when it fills, at
 * MPI_Finalize, at exit() and on a fatal signal (stored, not compressed, there: zlib's
 * allocations are not async-signal-safe), with the call in progress as a row without a
 * result. The blocks' index and the end line close the stream. Memory is static but the
 * key table, which grows with the distinct keys (in normal context only: a signal handler
 * finds room made for it). Without zlib (-DMPISIM_NO_ZLIB, or no zlib.h) blocks are stored. */
#if !defined(MPISIM_NO_ZLIB) && defined(__has_include)
#if __has_include(<zlib.h>)
#include <zlib.h>
#define HAVE_ZLIB 1
#endif
#endif
#ifndef HAVE_ZLIB
#define HAVE_ZLIB 0
#endif

#define C_ROWS 32768
#define C_TEXT 262144
#define C_TEXTS 8192
#define C_KEYS 262144
#define C_KEY_MAX (2 * 8192 + 2)
#define C_RAW (20 + C_ROWS * 28 + C_TEXTS * 4 + C_TEXT + C_KEYS)
#ifndef MPISIM_BLOCK_BUDGET  /* record/compact.py's BLOCK_BUDGET: the build passes it */
#define MPISIM_BLOCK_BUDGET 4194304
#endif
#ifndef MPISIM_BLOCK_FLOOR   /* record/compact.py's BLOCK_FLOOR: the build passes it */
#define MPISIM_BLOCK_FLOOR 2048
#endif
static uint32_t c_rows_max = C_ROWS;  /* rows a block holds (c_rows_for the world's size) */

/* Rows a block holds in a world of `size` processes: the reader's rule (compact.block_calls:
 * the budget shared among the processes, not below the floor), C_ROWS the static most. A
 * replay keeps two blocks of each process: their sum stays about the budget's. */
static uint32_t c_rows_for(int size) {
    uint64_t share = (uint64_t)MPISIM_BLOCK_BUDGET / (uint64_t)(size > 0 ? size : 1);
    if (share < (uint64_t)MPISIM_BLOCK_FLOOR) share = (uint64_t)MPISIM_BLOCK_FLOOR;
    if (share < 1) share = 1;
    return share < C_ROWS ? (uint32_t)share : C_ROWS;
}
static uint32_t c_key[C_ROWS];
static uint64_t c_gap[C_ROWS], c_dur[C_ROWS], c_base[C_ROWS];
static uint32_t c_rows, c_ntext, c_nnew, c_nkeys, c_tpos[C_TEXTS];
static char c_text[C_TEXT], c_new[C_KEYS];
static size_t c_text_len, c_text_done, c_new_len;
static uint64_t c_calls, c_offset;        /* calls in blocks written; bytes of the stream */
/* A thread's call in progress: its entry, kept until it returns (the compact format's, and
 * the text format's under MPI_THREAD_MULTIPLE); written without a result if the log ends
 * first. Thread 0's is static, the others' allocated at their first call. */
typedef struct {
    int tid, pending;
    size_t len;
    uint64_t gap, dur;
    const char *mtext;       /* an entry the memo gave (request ids relative to mbase), made */
    size_t mlen;             /* into `call` only when needed (pend_text) */
    uint64_t mbase;
    char call[C_KEY_MAX];
} pend_t;
#define MAX_THREADS 256      /* threads whose call in progress is written at the log's end */
static pend_t pend0, *pends[MAX_THREADS] = {&pend0};
static int n_threads = 1;
static uint64_t init_exit;   /* when MPI_Init returned: a new thread's first g= counts from it */
static TLS pend_t *pend;     /* the calling thread's (NULL: its first logged call is to come) */
#define c_call (pend->call)
#define c_call_len (pend->len)
#define c_pending (pend->pending)
#define c_pending_gap (pend->gap)
#define c_dur_now (pend->dur)
static int c_flushing, c_index_ok = 1;
static volatile sig_atomic_t c_in_signal;  /* a fatal signal's handler is writing the log */
#define W_SLOTS 2                          /* blocks handed to the writer thread, at most */
static uint64_t *c_index;                  /* (offset, first call) of each block */
static size_t c_nindex, c_index_cap;
static unsigned char c_raw[C_RAW];
#if HAVE_ZLIB
static unsigned char c_zip[C_RAW + C_RAW / 1000 + 64];
#endif

typedef struct { uint64_t hash; uint32_t id, off, len; } ckey_t;
static ckey_t *c_table;                    /* open addressing, at most half full */
static size_t c_table_cap;
static char *c_arena;
static size_t c_arena_len, c_arena_cap;

static uint32_t c_crc_table[256];
static uint32_t c_crc32(const unsigned char *p, size_t n) {
    if (!c_crc_table[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            c_crc_table[i] = c;
        }
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = c_crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

static void c_write(const void *p, size_t n) {
    const char *b = p;
    size_t done = 0;
    while (fd >= 0 && done < n) {
        ssize_t k = write(fd, b + done, n - done);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        done += (size_t)k;
    }
    c_offset += n;
}

/* Room for the next key and table entry, made ahead (never inside a signal handler). */
static int c_room(void) {
    if (c_arena_len + C_KEY_MAX > c_arena_cap) {
        size_t cap = c_arena_cap ? c_arena_cap * 2 : 1 << 20;
        char *a = realloc(c_arena, cap);
        if (!a) return 0;
        c_arena = a, c_arena_cap = cap;
    }
    if (2 * (c_nkeys + 1) > c_table_cap) {
        size_t cap = c_table_cap ? c_table_cap * 2 : 4096;
        ckey_t *t = calloc(cap, sizeof *t);
        if (!t) return 0;
        for (size_t i = 0; i < c_table_cap; i++) {
            if (!c_table[i].len) continue;
            size_t j = c_table[i].hash & (cap - 1);
            while (t[j].len) j = (j + 1) & (cap - 1);
            t[j] = c_table[i];
        }
        free(c_table);
        c_table = t, c_table_cap = cap;
    }
    if (c_nindex + W_SLOTS + 1 >= c_index_cap) {  /* (the writer's blocks' entries too) */
        size_t cap = c_index_cap ? c_index_cap * 2 : 1024;
        uint64_t *x = realloc(c_index, cap * 2 * sizeof *x);
        if (!x) return 0;
        c_index = x, c_index_cap = cap;
    }
    return 1;
}

static void c_flush(int zip);

/* The key's id; a new key is added to the block's new keys (-1: no room). */
static long c_intern(const char *k, size_t n) {
    uint64_t h = 1469598103934665603ull ^ n, w;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {  /* a word at a time */
        memcpy(&w, k + i, 8);
        h = (h ^ w) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
    }
    for (; i < n; i++) h = (h ^ (unsigned char)k[i]) * 1099511628211ull;
    if (!c_table_cap || c_arena_len + n > c_arena_cap) return -1;
    size_t j = h & (c_table_cap - 1);
    while (c_table[j].len) {
        if (c_table[j].hash == h && c_table[j].len == n + 1 &&
            memcmp(c_arena + c_table[j].off, k, n) == 0) return c_table[j].id;
        j = (j + 1) & (c_table_cap - 1);
    }
    if (c_new_len + n + 1 > C_KEYS) c_flush(!c_flushing);
    memcpy(c_arena + c_arena_len, k, n);
    c_table[j] = (ckey_t){h, c_nkeys, (uint32_t)c_arena_len, (uint32_t)(n + 1)};
    c_arena_len += n;
    memcpy(c_new + c_new_len, k, n);
    c_new[c_new_len + n] = '\n';
    c_new_len += n + 1;
    c_nnew++;
    return c_nkeys++;
}

/* A request id as the reader makes keys (read/columns.py, relative_requests): 1 to 18
 * digits, no leading zero. */
static int c_id(const char *p, size_t n, uint64_t *v) {
    if (n < 1 || n > 18 || p[0] == '0') return 0;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return 0;
        x = x * 10 + (uint64_t)(p[i] - '0');
    }
    *v = x;
    return 1;
}

/* `k` with the ids of its " r=" fields relative to the smallest (+1 for it) into `o`; the
 * smallest (0: none). */
static uint64_t c_relative(const char *k, size_t n, char *o, size_t *on) {
    uint64_t base = 0, v;
    for (int pass = 0; pass < 2; pass++) {
        size_t w = 0;
        for (size_t i = 0; i < n;) {
            if (i + 3 <= n && k[i] == ' ' && k[i + 1] == 'r' && k[i + 2] == '=') {
                size_t end = i + 3;
                while (end < n && k[end] != ' ' && k[end] != '\0') end++;
                if (pass) { memcpy(o + w, k + i, 3); w += 3; }
                for (size_t a = i + 3; a <= end;) {
                    size_t b = a;
                    while (b < end && k[b] != ',') b++;
                    int id = c_id(k + a, b - a, &v);
                    if (!pass && id && (!base || v < base)) base = v;
                    if (pass) {
                        if (id) w += (size_t)snprintf(o + w, 24, "+%llu",
                                                      (unsigned long long)(v - base + 1));
                        else { memcpy(o + w, k + a, b - a); w += b - a; }
                        if (b < end) o[w++] = ',';
                    }
                    a = b + 1;
                }
                i = end;
            } else {
                if (pass) o[w++] = k[i];
                i++;
            }
        }
        if (!base) { memcpy(o, k, n); *on = n; return 0; }
        *on = w;
    }
    return base;
}

static uint64_t c_row_base;  /* the base of the row c_row stored last */

/* A call's row from its key's text; the key's id (-1: not logged). */
static long c_row(const char *k, size_t n, uint64_t gap, uint64_t dur) {
    static char rel[C_KEY_MAX * 2];
    size_t rn = n;
    uint64_t base = 0;
    int requests = 0;
    for (size_t i = 1; i + 1 < n && !requests; i++)
        requests = k[i] == 'r' && k[i + 1] == '=' && k[i - 1] == ' ';
    if (requests) {
        base = c_relative(k, n, rel, &rn);
        k = rel;
    }
    long id = c_intern(k, rn);
    if (id < 0) return -1;  /* no memory for the key: the call is not logged */
    c_key[c_rows] = (uint32_t)id;
    c_gap[c_rows] = gap;
    c_dur[c_rows] = dur;
    c_base[c_rows] = c_row_base = base;
    c_rows++;
    if (c_rows >= c_rows_max) c_flush(!c_flushing);
    if (!c_flushing) c_room();
    return id;
}

/* A call's row from its key's id (the memo's hit: the key is interned already). */
static void c_row_id(uint32_t id, uint64_t gap, uint64_t dur, uint64_t base) {
    c_key[c_rows] = id;
    c_gap[c_rows] = gap;
    c_dur[c_rows] = dur;
    c_base[c_rows] = base;
    if (++c_rows >= c_rows_max) {
        c_flush(!c_flushing);
        if (!c_flushing) c_room();
    }
}

/* `k` with the relative request ids of its " r=" fields ("+N") made absolute again from
 * `base` (c_relative's inverse) into `o` of `size` bytes; its length. No allocation, no
 * stdio: it runs in a signal handler too. */
static size_t c_absolute(const char *k, size_t n, uint64_t base, char *o, size_t size) {
    size_t w = 0;
    int field = 0;  /* inside an r= field */
    for (size_t i = 0; i < n && w + 24 < size; i++) {
        if (k[i] == ' ' || k[i] == '\0') field = 0;
        if (i + 3 <= n && k[i] == ' ' && k[i + 1] == 'r' && k[i + 2] == '=') {
            field = 1;
            memcpy(o + w, k + i, 3);
            w += 3, i += 2;
            continue;
        }
        if (field && base && k[i] == '+' && (i == 0 || k[i - 1] == '=' || k[i - 1] == ',')) {
            uint64_t v = 0;
            size_t j = i + 1;
            for (; j < n && k[j] >= '0' && k[j] <= '9'; j++) v = v * 10 + (uint64_t)(k[j] - '0');
            o[w] = 0;
            w = (size_t)(fmt_unsigned(o + w, (unsigned long long)(base + v - 1), 0) - o);
            i = j - 1;
            continue;
        }
        o[w++] = k[i];
    }
    return w;
}

/* A call in progress whose entry the memo gave: its text made, as the call would have. */
static void pend_text(pend_t *p) {
    if (!p->mtext) return;
    p->len = c_absolute(p->mtext, p->mlen, p->mbase, p->call, sizeof p->call);
    p->mtext = NULL;
}

/* Description lines (T, @, C, #) while a block fills: each before the calls to come. */
static void c_put_text(const char *s, size_t n) {
    size_t lines = 0;  /* room first, for the bytes and the lines this piece ends: a flush
                        * keeps a line in progress, never one half copied */
    for (size_t i = 0; i < n; i++) lines += s[i] == '\n';
    if (c_text_len + n > C_TEXT || c_ntext + lines > C_TEXTS) c_flush(!c_flushing);
    if (c_text_len + n > C_TEXT || c_ntext + lines > C_TEXTS) return;
    memcpy(c_text + c_text_len, s, n);
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\n') continue;
        c_tpos[c_ntext++] = c_rows;
        c_text_done = c_text_len + i + 1;
    }
    c_text_len += n;
}

static unsigned char *c_column(unsigned char *p, const uint64_t *v, uint32_t n, uint8_t *width) {
    uint64_t top = 0;
    for (uint32_t i = 0; i < n; i++) top = v[i] > top ? v[i] : top;
    int w = !top ? 0 : top < 1u << 8 ? 1 : top < 1u << 16 ? 2 : top < 1ull << 32 ? 4 : 8;
    *width = (uint8_t)w;
    for (int b = 0; b < w; b++)
        for (uint32_t i = 0; i < n; i++) *p++ = (unsigned char)(v[i] >> (8 * b));
    return p;
}

static void c_put32(unsigned char *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i)); }
static void c_put64(unsigned char *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i)); }

/* A block's content: its rows' columns, its whole description lines (and the row each
 * comes before), the keys first used in it; its first call's number, the keys before it. */
typedef struct {
    const uint32_t *key, *tpos;
    const uint64_t *gap, *dur, *base;
    const char *text, *keys;
    uint32_t n, ntext, nnew, keys_before;
    size_t text_len, keys_len;
    uint64_t first;
} c_block_t;

/* Encode, compress (zip) and write one block; its offset in the stream. One thread at a
 * time: the writer thread, or a calling thread once the writer has written all it was
 * given (c_drain). */
static uint64_t c_emit(const c_block_t *b, int zip) {
    static uint64_t keys[C_ROWS];
    uint32_t n = b->n;
    unsigned char *p = c_raw + 20;
    uint8_t widths[4];
    for (uint32_t i = 0; i < n; i++) keys[i] = b->key[i];
    p = c_column(p, keys, n, &widths[0]);
    p = c_column(p, b->gap, n, &widths[1]);
    p = c_column(p, b->dur, n, &widths[2]);
    p = c_column(p, b->base, n, &widths[3]);
    for (uint32_t i = 0; i < b->ntext; i++, p += 4) c_put32(p, b->tpos[i]);
    memcpy(p, b->text, b->text_len);
    p += b->text_len;
    memcpy(p, b->keys, b->keys_len);
    p += b->keys_len;
    memcpy(c_raw, widths, 4);
    c_put32(c_raw + 4, b->ntext);
    c_put32(c_raw + 8, b->nnew);
    c_put32(c_raw + 12, (uint32_t)b->text_len);
    c_put32(c_raw + 16, (uint32_t)b->keys_len);
    size_t raw = (size_t)(p - c_raw), stored = raw;
    const unsigned char *body = c_raw;
    int codec = 0;
#if HAVE_ZLIB
    uLongf zlen = sizeof c_zip;
    if (zip && compress2(c_zip, &zlen, c_raw, raw, 1) == Z_OK) body = c_zip, stored = zlen, codec = 1;
#else
    (void)zip;
#endif
    unsigned char frame[32] = {0xff, 'B', (unsigned char)codec, 0};
    c_put32(frame + 4, (uint32_t)stored);
    c_put32(frame + 8, (uint32_t)raw);
    c_put64(frame + 12, b->first);
    c_put32(frame + 20, n);
    c_put32(frame + 24, b->keys_before);
    c_put32(frame + 28, c_crc32(body, stored));
    uint64_t at = c_offset;
    c_write(frame, sizeof frame);
    c_write(body, stored);
    return at;
}

/* A block's entry in the index (made room for by c_room). */
static void c_index_add(uint64_t at, uint64_t first) {
    if (c_nindex < c_index_cap) {
        c_index[2 * c_nindex] = at;
        c_index[2 * c_nindex + 1] = first;
        c_nindex++;
    } else {
        c_index_ok = 0;
    }
}

/* ---- the writer thread -------------------------------------------------------------------
 * Encoding and compressing a full block (zlib at level 1: about 50 instructions a byte of
 * its columns, python -m bench.recorder) and writing it are done by a thread of the
 * recorder's own, so that the calling thread only copies the block's columns, lines and new
 * keys into one of W_SLOTS slots and goes on with a fresh block; it waits only when the
 * writer is W_SLOTS blocks behind. The writer never calls MPI, blocks every signal, takes
 * no lock (the slots are handed over with two semaphores) and never allocates but in zlib,
 * in its own thread; the block index is kept by the calling thread (under the log's lock,
 * so one at a time under MPI_THREAD_MULTIPLE), from the offset the writer leaves in each
 * slot. Every path that ends a log first waits until the writer has written every block it
 * was given (c_drain: at exit, in MPI_Finalize and MPI_Abort, in a fatal signal's handler,
 * which the stall watch's SIGTERM is, spinning there at most about 4 s), then writes the
 * rest itself, in order. The thread is started at the first full block (a short run never
 * makes one); a child of fork() has none (pthread_atfork) and starts its own when it fills
 * a block. $MPISIM_NO_WRITER=1 writes each block on the calling thread: the recording is
 * the same, byte for byte after decompression. */
typedef struct {
    uint32_t key[C_ROWS], tpos[C_TEXTS];
    uint64_t gap[C_ROWS], dur[C_ROWS], base[C_ROWS];
    char text[C_TEXT], keys[C_KEYS];
    c_block_t b;
    uint64_t at;       /* its offset in the stream, once written */
} w_slot_t;
static w_slot_t *w_slots;
static int w_on = 1;                        /* not $MPISIM_NO_WRITER */
static int w_running;                       /* this process's writer started */
static sem_t w_full, w_free;                /* blocks to write; slots free */
static uint64_t w_queued, w_indexed;        /* blocks handed over; their index entries made */
static uint64_t w_written;                  /* blocks written (atomic: the writer's) */
static int w_stuck;                         /* it did not finish for a signal's handler */

static void *w_main(void *arg) {
    (void)arg;
    for (uint64_t k = 0;; k++) {
        while (sem_wait(&w_full) != 0) { /* EINTR */ }
        w_slot_t *slot = &w_slots[k % W_SLOTS];
        slot->at = c_emit(&slot->b, 1);
        __atomic_store_n(&w_written, k + 1, __ATOMIC_RELEASE);
        sem_post(&w_free);
    }
    return NULL;
}

/* In a child of fork(): no writer (the blocks handed over are the parent's to write). */
static void w_forked(void) { w_running = 0; }

/* The writer, started at the first full block (0: none, the block is written here). */
static int w_start(void) {
    static int atfork;
    if (w_running) return 1;
    if (!w_on || c_in_signal) return 0;
    if (!w_slots && !(w_slots = malloc(W_SLOTS * sizeof *w_slots))) return w_on = 0;
    w_queued = w_indexed = 0;
    __atomic_store_n(&w_written, 0, __ATOMIC_RELEASE);
    if (sem_init(&w_full, 0, 0) != 0 || sem_init(&w_free, 0, W_SLOTS) != 0) return w_on = 0;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);  /* inherited: the writer takes no signal */
    pthread_t t;
    int rc = pthread_create(&t, NULL, w_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) return w_on = 0;
    pthread_detach(t);
    if (!atfork) atfork = pthread_atfork(NULL, NULL, w_forked) == 0;
    return w_running = 1;
}

/* The index entries of the blocks the writer has written since the last look. */
static void w_index(void) {
    uint64_t done = __atomic_load_n(&w_written, __ATOMIC_ACQUIRE);
    for (; w_indexed < done; w_indexed++) {
        const w_slot_t *slot = &w_slots[w_indexed % W_SLOTS];
        c_index_add(slot->at, slot->b.first);
    }
}

/* The block being filled handed to the writer (waiting for a free slot). */
static void w_hand(const c_block_t *b) {
    while (sem_wait(&w_free) != 0) { /* EINTR */ }
    w_index();  /* (the slot's block before is written: its entry first) */
    w_slot_t *slot = &w_slots[w_queued % W_SLOTS];
    memcpy(slot->key, b->key, b->n * sizeof *b->key);
    memcpy(slot->gap, b->gap, b->n * sizeof *b->gap);
    memcpy(slot->dur, b->dur, b->n * sizeof *b->dur);
    memcpy(slot->base, b->base, b->n * sizeof *b->base);
    memcpy(slot->tpos, b->tpos, b->ntext * sizeof *b->tpos);
    memcpy(slot->text, b->text, b->text_len);
    memcpy(slot->keys, b->keys, b->keys_len);
    slot->b = *b;
    slot->b.key = slot->key, slot->b.gap = slot->gap, slot->b.dur = slot->dur;
    slot->b.base = slot->base, slot->b.tpos = slot->tpos;
    slot->b.text = slot->text, slot->b.keys = slot->keys;
    w_queued++;
    sem_post(&w_full);
}

/* Wait until the writer has written every block it was given, and index them: 1 then, 0
 * when it did not within about 4 s in a signal handler (async-signal-safe: a spin). */
static int c_drain(void) {
    struct timespec tick = {0, 100000};
    if (!w_running) return 1;
    if (w_stuck) return 0;
    for (long i = 0; __atomic_load_n(&w_written, __ATOMIC_ACQUIRE) != w_queued; i++) {
        if (c_in_signal && i > 40000) return !(w_stuck = 1);
        nanosleep(&tick, NULL);
    }
    w_index();
    return 1;
}

/* Write the block (its rows, its whole text lines, its new keys); zip: compress it (by the
 * writer thread, or here once it has written what it was given). */
static void c_flush(int zip) {
    uint32_t n = c_rows, ntext = c_ntext;
    if (fd < 0 || (!n && !ntext && !c_nnew)) return;
    c_flushing++;
    c_block_t b = {c_key, c_tpos, c_gap, c_dur, c_base, c_text, c_new, n, ntext, c_nnew,
                   c_nkeys - c_nnew, c_text_done, c_new_len, c_calls};
    if (zip && !c_in_signal && w_start()) {
        w_hand(&b);
    } else if (c_drain()) {
        uint64_t at = c_emit(&b, zip);
        c_index_add(at, c_calls);
    }  /* (else the writer did not finish for a signal's handler: nothing more written) */
    c_calls += n;
    c_rows = c_ntext = c_nnew = 0;
    c_new_len = 0;
    memmove(c_text, c_text + c_text_done, c_text_len - c_text_done);  /* a line in progress */
    c_text_len -= c_text_done;
    c_text_done = 0;
    c_flushing--;
}

/* The call in progress as a row without a result (a process that ends inside it). */
static void c_unreturned(void) {
    for (int i = 0; i < n_threads && i < MAX_THREADS; i++) {
        pend_t *p = pends[i];
        if (!p || !p->pending) continue;
        p->pending = 0;
        pend_text(p);
        c_row(p->call, p->len, p->gap, 0);
    }
}

/* The text format under MPI_THREAD_MULTIPLE: each thread's call in progress as an entry line
 * without its result (the log ends inside it). */
static void t_unreturned(void) {
    for (int i = 0; i < n_threads && i < MAX_THREADS; i++) {
        pend_t *p = pends[i];
        if (!p || !p->pending) continue;
        p->pending = 0;
        put(p->call, p->len);
        put("\n", 1);
    }
}

/* A thread's first logged call numbers it (under the lock): 1, 2... in that order. */
static void new_thread(void) {
    pend_t *p = calloc(1, sizeof *p);
    if (!p) p = &pend0;  /* out of memory: shares thread 0's (its lines may mix) */
    else p->tid = n_threads++;
    if (p->tid < MAX_THREADS) pends[p->tid] = p;
    pend = p;
    last_exit = init_exit;
}

/* The stream's end: the last block, the index, the end line ("# exit g=NS"...; NULL: none). */
static void c_finish(const char *end, int zip) {
    c_unreturned();
    c_flush(zip);
    if (!c_drain()) return;  /* (a writer that did not finish in a signal handler) */
    if (c_index_ok && c_index) {
        unsigned char head[8] = {0xff, 'X', 0, 0}, crc[4];
        size_t bytes = c_nindex * 16;
        unsigned char *entries = (unsigned char *)c_index;
        for (size_t i = 0; i < 2 * c_nindex; i++) c_put64(entries + 8 * i, c_index[i]);
        c_put32(head + 4, (uint32_t)c_nindex);
        c_put32(crc, c_crc32(entries, bytes));
        c_write(head, sizeof head);
        c_write(entries, bytes);
        c_write(crc, sizeof crc);
        c_index_ok = 0;  /* written once */
    }
    if (end) {
        c_write("\n", 1);
        c_write(end, strlen(end));
        c_write("\n", 1);
    }
}

/* ---- handle tables (handles are ints in MPICH, pointers in Open MPI: keyed by their bits) */
#define TABLE 4096
typedef struct { uint64_t key; int id; char kind; char used; } slot_t;
static slot_t comms[TABLE], types[TABLE], reqs[TABLE];
static int next_comm = 2, next_type = 1, next_req = 1;

static uint64_t key_of(const void *h, size_t n) {
    uint64_t k = 0;
    memcpy(&k, h, n < sizeof k ? n : sizeof k);
    return k;
}
#define KEY(h) key_of(&(h), sizeof(h))

static slot_t *lookup(slot_t *t, uint64_t key, int create) {
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 52) % TABLE;
    slot_t *tomb = NULL;
    for (size_t probes = 0; probes < TABLE; probes++, i = (i + 1) % TABLE) {
        if (t[i].used == 1 && t[i].key == key) return &t[i];
        if (t[i].used == 2 && !tomb) tomb = &t[i];
        if (t[i].used == 0) {
            if (!create) return NULL;
            slot_t *s = tomb ? tomb : &t[i];
            s->key = key; s->used = 1; s->id = 0; s->kind = 0;
            return s;
        }
    }
    if (create && tomb) { tomb->key = key; tomb->used = 1; tomb->id = 0; tomb->kind = 0; return tomb; }
    return NULL;
}

static slot_t ops_t[TABLE];
static void memo_clear(void);

/* A handle forgotten (freed: its bits may come back as another object). The memo keys
 * operations by their bits: it is cleared (communicators and datatypes it keys by id). */
static void forget(slot_t *t, uint64_t key) {
    slot_t *s = lookup(t, key, 0);
    if (s) s->used = 2;
    if (t == ops_t) memo_clear();
}

/* ---- communicators ------------------------------------------------------------------- */
static int comm_id(MPI_Comm c) {
    if (c == MPI_COMM_WORLD) return 0;
    if (c == MPI_COMM_SELF) return 1;
    if (c == MPI_COMM_NULL) return -1;
    slot_t *s = lookup(comms, KEY(c), 1);
    if (!s) return -2;
    if (s->id == 0) {  /* made by a call this library does not log: described once */
        int size = 0, rank = 0;
        s->id = next_comm++;
        PMPI_Comm_size(c, &size);
        PMPI_Comm_rank(c, &rank);
        { int was = in_line; in_line = 0; putf("C %d size=%d rank=%d origin=unlogged\n", s->id, size, rank); in_line = was; }
    }
    return s->id;
}

static int new_comm(MPI_Comm c) {
    if (c == MPI_COMM_NULL) return -1;
    slot_t *s = lookup(comms, KEY(c), 1);
    if (!s) return -2;
    s->id = next_comm++;
    return s->id;
}

/* ---- datatypes: described once, never expanded ---------------------------------------- */
static const char *combiner_name(int c) {
    switch (c) {
    case MPI_COMBINER_NAMED: return "named";
    case MPI_COMBINER_DUP: return "dup";
    case MPI_COMBINER_CONTIGUOUS: return "contiguous";
    case MPI_COMBINER_VECTOR: return "vector";
    case MPI_COMBINER_HVECTOR: return "hvector";
    case MPI_COMBINER_INDEXED: return "indexed";
    case MPI_COMBINER_HINDEXED: return "hindexed";
    case MPI_COMBINER_INDEXED_BLOCK: return "indexed_block";
    case MPI_COMBINER_STRUCT: return "struct";
    case MPI_COMBINER_SUBARRAY: return "subarray";
    case MPI_COMBINER_DARRAY: return "darray";
    case MPI_COMBINER_RESIZED: return "resized";
    default: return "other";
    }
}

/* A derived type's type signature (MPI 4.1 §3.3.1): its basic types in order, as runs
 * NAME*COPIES (sig=MPI_INT*4,MPI_DOUBLE*1), read from MPI_Type_get_contents, so that a replay
 * compares what a send gives with what its receive expects as the standard does. Left out
 * when it would take more than SIG_RUNS runs or a combiner the walk does not follow
 * (darray): the replay then never compares that type. */
#define SIG_RUNS 32
#define SIG_DEPTH 8
typedef struct { MPI_Datatype t; long long n; } run_t;

static int sig_push(run_t *out, int *nr, MPI_Datatype t, long long n) {
    if (n <= 0) return 1;
    if (*nr > 0 && out[*nr - 1].t == t) { out[*nr - 1].n += n; return 1; }
    if (*nr >= SIG_RUNS) return 0;
    out[*nr].t = t;
    out[*nr].n = n;
    (*nr)++;
    return 1;
}

/* `times` copies of the runs `in` appended to `out`. */
static int sig_times(run_t *out, int *nr, const run_t *in, int nin, long long times) {
    if (nin == 1) return sig_push(out, nr, in[0].t, in[0].n * times);
    for (long long k = 0; k < times; k++)
        for (int i = 0; i < nin; i++)
            if (!sig_push(out, nr, in[i].t, in[i].n)) return 0;
    return 1;
}

static int sig_of(MPI_Datatype t, run_t *out, int *nr, int depth);

/* `times` copies of one element of `t` appended to `out`. */
static int sig_child(MPI_Datatype t, long long times, run_t *out, int *nr, int depth) {
    run_t inner[SIG_RUNS];
    int ni = 0;
    if (times <= 0) return 1;
    if (!sig_of(t, inner, &ni, depth + 1)) return 0;
    return sig_times(out, nr, inner, ni, times);
}

static int sig_of(MPI_Datatype t, run_t *out, int *nr, int depth) {
    int ni, na, nd, comb, ok = 1;
    if (depth > SIG_DEPTH) return 0;
    PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED) return sig_push(out, nr, t, 1);
    int *is = malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint *as = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype *ts = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    PMPI_Type_get_contents(t, ni, na, nd, is, as, ts);
    long long total = 0;
    switch (comb) {
    case MPI_COMBINER_DUP: case MPI_COMBINER_RESIZED:
        ok = sig_child(ts[0], 1, out, nr, depth); break;
    case MPI_COMBINER_CONTIGUOUS:
        ok = sig_child(ts[0], is[0], out, nr, depth); break;
    case MPI_COMBINER_VECTOR: case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_INDEXED_BLOCK: case MPI_COMBINER_HINDEXED_BLOCK:
        ok = sig_child(ts[0], (long long)is[0] * is[1], out, nr, depth); break;
    case MPI_COMBINER_INDEXED: case MPI_COMBINER_HINDEXED:
        for (int i = 0; i < is[0]; i++) total += is[1 + i];
        ok = sig_child(ts[0], total, out, nr, depth); break;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < is[0] && ok; i++) ok = sig_child(ts[i], is[1 + i], out, nr, depth);
        break;
    case MPI_COMBINER_SUBARRAY:
        total = 1;
        for (int i = 0; i < is[0]; i++) total *= is[1 + is[0] + i];
        ok = sig_child(ts[0], total, out, nr, depth); break;
    default:
        ok = 0;
    }
    for (int i = 0; i < nd; i++) {  /* the derived types get_contents handed back */
        int ci, ca, cd, cc;
        PMPI_Type_get_envelope(ts[i], &ci, &ca, &cd, &cc);
        if (cc != MPI_COMBINER_NAMED) PMPI_Type_free(&ts[i]);
    }
    free(is); free(as); free(ts);
    return ok;
}

static void put_signature(MPI_Datatype t) {
    run_t runs[SIG_RUNS];
    int nr = 0;
    if (!sig_of(t, runs, &nr, 0) || nr == 0) return;
    putf(" sig=");
    for (int i = 0; i < nr; i++) {
        char name[MPI_MAX_OBJECT_NAME + 1] = "";
        int len = 0;
        PMPI_Type_get_name(runs[i].t, name, &len);
        for (char *p = name; *p; p++) if (*p == ' ' || *p == ',' || *p == '*') *p = '_';
        putf("%s%s*%lld", i ? "," : "", name[0] ? name : "?", runs[i].n);
    }
}

static int type_id(MPI_Datatype t) {
    if (t == MPI_DATATYPE_NULL) return 0;
    slot_t *s = lookup(types, KEY(t), 1);
    if (!s) return -1;
    if (s->id == 0) {
        int size = 0, len = 0, ni, na, nd, comb;
        MPI_Aint lb = 0, extent = 0;
        char name[MPI_MAX_OBJECT_NAME + 1] = "";
        s->id = next_type++;
        PMPI_Type_size(t, &size);
        PMPI_Type_get_extent(t, &lb, &extent);
        PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
        if (comb == MPI_COMBINER_NAMED) PMPI_Type_get_name(t, name, &len);
        for (char *p = name; *p; p++) if (*p == ' ') *p = '_';
        int was = in_line;
        in_line = 0;
        putf("T %d size=%d extent=%ld lb=%ld kind=%s%s%s", s->id, size, (long)extent,
             (long)lb, combiner_name(comb), name[0] ? " name=" : "", name);
        if (comb != MPI_COMBINER_NAMED) put_signature(t);
        puts_("\n");
        in_line = was;
    }
    return s->id;
}

/* ---- reduction operations (MPI 4.1 §6.9.2): predefined ones by name, NULL for MPI_OP_NULL,
 * user ones numbered when MPI_Op_create made them (u1, u2...; "user" for one made before the
 * log started), so that a replay can compare the ops a collective's members gave ---------- */
static int next_op = 1;

static const char *op_name(MPI_Op op) {
    static const struct { MPI_Op op; const char *name; } ops[] = {
        {MPI_SUM, "SUM"}, {MPI_PROD, "PROD"}, {MPI_MAX, "MAX"}, {MPI_MIN, "MIN"},
        {MPI_LAND, "LAND"}, {MPI_LOR, "LOR"}, {MPI_LXOR, "LXOR"}, {MPI_BAND, "BAND"},
        {MPI_BOR, "BOR"}, {MPI_BXOR, "BXOR"}, {MPI_MAXLOC, "MAXLOC"}, {MPI_MINLOC, "MINLOC"},
        {MPI_REPLACE, "REPLACE"}, {MPI_NO_OP, "NO_OP"}};
    static char user[32];
    if (op == MPI_OP_NULL) return "NULL";
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) if (ops[i].op == op) return ops[i].name;
    slot_t *s = lookup(ops_t, KEY(op), 0);
    if (!s) return "user";
    snprintf(user, sizeof user, "u%d", s->id);
    return user;
}

static void put_op(MPI_Op op) { putf(" op=%s", op_name(op)); }

/* ---- requests: numbered when made, so that waits name them ----------------------------
 * A library may hand out one handle for several live requests: MPICH gives a request that
 * completed at once (an MPI_Rput to a process of the same node) a built-in handle, the same
 * for all of them. A handle made again while its request is live keeps its ids in creation
 * order (the first in its slot, the others in `twins`); a call naming it takes them oldest
 * first, and completing it moves the next one into the slot. Persistent requests are never
 * shared. */
#define TWINS 256
static struct { uint64_t key; int id; char kind; } twins[TWINS];
static int n_twins;

static int is_persistent(char k);

static void buf_keep(int id, char kind);
static int req_number(MPI_Request r, char kind);
static int req_new(MPI_Request r, char kind) {
    int id = req_number(r, kind);
    if (id > 0 && kind && strchr("srSRcPx", kind)) buf_keep(id, kind);
    return id;
}

static int req_number(MPI_Request r, char kind) {
    if (r == MPI_REQUEST_NULL) return 0;
    slot_t *s = lookup(reqs, KEY(r), 1);
    if (!s) return -1;
    if (s->id != 0 && !is_persistent(kind) && !is_persistent(s->kind) && n_twins < TWINS) {
        twins[n_twins].key = KEY(r);
        twins[n_twins].kind = kind;
        twins[n_twins].id = next_req++;
        return twins[n_twins++].id;
    }
    s->id = next_req++;
    s->kind = kind;
    return s->id;
}

static slot_t *req_slot(MPI_Request r) {
    return r == MPI_REQUEST_NULL ? NULL : lookup(reqs, KEY(r), 0);
}

/* The id of the `nth` live request (0: the slot's) of the handle `key`, -1 if none. */
static int req_twin(uint64_t key, int nth, char *kind) {
    for (int i = 0; i < n_twins; i++)
        if (twins[i].key == key && --nth == 0) { *kind = twins[i].kind; return twins[i].id; }
    return -1;
}

/* A request completed or freed: its handle's next live request takes the slot. */
static void req_done(MPI_Request r) {
    uint64_t key = KEY(r);
    slot_t *s = lookup(reqs, key, 0);
    for (int i = 0; s && i < n_twins; i++) {
        if (twins[i].key != key) continue;
        s->id = twins[i].id;
        s->kind = twins[i].kind;
        memmove(&twins[i], &twins[i + 1], sizeof twins[0] * (size_t)(n_twins - i - 1));
        n_twins--;
        return;
    }
    forget(reqs, key);
}

/* kind: 's' send, 'r' receive, 'S'/'R' persistent, 'c' collective, 'P' persistent collective,
 * 'f' flush, 'o' a one-sided operation's (MPI_Rput...), 'i' a file access's (MPI_File_iread...),
 * 'x' an MPI_Isendrecv's */
static int is_persistent(char k) { return k == 'S' || k == 'R' || k == 'P'; }

/* Whether a completed request of kind k has a status worth logging: a receive's. Not an
 * MPI_Isendrecv's (kind 'x'): MPI 4.1 §3.10 makes it the receive's, but MPICH 5.0.2 gives
 * the source and tag of another message (measured), so a replay would be held to them. */
static int gives_status(char k) { return k == 'r' || k == 'R'; }

/* ---- call sites: the caller's return address, resolved once with dladdr --------------- */
#define SITES 1024
static struct { void *addr; int id; } sites[SITES];
static int next_site = 1;

static int site_id(void *addr) {
    size_t i = ((uintptr_t)addr >> 2) % SITES;
    for (size_t n = 0; n < SITES; n++, i = (i + 1) % SITES) {
        if (sites[i].addr == addr) return sites[i].id;
        if (sites[i].addr == NULL) break;
    }
    if (sites[i].addr != NULL) return 0;  /* table full: no site */
    sites[i].addr = addr;
    sites[i].id = next_site++;
    Dl_info info;
    if (dladdr(addr, &info) && info.dli_fname) {
        uintptr_t off = (uintptr_t)addr - (uintptr_t)info.dli_fbase;
        if (info.dli_sname)
            putf("@ %d %s 0x%lx %s+0x%lx\n", sites[i].id, info.dli_fname, (unsigned long)off,
                 info.dli_sname, (unsigned long)((uintptr_t)addr - (uintptr_t)info.dli_saddr));
        else
            putf("@ %d %s 0x%lx\n", sites[i].id, info.dli_fname, (unsigned long)off);
    } else {
        putf("@ %d ? 0x%lx\n", sites[i].id, (unsigned long)(uintptr_t)addr);
    }
    return sites[i].id;
}

/* ---- peers, tags, statuses in the log's words -------------------------------------------- */
static void put_peer(const char *key, int peer) {
    if (peer == MPI_ANY_SOURCE) putf(" %s=A", key);
    else if (peer == MPI_PROC_NULL) putf(" %s=N", key);
    else putf(" %s=%d", key, peer);
}

static void put_tag(const char *key, int tag) {
    if (tag == MPI_ANY_TAG) putf(" %s=A", key);
    else putf(" %s=%d", key, tag);
}

static void put_status_body(const MPI_Status *st) {
    int bytes = 0;
    PMPI_Get_count(st, MPI_BYTE, &bytes);
    if (st->MPI_SOURCE == MPI_PROC_NULL) puts_("N");
    else if (st->MPI_SOURCE == MPI_ANY_SOURCE) puts_("A");
    else putf("%d", st->MPI_SOURCE);
    if (st->MPI_TAG == MPI_ANY_TAG) puts_(":A");
    else putf(":%d", st->MPI_TAG);
    putf(":%d", bytes);
}

static void put_status(const MPI_Status *st) {
    puts_(" st=");
    put_status_body(st);
}

static const char *error_name(int rc) {
    int cls = rc;
    PMPI_Error_class(rc, &cls);
    switch (cls) {
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_TAG: return "MPI_ERR_TAG";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_RANK: return "MPI_ERR_RANK";
    case MPI_ERR_REQUEST: return "MPI_ERR_REQUEST";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_PENDING: return "MPI_ERR_PENDING";
    case MPI_ERR_IN_STATUS: return "MPI_ERR_IN_STATUS";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN";
    case MPI_ERR_OP: return "MPI_ERR_OP";
    case MPI_ERR_GROUP: return "MPI_ERR_GROUP";
    case MPI_ERR_TOPOLOGY: return "MPI_ERR_TOPOLOGY";
    case MPI_ERR_DIMS: return "MPI_ERR_DIMS";
    case MPI_ERR_INFO: return "MPI_ERR_INFO";
    case MPI_ERR_WIN: return "MPI_ERR_WIN";
    case MPI_ERR_DISP: return "MPI_ERR_DISP";
    case MPI_ERR_RMA_SYNC: return "MPI_ERR_RMA_SYNC";
    case MPI_ERR_KEYVAL: return "MPI_ERR_KEYVAL";
    /* MPI-IO (MPI 4.1 §14.7) */
    case MPI_ERR_FILE: return "MPI_ERR_FILE";
    case MPI_ERR_NOT_SAME: return "MPI_ERR_NOT_SAME";
    case MPI_ERR_AMODE: return "MPI_ERR_AMODE";
    case MPI_ERR_UNSUPPORTED_DATAREP: return "MPI_ERR_UNSUPPORTED_DATAREP";
    case MPI_ERR_UNSUPPORTED_OPERATION: return "MPI_ERR_UNSUPPORTED_OPERATION";
    case MPI_ERR_NO_SUCH_FILE: return "MPI_ERR_NO_SUCH_FILE";
    case MPI_ERR_FILE_EXISTS: return "MPI_ERR_FILE_EXISTS";
    case MPI_ERR_BAD_FILE: return "MPI_ERR_BAD_FILE";
    case MPI_ERR_ACCESS: return "MPI_ERR_ACCESS";
    case MPI_ERR_NO_SPACE: return "MPI_ERR_NO_SPACE";
    case MPI_ERR_QUOTA: return "MPI_ERR_QUOTA";
    case MPI_ERR_READ_ONLY: return "MPI_ERR_READ_ONLY";
    case MPI_ERR_FILE_IN_USE: return "MPI_ERR_FILE_IN_USE";
    case MPI_ERR_DUP_DATAREP: return "MPI_ERR_DUP_DATAREP";
    case MPI_ERR_CONVERSION: return "MPI_ERR_CONVERSION";
    case MPI_ERR_IO: return "MPI_ERR_IO";
    default: return "MPI_ERR_OTHER";
    }
}

/* ---- where the process is, for mpisim record's stall watch ----------------------------------
 * $MPISIM_TRACE_DIR/rank.<N>.now is a shared mapping of `now_t`: each logged call writes its
 * name, sets `inside` and bumps `seq` when it enters, and clears `inside` when it returns
 * (plain stores, no system call). mpisim record reads the files: a process whose `seq` has not
 * changed while `inside` stayed set has waited in that one call since. */
typedef struct { char magic[8]; volatile uint64_t seq; volatile uint64_t inside; char call[40]; } now_t;
static now_t *now_at;
static const char *now_call;  /* the name now_at holds (the calls' names are literals) */

static void start_now(const char *dir) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%srank.%d.now", dir, log_prefix, world_rank);
    int f = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (f < 0) return;
    if (ftruncate(f, sizeof(now_t)) == 0) {
        void *m = mmap(NULL, sizeof(now_t), PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
        if (m != MAP_FAILED) { now_at = m; memcpy(now_at->magic, "mpisim1", 8); }
    }
    close(f);
}

/* Which processes the recorder reached: $MPISIM_TRACE_DIR/loaded.<pid> names the executable,
 * so that mpisim record can say why a run left no log (the recorder never loaded, or loaded
 * into processes that never finished MPI_Init). */
__attribute__((constructor)) static void mark_loaded(void) {
    const char *dir = getenv("MPISIM_TRACE_DIR");
    char path[4200], exe[4096];
    if (!dir || !*dir) return;
    snprintf(path, sizeof path, "%s/loaded.%ld", dir, (long)getpid());
    int f = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (f < 0) return;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n++] = '\n';
        if (write(f, exe, (size_t)n) < 0) { /* best effort */ }
    }
    close(f);
}

/* ---- buffers and data (MPI 4.1 §3.7.2, §12.7) -------------------------------------------
 * A buffer argument is logged as the memory its count and datatype span, " sb=ADDR:BYTES"
 * (a send or origin buffer), " rb=" (a receive, result or collective receive buffer),
 * " wb=" (a window's base and size): ADDR in hex at the datatype's true lower bound, BYTES
 * to its true upper bound (MPI 4.1 §5.1.8). A loop's buffers repeat, so they stay in the
 * call's key. Data are hashed, a word-wise 64-bit mix of the bytes, when the datatype is
 * contiguous (a type map with holes is not hashed: the holes may change legally): a send's
 * buffer at the call ("h=") and, for a nonblocking one, again when a wait or test completes
 * its request; a receive's bytes when it completes ("w=", one per completed request, in the
 * order of the result's st=, "-" when not hashed). Hashes differ every call: they go to a
 * line of their own after the call, "H h=HEX w=HEX,-", never into its key. Persistent,
 * MPI_Isendrecv and collective requests are not hashed. $MPISIM_NO_HASH=1 (mpisim record
 * --no-hash) turns hashing off; the addresses are still logged. A process hashes until it
 * has written MPISIM_MAX_DATA data lines, then no more (the reader keeps no more: a longer
 * run's later calls would pay for hashes nobody reads); a send hashed before that and
 * completed after it has no w= and is not judged. */
#ifndef MPISIM_MAX_DATA  /* mpisim.recorded.read.records.MAX_DATA: the build passes it */
#define MPISIM_MAX_DATA 65536
#endif
static int hashing = 1;
static unsigned long data_lines;  /* the H lines this process wrote (under the log's lock) */
typedef struct { const unsigned char *at; long long bytes; int dense; } span_t;
#define BUFS 4096
static struct { int id, send; span_t s; } bufs[BUFS];  /* by request id (a ring) */
#define PBUFS 1024
static struct { int id, send; span_t s; } pbufs[PBUFS];  /* a persistent request's, by id */
static TLS span_t cur;           /* the call's p2p buffer, kept by the request it makes */
static TLS int cur_set, cur_send;
static TLS char hx[4096];          /* the call's H line, written after it */
static TLS size_t hx_len;
#define SEEN_IDS 64
static TLS int seen_ids[SEEN_IDS]; /* the request ids a completion call named (put_req_ids) */

/* Four lanes of 8 bytes mixed side by side (a multiply and a shift each), so that the
 * multiplies overlap: a few GB/s (python -m bench.hashing --speed); then 8 bytes at a time,
 * then the last bytes; the lanes folded in order (a swap of two blocks changes the hash). */
#define MIX(h, w) ((h) = ((h) ^ (w)) * 0x9E3779B97F4A7C15ull, (h) ^= (h) >> 29)
static uint64_t data_hash(const unsigned char *p, long long n) {
    uint64_t a = 0xcbf29ce484222325ull ^ (uint64_t)n, b = 0x84222325cbf29ce4ull,
             c = 0xC2B2AE3D27D4EB4Full, d = 0x165667B19E3779F9ull, w[4];
    long long i = 0;
    for (; i + 32 <= n; i += 32) {
        memcpy(w, p + i, 32);
        MIX(a, w[0]), MIX(b, w[1]), MIX(c, w[2]), MIX(d, w[3]);
    }
    MIX(a, b), MIX(a, c), MIX(a, d);
    for (; i + 8 <= n; i += 8) {
        memcpy(w, p + i, 8);
        MIX(a, w[0]);
    }
    for (; i < n; i++) a = (a ^ p[i]) * 1099511628211ull;
    return a;
}

/* The memory `count` elements of `dt` at `buf` span (0: none: MPI_IN_PLACE, no data, an
 * address no buffer has). */
static int span_of(const void *buf, long long count, MPI_Datatype dt, span_t *s) {
    MPI_Aint lb, extent, tlb, textent;
    int size = 0;
    if (buf == MPI_IN_PLACE || count <= 0 || dt == MPI_DATATYPE_NULL) return 0;
    if (PMPI_Type_size(dt, &size) != MPI_SUCCESS || size <= 0 ||
        PMPI_Type_get_extent(dt, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(dt, &tlb, &textent) != MPI_SUCCESS) return 0;
    s->at = (const unsigned char *)buf + tlb;
    s->bytes = (count - 1) * (long long)extent + (long long)textent;
    s->dense = (MPI_Aint)size == textent && textent == extent;
    return (uintptr_t)s->at >= 4096 && s->bytes > 0;
}

static char *hex(char *o, uint64_t v) {
    static const char digits[] = "0123456789abcdef";
    char t[16];
    int n = 0;
    do { t[n++] = digits[v & 15]; v >>= 4; } while (v);
    while (n) *o++ = t[--n];
    return o;
}

static void hx_word(const char *key, const char *text, size_t n) {
    size_t k = strlen(key);
    if (hx_len + k + n + 3 > sizeof hx) return;
    hx[hx_len++] = ' ';  /* " KEY=TEXT" (no sprintf: a call's hash is written every call) */
    memcpy(hx + hx_len, key, k);
    hx_len += k;
    hx[hx_len++] = '=';
    memcpy(hx + hx_len, text, n);
    hx_len += n;
}

static void memo_effect(const span_t *s, int send);

/* What a p2p buffer's logging does besides its text (the memo does it again on a hit): kept
 * as the call's buffer, a send's data hashed now. */
static void buf_effect(const span_t *s, int send) {
    memo_effect(s, send);
    cur = *s, cur_set = 1, cur_send = send;
    if (send && hashing && s->dense) {
        char text[24], *o = hex(text, data_hash(s->at, s->bytes));
        hx_word("h", text, (size_t)(o - text));
    }
}

/* " KEY=ADDR:BYTES"; kept as the call's buffer (send: 1 a send's, hashed now: a
 * point-to-point send's or a nonblocking collective's; 0 a receive's; 2 a blocking
 * collective's or an RMA origin's, only logged). */
static void put_buf(const char *key, const void *buf, long long count, MPI_Datatype dt,
                    int send) {
    span_t s;
    char text[96], *o = text;
    if (!span_of(buf, count, dt, &s)) return;
    *o++ = ' ';
    while (*key) *o++ = *key++;
    *o++ = '=';
    o = hex(o, (uint64_t)(uintptr_t)s.at);
    *o++ = ':';
    o = fmt_unsigned(o, (unsigned long long)s.bytes, 0);
    put(text, (size_t)(o - text));
    if (send != 2) buf_effect(&s, send);
}

/* A window's base and size (" wb="). */
static void put_window(const void *base, MPI_Aint size) {
    char text[64] = " wb=", *o = hex(text + 4, (uint64_t)(uintptr_t)base);
    if (!base || size <= 0) return;
    *o++ = ':';
    o = fmt_unsigned(o, (unsigned long long)size, 0);
    put(text, (size_t)(o - text));
}

/* The received bytes' hash as text ("-": not hashed). */
static size_t recv_hash_text(const span_t *s, const MPI_Status *st, char *text) {
    int got = MPI_UNDEFINED;
    if (!hashing || !s->dense || PMPI_Get_count(st, MPI_BYTE, &got) != MPI_SUCCESS ||
        got == MPI_UNDEFINED || got < 0) { text[0] = '-'; return 1; }
    return (size_t)(hex(text, data_hash(s->at, got < s->bytes ? got : s->bytes)) - text);
}

/* A blocking receive's bytes, hashed when it returns (" w="). */
static void recv_hash(const MPI_Status *st) {
    char text[24];
    if (!cur_set || cur_send || !hashing) return;
    size_t n = recv_hash_text(&cur, st, text);
    if (text[0] != '-') hx_word("w", text, n);
}

/* A nonblocking send's or receive's buffer kept under its request's id (kind c and P: a
 * nonblocking or persistent collective's, x an MPI_Isendrecv's: its send buffer only); a
 * persistent request's
 * (MPI_Send_init..., MPI_Allreduce_init...) in a table of their own, kept for each MPI_Start
 * of it (a loop's nonblocking requests would soon take its place in the ring). */
static void buf_keep(int id, char kind) {
    if (!cur_set || ((kind == 'c' || kind == 'P' || kind == 'x') && !cur_send)) return;
    if (kind == 'S' || kind == 'R' || kind == 'P') {
        int i = id % PBUFS;
        pbufs[i].id = id, pbufs[i].send = cur_send, pbufs[i].s = cur;
        return;
    }
    int i = id % BUFS;
    bufs[i].id = id, bufs[i].send = cur_send, bufs[i].s = cur;
}

/* A completed request's hash as text: a send's buffer now, a receive's bytes. */
static size_t buf_done(int id, const MPI_Status *st, char *text) {
    int i = id > 0 ? id % BUFS : 0, p = id > 0 ? id % PBUFS : 0;
    const span_t *s;
    int send;
    text[0] = '-';
    if (id <= 0) return 1;
    if (bufs[i].id == id) {
        bufs[i].id = 0;
        s = &bufs[i].s, send = bufs[i].send;
    } else if (pbufs[p].id == id) {  /* (kept: the request may be started again) */
        s = &pbufs[p].s, send = pbufs[p].send;
    } else {
        return 1;
    }
    if (!hashing || !s->dense) return 1;
    if (!send) return recv_hash_text(s, st, text);
    return (size_t)(hex(text, data_hash(s->at, s->bytes)) - text);
}

/* MPI_Start/MPI_Startall (§3.9): the data of each persistent send started, hashed as an
 * MPI_Isend's at its call (" h=", one a request, "-" for none: a receive, a type with holes,
 * a request not known), so that a buffer written before the completion is seen. */
static void start_hashes(int n) {
    char w[2048];
    size_t wn = 0;
    int hashed = 0;
    if (!hashing) return;
    for (int j = 0; j < n && j < SEEN_IDS; j++) {
        int id = seen_ids[j], p = id > 0 ? id % PBUFS : 0;
        if (wn + 24 > sizeof w) return;  /* too many: none written */
        if (j) w[wn++] = ',';
        if (id > 0 && pbufs[p].id == id && pbufs[p].send && pbufs[p].s.dense) {
            wn = (size_t)(hex(w + wn, data_hash(pbufs[p].s.at, pbufs[p].s.bytes)) - w);
            hashed = 1;
        } else {
            w[wn++] = '-';
        }
    }
    if (hashed && n <= SEEN_IDS) hx_word("h", w, wn);
}

/* The call's H line, after its own lines (under the log's lock); none past the
 * MPISIM_MAX_DATA-th, and no more hashing after it. */
static void put_data_line(void) {
    char l[sizeof hx + 2];
    if (!hx_len) return;
    if (data_lines >= (unsigned long)MPISIM_MAX_DATA) { hx_len = 0; return; }
    if (++data_lines >= (unsigned long)MPISIM_MAX_DATA) hashing = 0;
    l[0] = 'H';  /* one piece: a call's H line is written every call */
    memcpy(l + 1, hx, hx_len);
    l[hx_len + 1] = '\n';
    put(l, hx_len + 2);
    hx_len = 0;
}

/* ---- the memo: a hot call's binary arguments to its key, the text made once a key ---------
 * In the compact format a call's key is text made from its arguments, and a loop makes the
 * same key over and over. The wrappers the generator marks (sends, receives, the counted
 * collectives: cwrappers.py's `memo`) and MPI_Wait, MPI_Test and MPI_Waitall look their
 * binary arguments up here first. An entry's words (the call, its thread, its call site,
 * its arguments: communicators and datatypes by their ids, operations by their bits,
 * buffers by their address, request ids relative to the smallest) give the text its entry line made (request ids relative) and what that made
 * happen besides text (the p2p buffer kept, a send's data hashed: buf_effect); a result's
 * words (its entry's serial, each status's source, tag and bytes, the request made) give
 * the interned key's id. On a hit no text is made: the row is stored with that id, the data
 * hashed as on a miss (the H line is the same). On a miss the text is made as without the
 * memo and remembered. The words decide the text: a communicator or datatype not seen yet
 * (its description line to come: T, C) makes the call's words unknown, never remembered; a
 * handle freed and made again is seen anew, with a new id; an operation made or freed
 * clears the memo (its name, uN, is by its bits); a call site's @ line comes at its first
 * sight, which a hit cannot be; an error result is never remembered. Fixed memory, cleared when full; under the log's lock. $MPISIM_NO_MEMO=1
 * turns it off (the recording is the same, byte for byte); $MPISIM_MEMO_CHECK=1 makes the
 * text on every hit too and compares (rank.N.memo in the trace directory counts the hits
 * checked and those that differed: the tests). */
#define MEMO_SLOTS 8192             /* a power of two; at most 3/4 used, then cleared */
#define MEMO_WORDS 48               /* a call's words at most (more: not remembered) */
#define MEMO_ARENA (1 << 17)        /* words of all the remembered calls */
#define MEMO_TEXT (1 << 20)         /* bytes of the remembered entries' texts */
#define MEMO_SPANS 2                /* p2p buffers a call logs (MPI_Sendrecv: 2) */
#define MEMO_REQS 12                /* requests a completion names, at most, to be remembered */
#define MEMO_RESULT (~0ull)         /* a result's first word (an entry's: its call's number) */
#define MEMO_I(x) ((uint64_t)(int64_t)(x))
#define MEMO_P(p) ((uint64_t)(uintptr_t)(p))
#define MEMO_REQ(id) ((id) > 0 ? 1ull << 62 : MEMO_I(id))  /* made: r=+1, its id the base */
typedef struct memo_s {
    uint64_t hash, value;           /* value: an entry's serial, a result's key id */
    struct memo_s *last;            /* an entry's result found last (a loop's is the same) */
    uint32_t epoch, n, words;       /* words: the offset of its n words in memo_words */
    uint32_t text, len;             /* an entry's text in memo_texts */
    int nfx;                        /* an entry's p2p buffers (buf_effect) */
    char fx_send[MEMO_SPANS];
    span_t fx[MEMO_SPANS];
} memo_t;
static memo_t memo[MEMO_SLOTS];
#define MEMO_LAST 1024
static memo_t *memo_last[MEMO_LAST];  /* the entry found last by a call and call site */
static uint64_t memo_words[MEMO_ARENA];
static char memo_texts[MEMO_TEXT];
static uint32_t memo_epoch = 1, memo_used, memo_words_len, memo_text_len;
static uint64_t memo_serials, memo_hits, memo_checked, memo_differed;
static int memo_on, memo_check;
static char memo_first[512];        /* the first difference the check found */
enum { MEMO_OFF, MEMO_RECORD, MEMO_HIT, MEMO_KNOWN };
static TLS int memo_st, memo_rst;   /* the call's entry's state, its result's */
static TLS uint64_t memo_w[MEMO_WORDS], memo_h, memo_serial, memo_base, memo_key, memo_rbase;
static TLS memo_t *memo_entry;      /* the call's entry's slot (its `last` result) */
static TLS int memo_n, memo_nfx;
static TLS char memo_fx_send[MEMO_SPANS];
static TLS span_t memo_fx[MEMO_SPANS];
static TLS const memo_t *memo_seen;  /* the check: the slot a hit would have used */
static TLS int memo_unknown;         /* a handle of the call's words not seen yet */

/* A communicator's word: its id (comm_id's), unknown before its first sight. */
static uint64_t memo_comm(MPI_Comm c) {
    if (c == MPI_COMM_WORLD) return 0;
    if (c == MPI_COMM_SELF) return 1;
    if (c == MPI_COMM_NULL) return MEMO_I(-1);
    slot_t *s = lookup(comms, KEY(c), 0);
    if (!s || s->id <= 0) memo_unknown = 1;
    return s ? MEMO_I(s->id) : 0;
}

/* A datatype's word: its id (type_id's), unknown before its first sight. */
static uint64_t memo_type(MPI_Datatype t) {
    if (t == MPI_DATATYPE_NULL) return 0;
    slot_t *s = lookup(types, KEY(t), 0);
    if (!s || s->id <= 0) memo_unknown = 1;
    return s ? MEMO_I(s->id) : 0;
}

/* A multiply and an add a word (the words of a call differ in a few places; the slot is
 * taken from the top bits, where every word has mixed). */
static uint64_t memo_hash(const uint64_t *w, int n) {
    uint64_t h = (uint64_t)n;
    for (int i = 0; i < n; i++) h = (h + w[i]) * 0x9E3779B97F4A7C15ull;
    return h ^ h >> 31;
}

static int memo_same(const uint64_t *a, const uint64_t *b, int n) {
    uint64_t d = 0;
    for (int i = 0; i < n; i++) d |= a[i] ^ b[i];
    return !d;
}

/* The slot of these words: theirs (*found) or the empty one they would take. */
static memo_t *memo_find(const uint64_t *w, int n, uint64_t h, int *found) {
    size_t j = (size_t)(h >> 40) & (MEMO_SLOTS - 1);
    for (;; j = (j + 1) & (MEMO_SLOTS - 1)) {
        memo_t *m = &memo[j];
        if (m->epoch != memo_epoch) { *found = 0; return m; }
        if (m->hash == h && m->n == (uint32_t)n && memo_same(memo_words + m->words, w, n)) {
            *found = 1;
            return m;
        }
    }
}

/* Everything forgotten; the calls in progress that a hit gave their entry keep its text. */
static void memo_clear(void) {
    for (int i = 0; i < n_threads && i < MAX_THREADS; i++)
        if (pends[i]) pend_text(pends[i]);
    memo_epoch++;
    memo_used = memo_words_len = memo_text_len = 0;
}

/* A slot for the words of the call being made (NULL: no room). */
static memo_t *memo_add(size_t text) {
    int found;
    if (4 * (memo_used + 1) > 3 * MEMO_SLOTS || memo_words_len + (size_t)memo_n > MEMO_ARENA ||
        memo_text_len + text > MEMO_TEXT) memo_clear();
    if (memo_words_len + (size_t)memo_n > MEMO_ARENA || memo_text_len + text > MEMO_TEXT)
        return NULL;
    memo_t *m = memo_find(memo_w, memo_n, memo_h, &found);
    if (!found) memo_used++;
    m->epoch = memo_epoch, m->hash = memo_h, m->n = (uint32_t)memo_n;
    m->words = memo_words_len;
    memcpy(memo_words + memo_words_len, memo_w, sizeof *memo_w * (size_t)memo_n);
    memo_words_len += (uint32_t)memo_n;
    return m;
}

/* The check found a hit's text, buffers or key other than the call's own. */
static void memo_differs(const char *what, const char *kept, size_t kn, const char *made,
                         size_t mn) {
    if (memo_differed++) return;
    size_t w = (size_t)snprintf(memo_first, sizeof memo_first, "%s: remembered [", what);
    for (size_t i = 0; i < kn && w < 240; i++) memo_first[w++] = kept[i] ? kept[i] : '|';
    memcpy(memo_first + w, "] made [", 8);
    w += 8;
    for (size_t i = 0; i < mn && w < 500; i++) memo_first[w++] = made[i] ? made[i] : '|';
    memo_first[w++] = ']';
    memo_first[w] = '\0';
}

/* A p2p buffer the entry being made logged (buf_effect), remembered with it. */
static void memo_effect(const span_t *s, int send) {
    if (memo_st != MEMO_RECORD) return;
    if (memo_nfx >= MEMO_SPANS) { memo_st = MEMO_OFF; return; }
    memo_fx[memo_nfx] = *s;
    memo_fx_send[memo_nfx++] = (char)send;
}

static int same_span(const span_t *a, const span_t *b) {
    return a->at == b->at && a->bytes == b->bytes && a->dense == b->dense;
}

/* The entry's words looked up (w[0] its call's number, w[1] and w[2] filled here: its thread
 * and call site; base: the smallest request id its words name relatively, 0: none). A hit
 * (1): the call's entry is the remembered one and its buffers' effects are done; a miss
 * (0): its text is to be made, then remembered by end_entry. */
static int memo_enter(uint64_t *w, int n, uint64_t base, void *caller) {
    int found;
    if (!memo_on || n > MEMO_WORDS || memo_unknown) return 0;
    w[1] = (uint64_t)pend->tid;
    w[2] = MEMO_P(caller);
    memo_t **last = &memo_last[(w[0] ^ w[2] ^ w[2] >> 12) & (MEMO_LAST - 1)], *m = *last;
    uint64_t h = 0;
    memo_base = base;
    memo_entry = NULL;
    if (m && m->epoch == memo_epoch && m->n == (uint32_t)n &&
        memo_same(memo_words + m->words, w, n)) {
        found = 1;  /* this call site's entry before: no hash, no search */
    } else {
        h = memo_hash(w, n);
        m = memo_find(w, n, h, &found);
        if (found) *last = m;
    }
    if (found && !memo_check) {
        if (c_pending) {  /* this thread's call before never returned (its error handler) */
            c_pending = 0;
            pend_text(pend);
            c_row(c_call, c_call_len, c_pending_gap, 0);
        }
        c_pending_gap = entered - last_exit;
        pend->mtext = memo_texts + m->text, pend->mlen = m->len, pend->mbase = base;
        for (int i = 0; i < m->nfx; i++) buf_effect(&m->fx[i], m->fx_send[i]);
        memo_serial = m->value;
        memo_entry = m;
        memo_st = MEMO_HIT;
        memo_hits++;
        depth++;
        return 1;
    }
    memo_seen = found ? m : NULL;
    memcpy(memo_w, w, sizeof *w * (size_t)n);
    memo_n = n, memo_h = h ? h : memo_hash(w, n), memo_nfx = 0;
    memo_st = MEMO_RECORD;
    return 0;
}

/* The entry just made (c_call), remembered (or, checking, compared with the hit's). */
static void memo_entry_made(void) {
    static char rel[C_KEY_MAX * 2];
    size_t rn = 0;
    uint64_t base = c_relative(c_call, c_call_len, rel, &rn);
    if (memo_st != MEMO_RECORD) return;  /* more buffers than kept */
    memo_st = MEMO_OFF;
    if (base != memo_base) {  /* the words' base is not the text's: never remembered */
        if (memo_check) memo_differs("entry base", "", 0, rel, rn);
        return;
    }
    if (memo_seen) {
        const memo_t *m = memo_seen;
        int same = m->len == rn && memcmp(memo_texts + m->text, rel, rn) == 0 &&
                   m->nfx == memo_nfx;
        for (int i = 0; same && i < memo_nfx; i++)
            same = same_span(&m->fx[i], &memo_fx[i]) && m->fx_send[i] == memo_fx_send[i];
        memo_checked++;
        if (!same) memo_differs("entry", memo_texts + m->text, m->len, rel, rn);
        memo_serial = m->value;
        memo_entry = NULL;
        memo_st = MEMO_KNOWN;
        return;
    }
    memo_t *m = memo_add(rn);
    if (!m) return;
    memcpy(memo_texts + memo_text_len, rel, rn);
    m->text = memo_text_len, m->len = (uint32_t)rn;
    memo_text_len += (uint32_t)rn;
    m->nfx = memo_nfx;
    for (int i = 0; i < memo_nfx; i++) m->fx[i] = memo_fx[i], m->fx_send[i] = memo_fx_send[i];
    m->value = memo_serial = ++memo_serials;
    m->last = NULL;
    memo_entry = m;
    memo_st = MEMO_KNOWN;
}

/* A successful result's words looked up (rbase: the request id it made, 0: none). A hit
 * (1): done() stores the row with the remembered key; a miss (0): the result's text is to be
 * made (its "= 0" is), then remembered by done(). */
static int memo_result(const uint64_t *rw, int n, uint64_t rbase) {
    int found;
    if (memo_st != MEMO_KNOWN || n + 2 > MEMO_WORDS) return 0;
    uint64_t w[MEMO_WORDS];
    w[0] = MEMO_RESULT, w[1] = memo_serial;
    for (int i = 0; i < n; i++) w[2 + i] = rw[i];
    memo_rbase = memo_base ? memo_base : rbase;
    memo_t *m = memo_entry ? memo_entry->last : NULL;
    uint64_t h = 0;
    if (m && m->epoch == memo_epoch && m->n == (uint32_t)n + 2 &&
        memo_same(memo_words + m->words, w, n + 2)) {
        found = 1;  /* the entry's result before */
    } else {
        h = memo_hash(w, n + 2);
        m = memo_find(w, n + 2, h, &found);
        if (found && memo_entry) memo_entry->last = m;
    }
    if (found && !memo_check) {
        memo_key = m->value;
        memo_rst = MEMO_HIT;
        return 1;
    }
    memo_seen = found ? m : NULL;
    memcpy(memo_w, w, sizeof *w * (size_t)(n + 2));
    memo_n = n + 2, memo_h = h ? h : memo_hash(w, n + 2);
    memo_rst = MEMO_RECORD;
    return 0;
}

/* The key c_row just interned for the call, remembered (or compared with the hit's). */
static void memo_result_made(long id) {
    if (id < 0) return;
    if (c_row_base != memo_rbase) {
        if (memo_check) memo_differs("result base", "", 0, c_call, c_call_len);
        return;
    }
    if (memo_seen) {
        memo_checked++;
        if ((long)memo_seen->value != id) memo_differs("key", "", 0, c_call, c_call_len);
        return;
    }
    memo_t *m = memo_add(0);
    if (!m) return;
    m->value = (uint64_t)id;
    if (memo_entry && memo_entry->epoch == memo_epoch) memo_entry->last = m;
}

/* A status's words: its source, tag and bytes (put_status_body's text). */
static int status_words(const MPI_Status *st, uint64_t *w) {
    int bytes = 0;
    PMPI_Get_count(st, MPI_BYTE, &bytes);
    w[0] = MEMO_I(st->MPI_SOURCE), w[1] = MEMO_I(st->MPI_TAG), w[2] = MEMO_I(bytes);
    return 3;
}

/* The check's counts, at the log's end: rank.N.memo. */
static void memo_report(void) {
    char path[4400], text[800];
    if (!memo_check || !log_dir[0]) return;
    snprintf(path, sizeof path, "%s/%srank.%d.memo", log_dir, log_prefix, world_rank);
    int f = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (f < 0) return;
    int n = snprintf(text, sizeof text, "checked %llu differed %llu\n%s\n",
                     (unsigned long long)memo_checked, (unsigned long long)memo_differed,
                     memo_first);
    if (write(f, text, (size_t)n) < 0) { /* best effort */ }
    close(f);
}

/* ---- entry and result lines ------------------------------------------------------------ */
#define LOGGING (fd >= 0 && depth == 0)

/* A logged call begins: the lock, its thread, its entry time, the stall watch told. */
static void enter_begin(const char *call) {
    LOCK();
    if (!pend) new_thread();
    entered = now_ns();
    cur_set = 0, hx_len = 0;
    memo_st = memo_rst = MEMO_OFF;
    memo_unknown = 0;
    if (now_at) {
        if (call != now_call) {  /* a loop's calls: the same name, not copied again */
            strncpy(now_at->call, call, sizeof now_at->call - 1);
            now_call = call;
        }
        now_at->inside++;  /* the threads inside a call (one when single-threaded) */
        now_at->seq++;
    }
}

/* Its entry line's beginning: the call's name, thread and call site. */
static void enter_text(const char *call, void *caller) {
    int site = site_id(caller);
    in_line = 1;
    if (compact) {  /* the numbers go to the block's columns, the rest is the call's key */
        if (c_pending) {  /* this thread's call before never returned (its error handler) */
            c_pending = 0;
            pend_text(pend);
            c_row(c_call, c_call_len, c_pending_gap, 0);
        }
        c_pending_gap = entered - last_exit;
        puts_(call);
    } else {
        putf("%s g=%lu", call, (unsigned long)(entered - last_exit));
    }
    if (pend->tid) putf(" t=%d", pend->tid);
    if (site) putf(" @=%d", site);
    depth++;
}

static void enter(const char *call, void *caller) {
    enter_begin(call);
    enter_text(call, caller);
}

/* A memoized wrapper's entry, after enter_begin (w: its words, made under the lock, w[1]
 * and w[2] left for memo_enter): 1 when the memo gave it (its arguments are not to be
 * logged), 0 when they are to be. */
static int enter_memo(const char *call, void *caller, uint64_t *w, int n) {
    if (memo_enter(w, n, 0, caller)) return 1;
    enter_text(call, caller);
    return 0;
}

static void end_entry(void) {
    if (!compact && !threaded) { line_end(); return; }
    in_line = 0;
    if (memo_st == MEMO_HIT) {
        c_pending = 1;
        memo_st = MEMO_KNOWN;
        UNLOCK();
        return;
    }
    memcpy(c_call, line, line_used);
    c_call_len = line_used;
    c_pending = 1;
    line_used = 0;
    if (memo_st == MEMO_RECORD) memo_entry_made();
    UNLOCK();
}

static void result(int rc) {
    uint64_t t = now_ns();
    LOCK();
    in_line = 1;
    if (compact) {
        c_dur_now = t - entered;
        if (rc == MPI_SUCCESS) put("= 0", 3);
        else putf("= %s", error_name(rc));
    } else if (rc == MPI_SUCCESS) {
        putf("= 0 d=%lu", (unsigned long)(t - entered));
    } else {
        putf("= %s d=%lu", error_name(rc), (unsigned long)(t - entered));
    }
    depth--;
}

static void done(void) {
    if (now_at && now_at->inside) now_at->inside--;
    if (compact) {
        in_line = 0;
        if (memo_rst == MEMO_HIT) {
            c_pending = 0;
            pend->mtext = NULL;
            c_row_id((uint32_t)memo_key, c_pending_gap, c_dur_now, memo_rbase);
        } else {
            pend_text(pend);
            if (c_pending && c_call_len + 1 + line_used <= sizeof c_call) {
                c_call[c_call_len] = '\0';
                memcpy(c_call + c_call_len + 1, line, line_used);
                c_pending = 0;
                long id = c_row(c_call, c_call_len + 1 + line_used, c_pending_gap, c_dur_now);
                if (memo_rst == MEMO_RECORD) {
                    c_call_len += 1 + line_used;  /* the key, for the check's report */
                    memo_result_made(id);
                }
            }
        }
        memo_st = memo_rst = MEMO_OFF;
        line_used = 0;
    } else {
        if (threaded && c_pending) {  /* the entry kept until now: the call's two lines */
            c_pending = 0;
            in_line = 0;
            put(c_call, c_call_len);
            put("\n", 1);
            in_line = 1;
        }
        line_end();
    }
    put_data_line();
    last_exit = now_ns();
    UNLOCK();
}

/* A call made through the Fortran layer below is located at the Fortran caller. */
static TLS void *fortran_caller;
#define CALLER (fortran_caller ? fortran_caller : __builtin_return_address(0))

/* ---- flushing at exit and on fatal signals ---------------------------------------------- */
static struct sigaction previous[32];
static const int fatal[] = {SIGTERM, SIGINT, SIGSEGV, SIGABRT, SIGBUS, SIGHUP, SIGQUIT};

/* How long the process had been where it was when it ended: g= outside MPI since the last
 * call returned, in= inside the call in progress (the replay's cut, mpisim.recorded.stop). */
static int since(char *s, size_t n) {
    uint64_t t = now_ns();
    return depth > 0 ? snprintf(s, n, " in=%lu", (unsigned long)(t - entered))
                     : snprintf(s, n, " g=%lu", (unsigned long)(t - last_exit));
}

/* ---- a process that ends the job ------------------------------------------------------------
 * A process that dies inside MPI (a fatal MPI error: exit() in a call; a crash in the library)
 * or calls MPI_Abort ends every process of the job (MPI 4.1 §9.3: MPI_ERRORS_ARE_FATAL aborts
 * all executing processes), and its launcher kills the others at once (MPICH's with
 * SIGKILL), which loses what they had not yet flushed. So it first ends the others on its
 * host itself, with SIGTERM (their logs end with where each was, as a stopped run's do: the
 * replay needs their calls up to the failure to reach it), waiting up to 2 s for each log to
 * end. Async-signal-safe: open, read, kill, nanosleep. */
static int read_head(const char *path, char *buf, size_t n, off_t from_end) {
    int f = open(path, O_RDONLY | O_CLOEXEC);
    if (f < 0) return 0;
    if (from_end) {
        off_t size = lseek(f, 0, SEEK_END);
        lseek(f, size > from_end ? size - from_end : 0, SEEK_SET);
    }
    ssize_t got = read(f, buf, n - 1);
    close(f);
    buf[got > 0 ? got : 0] = '\0';
    return got > 0 ? (int)got : 0;
}

/* The #pid of rank r's log when its #host is this one (0 otherwise). */
static long pid_of(int r, char *path, size_t n) {
    char head[1024];
    snprintf(path, n, "%s/%srank.%d.log", log_dir, log_prefix, r);
    if (!read_head(path, head, sizeof head, 0)) return 0;
    const char *h = strstr(head, "\n#host "), *p = strstr(head, "\n#pid ");
    if (!h || !p) return 0;
    h += 7;
    size_t len = strlen(host);
    if (strncmp(h, host, len) != 0 || h[len] != '\n') return 0;
    return strtol(p + 6, NULL, 10);
}

static int log_ended(const char *path) {
    char tail[96];
    int got = read_head(path, tail, sizeof tail, 64);  /* a compact log's tail is binary */
    if (!got) return 0;
    return memmem(tail, (size_t)got, "\n# signal", 9) != NULL ||
           memmem(tail, (size_t)got, "\n# exit", 7) != NULL;
}

static void end_the_others(void) {
    static int done_once;
    char path[4200];
    if (done_once || !log_dir[0] || world_size <= 1) return;
    done_once = 1;
    for (int r = 0; r < world_size; r++) {
        long pid = r == world_rank ? 0 : pid_of(r, path, sizeof path);
        if (pid > 0 && pid != (long)getpid() && !log_ended(path)) kill((pid_t)pid, SIGTERM);
    }
    struct timespec tick = {0, 10000000};
    for (int waited = 0; waited < 200; waited++) {
        int open_logs = 0;
        for (int r = 0; r < world_size; r++)
            if (r != world_rank && pid_of(r, path, sizeof path) > 0 && !log_ended(path))
                open_logs++;
        if (!open_logs) break;
        nanosleep(&tick, NULL);
    }
}

static void on_signal(int sig) {
    char line[96];
    c_in_signal = 1;
    if (getpid() != log_pid) fd = -1;  /* a child of fork(): the log is its parent's */
    int n = snprintf(line, sizeof line, "# signal %d", sig);
    n += since(line + n, sizeof line - (size_t)n);
    if (compact && fd >= 0) {
        line[n] = '\0';
        if (!c_flushing) c_finish(line, 0);  /* stored: no allocation in a signal handler */
        else if (c_drain()) c_write("\n", 1), c_write(line, (size_t)n), c_write("\n", 1);
    }
    line[n++] = '\n';
    if (fd >= 0 && !compact) {
        t_unreturned();
        if (used + (size_t)n <= OUT_SIZE) { memcpy(out + used, line, (size_t)n); used += (size_t)n; }
        flush_out();
    }
    if (sig == SIGSEGV || sig == SIGBUS || sig == SIGABRT) end_the_others();  /* a crash */
    sigaction(sig, &previous[sig], NULL);
    raise(sig);
}

static void at_exit(void) {
    if (fd < 0 || getpid() != log_pid) return;  /* (a child of fork(): the log is its parent's) */
    char tail[64];
    int n = since(tail, sizeof tail);
    int inside = depth > 0;  /* exit() inside a call: a fatal MPI error */
    if (compact) {
        char end[80];
        snprintf(end, sizeof end, "# exit%s", tail);
        c_finish(end, 1);
        memo_report();
    } else {
        t_unreturned();
        puts_("# exit");
        put(tail, (size_t)n);
        puts_("\n");
        flush_out();
    }
    close(fd);
    fd = -1;
    if (inside) end_the_others();
}

/* The compact header's #recorder (its format's version) and #args (the program's arguments,
 * /proc/self/cmdline, one line). */
static void put_args(void) {
    char args[4096];
    int f = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    ssize_t n = f >= 0 ? read(f, args, sizeof args - 1) : 0;
    if (f >= 0) close(f);
    if (n < 0) n = 0;
    while (n > 0 && args[n - 1] == '\0') n--;
    for (ssize_t i = 0; i < n; i++)
        if (args[i] == '\0' || args[i] == '\n' || args[i] == '\r') args[i] = ' ';
    puts_("#recorder 1\n#args ");
    put(args, (size_t)n);
    puts_("\n\n");
}

/* ---- dynamic processes (MPI 4.1 §11.8): which spawn started a process ------------------------
 * The root of a spawn names it <its world rank>.<k> (its k-th spawn as root; a spawned
 * root puts its own world's ID and '-' before it: 0.1-1.1) and tells every child over a
 * duplicate of the intercommunicator (PMPI_Comm_dup, collective over both groups, done by
 * the parents right after MPI_Comm_spawn and by the children inside MPI_Init): the
 * program's own matching never sees it. It goes as an MPI_MAX reduction over the
 * intercommunicator (each group gets the other's: the children the root's ID, the others'
 * zeros; a collective, where a message sent at once was seen lost with MPICH 5.0.2); the
 * other parents get it by a broadcast. */
static int spawns_rooted;  /* (atomic: two threads may each be a spawn's root) */

static int spawn_id_of(MPI_Comm parent) {
    MPI_Comm dup;
    unsigned char zero[sizeof spawn_id] = {0}, id[sizeof spawn_id];
    if (PMPI_Comm_dup(parent, &dup) != MPI_SUCCESS) return 0;
    int rc = PMPI_Allreduce(zero, id, (int)sizeof id, MPI_UNSIGNED_CHAR, MPI_MAX, dup);
    PMPI_Comm_free(&dup);
    if (rc != MPI_SUCCESS || !id[0] || memchr(id, '\0', sizeof id) == NULL) return 0;
    memcpy(spawn_id, id, sizeof id);
    return 1;
}

static void spawn_id_give(MPI_Comm inter, int root, MPI_Comm comm, char *id, size_t size) {
    MPI_Comm dup;
    unsigned char mine[sizeof spawn_id] = {0}, theirs[sizeof spawn_id];
    int me = 0;
    id[0] = '\0';
    if (PMPI_Comm_dup(inter, &dup) != MPI_SUCCESS) return;
    PMPI_Comm_rank(comm, &me);
    if (me == root)
        snprintf((char *)mine, sizeof mine - 1, "%s%s%d.%d", spawn_id, spawn_id[0] ? "-" : "",
                 world_rank, __atomic_add_fetch(&spawns_rooted, 1, __ATOMIC_RELAXED));
    PMPI_Allreduce(mine, theirs, (int)sizeof mine, MPI_UNSIGNED_CHAR, MPI_MAX, dup);
    PMPI_Comm_free(&dup);
    PMPI_Bcast(mine, (int)sizeof mine, MPI_UNSIGNED_CHAR, root, comm);
    snprintf(id, size, "%s", (char *)mine);
}

/* A spawned process's header: its spawn, its parents' world ("0": the processes mpiexec
 * started) and how many parents, its command's index in a spawn_multiple (MPI_APPNUM). */
static void put_spawned(int parents) {
    const char *dash = strrchr(spawn_id, '-');
    int *appnum = NULL, flag = 0;
    putf("#spawn %s\n#parent-world ", spawn_id);
    if (dash) put(spawn_id, (size_t)(dash - spawn_id));
    else puts_("0");
    putf("\n#parents %d\n", parents);
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    if (flag && appnum) putf("#appnum %d\n", *appnum);
}

/* A switch of the environment: set, and neither empty nor "0". */
static int env_set(const char *name) {
    const char *value = getenv(name);
    return value && *value && strcmp(value, "0") != 0;
}

static void start_log(const char *how, int provided) {
    const char *dir = getenv("MPISIM_TRACE_DIR");
    int size = 0;
    char path[4096], lib[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
    char exe[4096] = "";
    int len = 0;
    if (!dir || !*dir) return;
    MPI_Comm parent = MPI_COMM_NULL;
    int parents = 0;
    PMPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {  /* spawned (MPI 4.1 §11.8.2): its spawn's ID first */
        if (!spawn_id_of(parent)) return;
        PMPI_Comm_remote_size(parent, &parents);
        snprintf(log_prefix, sizeof log_prefix, "spawn.%s.", spawn_id);
    }
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    world_size = size;
    c_rows_max = c_rows_for(size);
    snprintf(log_dir, sizeof log_dir, "%s", dir);
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    for (char *p = host; *p; p++) if (*p == '\n' || *p == ' ') *p = '_';
    snprintf(path, sizeof path, "%s/%srank.%d.log", dir, log_prefix, world_rank);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    log_pid = getpid();
    pend = &pend0;  /* this thread is thread 0 */
    threaded = provided == MPI_THREAD_MULTIPLE;
    PMPI_Get_library_version(lib, &len);
    for (char *p = lib; *p; p++) if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    const char *format = getenv("MPISIM_TRACE_FORMAT");
    compact = format && strcmp(format, "compact") == 0 && c_room();
    hashing = !env_set("MPISIM_NO_HASH");
    w_on = !env_set("MPISIM_NO_WRITER");
    memo_on = compact && !env_set("MPISIM_NO_MEMO");
    memo_check = memo_on && env_set("MPISIM_MEMO_CHECK");
    c_header = compact;
    putf("%s 1\n#rank %d %d\n#pid %ld\n#mpi %d.%d\n",
         compact ? "#mpisim-compact" : "#mpisim-trace", world_rank, size,
         (long)getpid(), MPI_VERSION, MPI_SUBVERSION);
    putf("#bsend-overhead %d\n#any-source %d\n#proc-null %d\n", (int)MPI_BSEND_OVERHEAD,
         MPI_ANY_SOURCE, MPI_PROC_NULL);
    putf("#exe %s\n#host %s\n", exe, host);
    puts_(hashing ? "#data-hash mix64\n" : "#data-hash off\n");
    puts_("#library ");
    put(lib, strnlen(lib, sizeof lib));
    puts_("\n");
    if (parents) put_spawned(parents);
    if (compact) put_args();
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(fatal[i], &sa, &previous[fatal[i]]);
    }
    atexit(at_exit);
    start_now(dir);
    if (compact) {
        char init[64];
        int n0 = snprintf(init, sizeof init, "%s thread=%d", how, provided);
        memcpy(init + n0, "\0= 0", 4);
        c_offset = used;
        flush_out();  /* the header at once: mpisim record finds this process by its #pid */
        c_header = 0;
        c_row(init, (size_t)n0 + 4, 0, 0);
    } else {
        putf("%s g=0 thread=%d\n= 0 d=0\n", how, provided);
        flush_out();  /* the header at once: mpisim record finds this process by its #pid */
    }
    last_exit = init_exit = now_ns();
}

/* ===== the calls ========================================================================= */
int MPI_Init(int *argc, char ***argv) {
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) start_log("Init", MPI_THREAD_SINGLE);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) start_log("Init", *provided);
    return rc;
}

int MPI_Finalize(void) {
    if (!LOGGING) return PMPI_Finalize();
    enter("Finalize", CALLER);
    end_entry();
    LOCK();
    if (compact) c_flush(1), c_drain();  /* the calls so far on disk, should MPI_Finalize hang */
    else flush_out();
    UNLOCK();
    int rc = PMPI_Finalize();
    result(rc);
    done();
    LOCK();
    if (compact) c_flush(1), c_drain();
    else flush_out();
    UNLOCK();
    return rc;
}

int MPI_Abort(MPI_Comm comm, int code) {
    if (fd >= 0) {
        enter("Abort", CALLER);
        putf(" comm=%d code=%d", comm_id(comm), code);
        end_entry();
        if (compact) { c_unreturned(); c_flush(1); c_drain(); }
        else flush_out();
        end_the_others();
    }
    return PMPI_Abort(comm, code);
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler eh) {
    if (!LOGGING) return PMPI_Comm_set_errhandler(comm, eh);
    enter("Comm_set_errhandler", CALLER);
    putf(" comm=%d handler=%s", comm_id(comm),
         eh == MPI_ERRORS_RETURN ? "return" : eh == MPI_ERRORS_ARE_FATAL ? "fatal" : "user");
    end_entry();
    int rc = PMPI_Comm_set_errhandler(comm, eh);
    result(rc);
    done();
    return rc;
}

/* ---- sends ---------------------------------------------------------------------------- */
static void send_args(int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, int pack) {
    put_peer("dest", dest);
    put_tag("tag", tag);
    putf(" comm=%d n=%d T=%d", comm_id(comm), count, type_id(dt));
    if (pack) {
        int ps = 0;
        PMPI_Pack_size(count, dt, comm, &ps);
        putf(" pk=%d", ps);
    }
}

/* ---- receives and probes ------------------------------------------------------------- */
static void recv_args(int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm) {
    put_peer("src", source);
    put_tag("tag", tag);
    putf(" comm=%d n=%d T=%d", comm_id(comm), count, type_id(dt));
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
    if (!LOGGING) return PMPI_Probe(source, tag, comm, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("Probe", CALLER);
    put_peer("src", source);
    put_tag("tag", tag);
    putf(" comm=%d", comm_id(comm));
    end_entry();
    int rc = PMPI_Probe(source, tag, comm, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_status(st);
    done();
    return rc;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
    if (!LOGGING) return PMPI_Iprobe(source, tag, comm, flag, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("Iprobe", CALLER);
    put_peer("src", source);
    put_tag("tag", tag);
    putf(" comm=%d", comm_id(comm));
    end_entry();
    int rc = PMPI_Iprobe(source, tag, comm, flag, st);
    result(rc);
    if (rc == MPI_SUCCESS) {
        putf(" flag=%d", *flag ? 1 : 0);
        if (*flag) put_status(st);
    }
    done();
    return rc;
}

/* ---- matched probes (MPI 4.1 §3.8.2): the message a probe matched, by id ----------------- */
static slot_t msgs[TABLE];
static int next_msg = 1;

static void put_message(MPI_Message m) {
    if (m == MPI_MESSAGE_NULL) { puts_(" m=0"); return; }
    if (m == MPI_MESSAGE_NO_PROC) { puts_(" m=N"); return; }
    slot_t *s = lookup(msgs, KEY(m), 1);
    if (s && !s->id) s->id = next_msg++;
    putf(" m=%d", s ? s->id : -1);
}

static void message_arg(MPI_Message m) {
    if (m == MPI_MESSAGE_NULL) { puts_(" m=0"); return; }
    if (m == MPI_MESSAGE_NO_PROC) { puts_(" m=N"); return; }
    slot_t *s = lookup(msgs, KEY(m), 0);
    putf(" m=%d", s ? s->id : -1);
    if (s) s->used = 2;  /* a message is received once */
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *status) {
    if (!LOGGING) return PMPI_Mprobe(source, tag, comm, msg, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("Mprobe", CALLER);
    put_peer("src", source);
    put_tag("tag", tag);
    putf(" comm=%d", comm_id(comm));
    end_entry();
    int rc = PMPI_Mprobe(source, tag, comm, msg, st);
    result(rc);
    if (rc == MPI_SUCCESS) { put_status(st); put_message(*msg); }
    done();
    return rc;
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *msg,
                MPI_Status *status) {
    if (!LOGGING) return PMPI_Improbe(source, tag, comm, flag, msg, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("Improbe", CALLER);
    put_peer("src", source);
    put_tag("tag", tag);
    putf(" comm=%d", comm_id(comm));
    end_entry();
    int rc = PMPI_Improbe(source, tag, comm, flag, msg, st);
    result(rc);
    if (rc == MPI_SUCCESS) {
        putf(" flag=%d", *flag ? 1 : 0);
        if (*flag) { put_status(st); put_message(*msg); }
    }
    done();
    return rc;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *msg, MPI_Status *status) {
    if (!LOGGING) return PMPI_Mrecv(buf, count, dt, msg, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("Mrecv", CALLER);
    message_arg(*msg);
    putf(" n=%d T=%d", count, type_id(dt));
    end_entry();
    int rc = PMPI_Mrecv(buf, count, dt, msg, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_status(st);
    done();
    return rc;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *msg, MPI_Request *req) {
    if (!LOGGING) return PMPI_Imrecv(buf, count, dt, msg, req);
    enter("Imrecv", CALLER);
    message_arg(*msg);
    putf(" n=%d T=%d", count, type_id(dt));
    end_entry();
    int rc = PMPI_Imrecv(buf, count, dt, msg, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'r'));
    done();
    return rc;
}

/* ---- completion ------------------------------------------------------------------------ */
/* One request before the call: its id (0: MPI_REQUEST_NULL, ? unknown) and kind; a handle
 * named again in the same call is its next live request (see req_new). */
static int req_id_at(const MPI_Request *rs, int i, char *kind) {
    slot_t *s = req_slot(rs[i]);
    int id = s ? s->id : -1, again = 0;
    *kind = s ? s->kind : 0;
    if (s && rs[i] != MPI_REQUEST_NULL)
        for (int j = 0; j < i; j++) again += KEY(rs[j]) == KEY(rs[i]);
    if (again) id = req_twin(KEY(rs[i]), again, kind);
    id = rs[i] == MPI_REQUEST_NULL ? 0 : id;
    if (i < SEEN_IDS) seen_ids[i] = id;
    return id;
}

static void put_req_id(int i, int id) {
    if (i) puts_(",");
    if (id >= 0) putf("%d", id);
    else puts_("?");
}

static void put_req_ids(const char *key, int n, const MPI_Request *rs, char *kinds) {
    putf(" %s=", key);
    for (int i = 0; i < n; i++) put_req_id(i, req_id_at(rs, i, &kinds[i]));
}

/* The entry of MPI_Wait, MPI_Test, MPI_Waitall (code: their memo number): their requests'
 * ids, through the memo when they are few (words: each id relative to the smallest, and
 * its kind, which decides the result's text). */
static void enter_reqs(const char *call, void *caller, int code, int n, const MPI_Request *rs,
                       char *kinds) {
    enter_begin(call);
    if (!memo_on || n < 0 || n > MEMO_REQS) {
        enter_text(call, caller);
        put_req_ids("r", n, rs, kinds);
        return;
    }
    int ids[MEMO_REQS];
    uint64_t w[4 + MEMO_REQS], base = 0;
    for (int i = 0; i < n; i++) {
        ids[i] = req_id_at(rs, i, &kinds[i]);
        if (ids[i] > 0 && (!base || (uint64_t)ids[i] < base)) base = (uint64_t)ids[i];
    }
    w[0] = (uint64_t)code, w[3] = (uint64_t)n;
    for (int i = 0; i < n; i++)
        w[4 + i] = (uint64_t)(unsigned char)kinds[i] << 32 |
                   (uint32_t)(ids[i] > 0 ? (int)((uint64_t)ids[i] - base + 1) : ids[i]);
    if (memo_enter(w, 4 + n, base, caller)) return;
    enter_text(call, caller);
    puts_(" r=");
    for (int i = 0; i < n; i++) put_req_id(i, ids[i]);
}

/* After completion: statuses of the completed receives, requests that became NULL. head: 1
 * writes " flag=1" first (MPI_Test's), 0 nothing (the caller wrote what comes first). */
static void completed(int n, const MPI_Request *before, const int *which, int nwhich,
                      const char *kinds, const MPI_Status *sts, int head) {
    char w[2048];
    size_t wn = 0;
    int hashed = 0, nw = 0;
    uint64_t words[MEMO_WORDS];
    words[nw++] = (uint64_t)head;
    for (int j = 0; j < nwhich; j++) {
        int i = which ? which[j] : j;
        if (memo_st == MEMO_KNOWN && nw + 3 <= MEMO_WORDS - 2) {
            if (gives_status(kinds[i])) nw += status_words(&sts[j], words + nw);
            else words[nw++] = MEMO_RESULT;
        } else {
            nw = MEMO_WORDS;  /* too many to remember */
        }
        if (!is_persistent(kinds[i]) && before[i] != MPI_REQUEST_NULL) req_done(before[i]);
        if (wn + 24 > sizeof w) { hashed = 0; continue; }  /* too many: none written */
        if (j) w[wn++] = ',';
        size_t k = buf_done(i < SEEN_IDS ? seen_ids[i] : -1, &sts[j], w + wn);
        hashed |= w[wn] != '-';
        wn += k;
    }
    if (!memo_result(words, nw, 0)) {
        if (head) puts_(" flag=1");
        puts_(" st=");
        for (int j = 0; j < nwhich; j++) {
            int i = which ? which[j] : j;
            if (j) puts_(",");
            if (gives_status(kinds[i])) put_status_body(&sts[j]);
            else puts_("-");
        }
    }
    if (hashed && wn + 24 <= sizeof w) hx_word("w", w, wn);
    (void)n;
}

#define MANY 64
#define ALLOC_REQS(n)                                                                     \
    MPI_Request before_s[MANY], *before = (n) <= MANY ? before_s : malloc(sizeof(MPI_Request) * (n)); \
    char kinds_s[MANY], *kinds = (n) <= MANY ? kinds_s : malloc((size_t)(n));             \
    MPI_Status sts_s[MANY], *own = (n) <= MANY ? sts_s : malloc(sizeof(MPI_Status) * (n));
#define FREE_REQS(n)                                                                      \
    if ((n) > MANY) { free(before); free(kinds); free(own); }

int MPI_Wait(MPI_Request *req, MPI_Status *status) {
    if (!LOGGING) return PMPI_Wait(req, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    MPI_Request before = *req;
    char kind;
    enter_reqs("Wait", CALLER, 1001, 1, req, &kind);
    end_entry();
    int rc = PMPI_Wait(req, st);
    result(rc);
    if (rc == MPI_SUCCESS) completed(1, &before, NULL, 1, &kind, st, 0);
    done();
    return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status) {
    if (!LOGGING) return PMPI_Test(req, flag, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    MPI_Request before = *req;
    char kind;
    enter_reqs("Test", CALLER, 1002, 1, req, &kind);
    end_entry();
    int rc = PMPI_Test(req, flag, st);
    result(rc);
    if (rc == MPI_SUCCESS && *flag) {
        completed(1, &before, NULL, 1, &kind, st, 1);
    } else if (rc == MPI_SUCCESS) {
        uint64_t not_yet = 2;
        if (!memo_result(&not_yet, 1, 0)) puts_(" flag=0");
    }
    done();
    return rc;
}

int MPI_Waitall(int n, MPI_Request rs[], MPI_Status sts[]) {
    if (!LOGGING) return PMPI_Waitall(n, rs, sts);
    ALLOC_REQS(n)
    MPI_Status *st = sts == MPI_STATUSES_IGNORE ? own : sts;
    memcpy(before, rs, sizeof(MPI_Request) * (size_t)n);
    enter_reqs("Waitall", CALLER, 1003, n, rs, kinds);
    end_entry();
    int rc = PMPI_Waitall(n, rs, st);
    result(rc);
    if (rc == MPI_SUCCESS) completed(n, before, NULL, n, kinds, st, 0);
    done();
    FREE_REQS(n)
    return rc;
}

int MPI_Testall(int n, MPI_Request rs[], int *flag, MPI_Status sts[]) {
    if (!LOGGING) return PMPI_Testall(n, rs, flag, sts);
    ALLOC_REQS(n)
    MPI_Status *st = sts == MPI_STATUSES_IGNORE ? own : sts;
    memcpy(before, rs, sizeof(MPI_Request) * (size_t)n);
    enter("Testall", CALLER);
    put_req_ids("r", n, rs, kinds);
    end_entry();
    int rc = PMPI_Testall(n, rs, flag, st);
    result(rc);
    if (rc == MPI_SUCCESS) {
        putf(" flag=%d", *flag ? 1 : 0);
        if (*flag) completed(n, before, NULL, n, kinds, st, 0);
    }
    done();
    FREE_REQS(n)
    return rc;
}

int MPI_Waitany(int n, MPI_Request rs[], int *index, MPI_Status *status) {
    if (!LOGGING) return PMPI_Waitany(n, rs, index, status);
    ALLOC_REQS(n)
    MPI_Status *st = status == MPI_STATUS_IGNORE ? own : status;
    memcpy(before, rs, sizeof(MPI_Request) * (size_t)n);
    enter("Waitany", CALLER);
    put_req_ids("r", n, rs, kinds);
    end_entry();
    int rc = PMPI_Waitany(n, rs, index, st);
    result(rc);
    if (rc == MPI_SUCCESS) {
        putf(" index=%d", *index == MPI_UNDEFINED ? -1 : *index);
        if (*index != MPI_UNDEFINED) completed(n, before, index, 1, kinds, st, 0);
    }
    done();
    FREE_REQS(n)
    return rc;
}

int MPI_Testany(int n, MPI_Request rs[], int *index, int *flag, MPI_Status *status) {
    if (!LOGGING) return PMPI_Testany(n, rs, index, flag, status);
    ALLOC_REQS(n)
    MPI_Status *st = status == MPI_STATUS_IGNORE ? own : status;
    memcpy(before, rs, sizeof(MPI_Request) * (size_t)n);
    enter("Testany", CALLER);
    put_req_ids("r", n, rs, kinds);
    end_entry();
    int rc = PMPI_Testany(n, rs, index, flag, st);
    result(rc);
    if (rc == MPI_SUCCESS) {
        putf(" flag=%d index=%d", *flag ? 1 : 0, *index == MPI_UNDEFINED ? -1 : *index);
        if (*flag && *index != MPI_UNDEFINED) completed(n, before, index, 1, kinds, st, 0);
    }
    done();
    FREE_REQS(n)
    return rc;
}

static void some_done(int n, int outcount, const int *idx, const MPI_Request *before,
                      const char *kinds, const MPI_Status *st) {
    if (outcount == MPI_UNDEFINED) { puts_(" done=-1"); return; }
    puts_(" done=");
    for (int j = 0; j < outcount; j++) putf(j ? ",%d" : "%d", idx[j]);
    if (outcount == 0) puts_("-");
    if (outcount > 0) completed(n, before, idx, outcount, kinds, st, 0);
}

int MPI_Waitsome(int n, MPI_Request rs[], int *outcount, int idx[], MPI_Status sts[]) {
    if (!LOGGING) return PMPI_Waitsome(n, rs, outcount, idx, sts);
    ALLOC_REQS(n)
    MPI_Status *st = sts == MPI_STATUSES_IGNORE ? own : sts;
    memcpy(before, rs, sizeof(MPI_Request) * (size_t)n);
    enter("Waitsome", CALLER);
    put_req_ids("r", n, rs, kinds);
    end_entry();
    int rc = PMPI_Waitsome(n, rs, outcount, idx, st);
    result(rc);
    if (rc == MPI_SUCCESS) some_done(n, *outcount, idx, before, kinds, st);
    done();
    FREE_REQS(n)
    return rc;
}

int MPI_Testsome(int n, MPI_Request rs[], int *outcount, int idx[], MPI_Status sts[]) {
    if (!LOGGING) return PMPI_Testsome(n, rs, outcount, idx, sts);
    ALLOC_REQS(n)
    MPI_Status *st = sts == MPI_STATUSES_IGNORE ? own : sts;
    memcpy(before, rs, sizeof(MPI_Request) * (size_t)n);
    enter("Testsome", CALLER);
    put_req_ids("r", n, rs, kinds);
    end_entry();
    int rc = PMPI_Testsome(n, rs, outcount, idx, st);
    result(rc);
    if (rc == MPI_SUCCESS) some_done(n, *outcount, idx, before, kinds, st);
    done();
    FREE_REQS(n)
    return rc;
}

int MPI_Start(MPI_Request *req) {
    if (!LOGGING) return PMPI_Start(req);
    char kind;
    enter("Start", CALLER);
    put_req_ids("r", 1, req, &kind);
    end_entry();
    start_hashes(1);
    int rc = PMPI_Start(req);
    result(rc);
    done();
    return rc;
}

int MPI_Startall(int n, MPI_Request rs[]) {
    if (!LOGGING) return PMPI_Startall(n, rs);
    char kinds_s[MANY], *kinds = n <= MANY ? kinds_s : malloc((size_t)n);
    enter("Startall", CALLER);
    put_req_ids("r", n, rs, kinds);
    end_entry();
    start_hashes(n);
    int rc = PMPI_Startall(n, rs);
    result(rc);
    done();
    if (n > MANY) free(kinds);
    return rc;
}

int MPI_Request_free(MPI_Request *req) {
    if (!LOGGING) return PMPI_Request_free(req);
    MPI_Request before = *req;
    char kind;
    enter("Request_free", CALLER);
    put_req_ids("r", 1, req, &kind);
    end_entry();
    int rc = PMPI_Request_free(req);
    result(rc);
    if (rc == MPI_SUCCESS && before != MPI_REQUEST_NULL) req_done(before);
    done();
    return rc;
}

/* MPI_Cancel (MPI 4.1 §3.8.4): the request must still be completed (wait, test) or freed. */
int MPI_Cancel(MPI_Request *req) {
    if (!LOGGING) return PMPI_Cancel(req);
    char kind;
    enter("Cancel", CALLER);
    put_req_ids("r", 1, req, &kind);
    end_entry();
    int rc = PMPI_Cancel(req);
    result(rc);
    done();
    return rc;
}

/* ---- buffered mode ----------------------------------------------------------------------- */
static int automatic(const void *buf) {
#ifdef MPI_BUFFER_AUTOMATIC
    return buf == MPI_BUFFER_AUTOMATIC;
#else
    (void)buf;
    return 0;
#endif
}

int MPI_Buffer_attach(void *buf, int size) {
    if (!LOGGING) return PMPI_Buffer_attach(buf, size);
    enter("Buffer_attach", CALLER);
    if (automatic(buf)) puts_(" size=auto");
    else putf(" size=%d", size);
    end_entry();
    int rc = PMPI_Buffer_attach(buf, size);
    result(rc);
    done();
    return rc;
}

int MPI_Buffer_detach(void *addr, int *size) {
    if (!LOGGING) return PMPI_Buffer_detach(addr, size);
    enter("Buffer_detach", CALLER);
    end_entry();
    int rc = PMPI_Buffer_detach(addr, size);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" size=%d", *size);
    done();
    return rc;
}

#if HAVE_MPI41
int MPI_Buffer_flush(void) {
    if (!LOGGING) return PMPI_Buffer_flush();
    enter("Buffer_flush", CALLER);
    end_entry();
    int rc = PMPI_Buffer_flush();
    result(rc);
    done();
    return rc;
}

int MPI_Buffer_iflush(MPI_Request *req) {
    if (!LOGGING) return PMPI_Buffer_iflush(req);
    enter("Buffer_iflush", CALLER);
    end_entry();
    int rc = PMPI_Buffer_iflush(req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'f'));
    done();
    return rc;
}

int MPI_Comm_attach_buffer(MPI_Comm comm, void *buf, int size) {
    if (!LOGGING) return PMPI_Comm_attach_buffer(comm, buf, size);
    enter("Comm_attach_buffer", CALLER);
    putf(" comm=%d", comm_id(comm));
    if (automatic(buf)) puts_(" size=auto");
    else putf(" size=%d", size);
    end_entry();
    int rc = PMPI_Comm_attach_buffer(comm, buf, size);
    result(rc);
    done();
    return rc;
}

int MPI_Comm_detach_buffer(MPI_Comm comm, void *addr, int *size) {
    if (!LOGGING) return PMPI_Comm_detach_buffer(comm, addr, size);
    enter("Comm_detach_buffer", CALLER);
    putf(" comm=%d", comm_id(comm));
    end_entry();
    int rc = PMPI_Comm_detach_buffer(comm, addr, size);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" size=%d", *size);
    done();
    return rc;
}

int MPI_Comm_flush_buffer(MPI_Comm comm) {
    if (!LOGGING) return PMPI_Comm_flush_buffer(comm);
    enter("Comm_flush_buffer", CALLER);
    putf(" comm=%d", comm_id(comm));
    end_entry();
    int rc = PMPI_Comm_flush_buffer(comm);
    result(rc);
    done();
    return rc;
}

int MPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Comm_iflush_buffer(comm, req);
    enter("Comm_iflush_buffer", CALLER);
    putf(" comm=%d", comm_id(comm));
    end_entry();
    int rc = PMPI_Comm_iflush_buffer(comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'f'));
    done();
    return rc;
}
#endif

/* ---- communicators ----------------------------------------------------------------------- */
static int rank_in_comm(MPI_Comm comm) {
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    return me;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
    if (!LOGGING) return PMPI_Comm_dup(comm, newcomm);
    enter("Comm_dup", CALLER);
    putf(" comm=%d", comm_id(comm));
    end_entry();
    int rc = PMPI_Comm_dup(comm, newcomm);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" new=%d", new_comm(*newcomm));
    done();
    return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
    if (!LOGGING) return PMPI_Comm_split(comm, color, key, newcomm);
    enter("Comm_split", CALLER);
    putf(" comm=%d", comm_id(comm));
    if (color == MPI_UNDEFINED) puts_(" color=U");
    else putf(" color=%d", color);
    putf(" key=%d", key);
    end_entry();
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    result(rc);
    if (rc == MPI_SUCCESS) {
        putf(" new=%d", new_comm(*newcomm));
        if (*newcomm != MPI_COMM_NULL) {
            int size = 0, rank = 0;
            PMPI_Comm_size(*newcomm, &size);
            PMPI_Comm_rank(*newcomm, &rank);
            putf(" size=%d rank=%d", size, rank);
        }
    }
    done();
    return rc;
}

int MPI_Comm_free(MPI_Comm *comm) {
    if (!LOGGING) return PMPI_Comm_free(comm);
    MPI_Comm before = *comm;
    enter("Comm_free", CALLER);
    putf(" comm=%d", comm_id(*comm));
    end_entry();
    int rc = PMPI_Comm_free(comm);
    result(rc);
    if (rc == MPI_SUCCESS) forget(comms, KEY(before));
    done();
    return rc;
}

/* Calls that make a communicator out of a parent by a collective over the parent
 * (topologies, Comm_create, Comm_split_type): logged with their own arguments (dims,
 * periods, graph edges, the group's members as parent ranks, the split type) and, in the
 * result, as the split that makes the same communicator, so that a replay can make either.
 * color: the parent rank of the new communicator's rank 0 (one color per new communicator,
 * U for MPI_COMM_NULL); the key is the process's rank in it (rank=), reordering included. */
static void maker_begin(const char *call, MPI_Comm parent, void *caller) {
    enter(call, caller);
    putf(" comm=%d", comm_id(parent));
}

static void put_ints(const char *key, int n, const int *values) {
    putf(" %s=", key);
    if (n <= 0) puts_("-");
    for (int i = 0; i < n; i++) putf(i ? ",%d" : "%d", values[i]);
}

static int maker_end(int rc, MPI_Comm parent, MPI_Comm made) {
    result(rc);
    if (rc == MPI_SUCCESS) {
        putf(" new=%d", new_comm(made));
        if (made == MPI_COMM_NULL) puts_(" color=U");
        else {
            int size = 0, rank = 0, zero = 0, first = 0;
            MPI_Group group, parents;
            PMPI_Comm_size(made, &size);
            PMPI_Comm_rank(made, &rank);
            PMPI_Comm_group(made, &group);
            PMPI_Comm_group(parent, &parents);
            PMPI_Group_translate_ranks(group, 1, &zero, parents, &first);
            PMPI_Group_free(&group);
            PMPI_Group_free(&parents);
            putf(" color=%d size=%d rank=%d", first, size, rank);
        }
    }
    done();
    return rc;
}

int MPI_Cart_create(MPI_Comm old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *cart) {
    if (!LOGGING) return PMPI_Cart_create(old, ndims, dims, periods, reorder, cart);
    maker_begin("Cart_create", old, CALLER);
    put_ints("dims", ndims, dims);
    put_ints("periods", ndims, periods);
    putf(" reorder=%d", reorder != 0);
    end_entry();
    int rc = PMPI_Cart_create(old, ndims, dims, periods, reorder, cart);
    return maker_end(rc, old, *cart);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm) {
    if (!LOGGING) return PMPI_Cart_sub(comm, remain_dims, newcomm);
    int ndims = 0;
    PMPI_Cartdim_get(comm, &ndims);
    maker_begin("Cart_sub", comm, CALLER);
    put_ints("remain", ndims, remain_dims);
    end_entry();
    int rc = PMPI_Cart_sub(comm, remain_dims, newcomm);
    return maker_end(rc, comm, *newcomm);
}

int MPI_Graph_create(MPI_Comm old, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm *graph) {
    if (!LOGGING) return PMPI_Graph_create(old, nnodes, index, edges, reorder, graph);
    maker_begin("Graph_create", old, CALLER);
    put_ints("index", nnodes, index);
    put_ints("edges", nnodes > 0 ? index[nnodes - 1] : 0, edges);
    putf(" reorder=%d", reorder != 0);
    end_entry();
    int rc = PMPI_Graph_create(old, nnodes, index, edges, reorder, graph);
    return maker_end(rc, old, *graph);
}

static void put_weights(const char *key, int n, const int *weights) {
    if (weights != MPI_UNWEIGHTED && weights != MPI_WEIGHTS_EMPTY) put_ints(key, n, weights);
    else if (weights == MPI_WEIGHTS_EMPTY) putf(" %s=-", key);
}

int MPI_Dist_graph_create_adjacent(MPI_Comm old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[],
                                   MPI_Info info, int reorder, MPI_Comm *graph) {
    if (!LOGGING)
        return PMPI_Dist_graph_create_adjacent(old, indegree, sources, sourceweights,
                                               outdegree, destinations, destweights, info,
                                               reorder, graph);
    maker_begin("Dist_graph_create_adjacent", old, CALLER);
    put_ints("ins", indegree, sources);
    put_ints("outs", outdegree, destinations);
    put_weights("sw", indegree, sourceweights);
    put_weights("dw", outdegree, destweights);
    putf(" reorder=%d", reorder != 0);
    end_entry();
    int rc = PMPI_Dist_graph_create_adjacent(old, indegree, sources, sourceweights, outdegree,
                                             destinations, destweights, info, reorder, graph);
    return maker_end(rc, old, *graph);
}

int MPI_Dist_graph_create(MPI_Comm old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info,
                          int reorder, MPI_Comm *graph) {
    if (!LOGGING)
        return PMPI_Dist_graph_create(old, n, sources, degrees, destinations, weights, info,
                                      reorder, graph);
    int edges = 0;
    for (int i = 0; i < n; i++) edges += degrees[i];
    maker_begin("Dist_graph_create", old, CALLER);
    put_ints("srcs", n, sources);
    put_ints("degs", n, degrees);
    put_ints("dsts", edges, destinations);
    put_weights("wts", edges, weights);
    putf(" reorder=%d", reorder != 0);
    end_entry();
    int rc = PMPI_Dist_graph_create(old, n, sources, degrees, destinations, weights, info,
                                    reorder, graph);
    return maker_end(rc, old, *graph);
}

/* A group's members as ranks of a communicator's group (-1 for one not in it). */
static void put_members(const char *key, MPI_Group group, MPI_Comm comm) {
    int n = 0;
    MPI_Group parents;
    PMPI_Group_size(group, &n);
    int *mine = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *theirs = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++) mine[i] = i;
    PMPI_Comm_group(comm, &parents);
    PMPI_Group_translate_ranks(group, n, mine, parents, theirs);
    PMPI_Group_free(&parents);
    for (int i = 0; i < n; i++) if (theirs[i] == MPI_UNDEFINED) theirs[i] = -1;
    put_ints(key, n, theirs);
    free(mine);
    free(theirs);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
    if (!LOGGING) return PMPI_Comm_create(comm, group, newcomm);
    maker_begin("Comm_create", comm, CALLER);
    put_members("grp", group, comm);
    end_entry();
    int rc = PMPI_Comm_create(comm, group, newcomm);
    return maker_end(rc, comm, *newcomm);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm) {
    if (!LOGGING) return PMPI_Comm_create_group(comm, group, tag, newcomm);
    maker_begin("Comm_create_group", comm, CALLER);
    put_members("grp", group, comm);
    putf(" tag=%d", tag);
    end_entry();
    int rc = PMPI_Comm_create_group(comm, group, tag, newcomm);
    return maker_end(rc, comm, *newcomm);
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                        MPI_Comm *newcomm) {
    if (!LOGGING) return PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
    maker_begin("Comm_split_type", comm, CALLER);
    if (split_type == MPI_UNDEFINED) puts_(" type=U");
    else if (split_type == MPI_COMM_TYPE_SHARED) puts_(" type=S");
    else putf(" type=%d", split_type);
    putf(" key=%d", key);
    end_entry();
    int rc = PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
    return maker_end(rc, comm, *newcomm);
}

/* Intercommunicators (MPI 4.1 §7.6): the new one's id, its local size and rank, and the
 * remote group's size (rsize=). */
static int inter_end(int rc, MPI_Comm made) {
    result(rc);
    if (rc == MPI_SUCCESS) {
        putf(" new=%d", new_comm(made));
        if (made != MPI_COMM_NULL) {
            int size = 0, rank = 0, remote = 0, inter = 0;
            PMPI_Comm_size(made, &size);
            PMPI_Comm_rank(made, &rank);
            PMPI_Comm_test_inter(made, &inter);
            if (inter) PMPI_Comm_remote_size(made, &remote);
            putf(" size=%d rank=%d", size, rank);
            if (inter) putf(" rsize=%d", remote);
        }
    }
    done();
    return rc;
}

int MPI_Intercomm_create(MPI_Comm local, int local_leader, MPI_Comm peer, int remote_leader,
                         int tag, MPI_Comm *newcomm) {
    if (!LOGGING)
        return PMPI_Intercomm_create(local, local_leader, peer, remote_leader, tag, newcomm);
    enter("Intercomm_create", CALLER);
    putf(" comm=%d ll=%d", comm_id(local), local_leader);
    if (rank_in_comm(local) == local_leader)
        putf(" peer=%d rl=%d tag=%d", comm_id(peer), remote_leader, tag);
    end_entry();
    int rc = PMPI_Intercomm_create(local, local_leader, peer, remote_leader, tag, newcomm);
    return inter_end(rc, *newcomm);
}

int MPI_Intercomm_merge(MPI_Comm inter, int high, MPI_Comm *newcomm) {
    if (!LOGGING) return PMPI_Intercomm_merge(inter, high, newcomm);
    enter("Intercomm_merge", CALLER);
    putf(" comm=%d high=%d", comm_id(inter), high != 0);
    end_entry();
    int rc = PMPI_Intercomm_merge(inter, high, newcomm);
    return inter_end(rc, *newcomm);
}

/* ---- dynamic processes (MPI 4.1 §11.8, §11.10.4) -------------------------------------------
 * MPI_Comm_spawn[_multiple]: comm, root and, at the root, the command(s) and maxprocs (np);
 * the result's new intercommunicator (size, rank, rsize: the children), spawn=ID (the
 * children's logs are spawn.ID.rank.N.log) and errs=, each child's error class (0: started),
 * when the program asked for them. */
static void put_word(const char *key, const char *s);

static int known_comm(MPI_Comm c) {  /* an id without a description: the call gives it */
    slot_t *s = lookup(comms, KEY(c), 1);
    if (!s) return -2;
    if (s->id == 0) s->id = next_comm++;
    return s->id;
}

static int spawn_end(int rc, MPI_Comm comm, int root, MPI_Comm inter, int n, const int *errs) {
    char id[sizeof spawn_id] = "";
    if (rc == MPI_SUCCESS && inter != MPI_COMM_NULL && log_dir[0])
        spawn_id_give(inter, root, comm, id, sizeof id);
    result(rc);
    if (rc == MPI_SUCCESS && inter != MPI_COMM_NULL) {
        int size = 0, rank = 0, remote = 0;
        PMPI_Comm_size(inter, &size);
        PMPI_Comm_rank(inter, &rank);
        PMPI_Comm_remote_size(inter, &remote);
        putf(" new=%d size=%d rank=%d rsize=%d", new_comm(inter), size, rank, remote);
        if (id[0]) putf(" spawn=%s", id);
    }
    if (errs != MPI_ERRCODES_IGNORE && n > 0) {
        puts_(" errs=");
        for (int i = 0; i < n; i++) {
            if (i) puts_(",");
            puts_(errs[i] == MPI_SUCCESS ? "0" : error_name(errs[i]));
        }
    }
    done();
    return rc;
}

int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                   MPI_Comm comm, MPI_Comm *intercomm, int errcodes[]) {
    if (!LOGGING) {
        int rc = PMPI_Comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, errcodes);
        char id[sizeof spawn_id];  /* (the children still wait for their spawn's ID) */
        if (rc == MPI_SUCCESS && *intercomm != MPI_COMM_NULL && log_dir[0])
            spawn_id_give(*intercomm, root, comm, id, sizeof id);
        return rc;
    }
    int at_root = comm != MPI_COMM_NULL && rank_in_comm(comm) == root;
    enter("Comm_spawn", CALLER);
    putf(" comm=%d root=%d", comm_id(comm), root);
    if (at_root) {
        put_word("cmd", command);
        putf(" np=%d", maxprocs);
    }
    end_entry();
    int rc = PMPI_Comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, errcodes);
    return spawn_end(rc, comm, root, *intercomm, at_root ? maxprocs : 0, errcodes);
}

int MPI_Comm_spawn_multiple(int count, char *commands[], char **argvs[], const int maxprocs[],
                            const MPI_Info infos[], int root, MPI_Comm comm, MPI_Comm *intercomm,
                            int errcodes[]) {
    if (!LOGGING) {
        int rc = PMPI_Comm_spawn_multiple(count, commands, argvs, maxprocs, infos, root, comm,
                                          intercomm, errcodes);
        char id[sizeof spawn_id];
        if (rc == MPI_SUCCESS && *intercomm != MPI_COMM_NULL && log_dir[0])
            spawn_id_give(*intercomm, root, comm, id, sizeof id);
        return rc;
    }
    int at_root = comm != MPI_COMM_NULL && rank_in_comm(comm) == root, total = 0;
    enter("Comm_spawn_multiple", CALLER);
    putf(" comm=%d root=%d", comm_id(comm), root);
    if (at_root && count > 0) {
        put_word("cmds", commands[0]);
        for (int i = 1; i < count; i++) {  /* the others after commas, as put_word writes */
            puts_(",");
            for (const char *c = commands[i]; c && *c; c++) {
                char ch = (*c == ' ' || *c == '=' || *c == '\n' || *c == ',') ? '_' : *c;
                put(&ch, 1);
            }
        }
        for (int i = 0; i < count; i++) total += maxprocs[i] > 0 ? maxprocs[i] : 0;
        put_ints("np", count, maxprocs);
    }
    end_entry();
    int rc = PMPI_Comm_spawn_multiple(count, commands, argvs, maxprocs, infos, root, comm,
                                      intercomm, errcodes);
    return spawn_end(rc, comm, root, *intercomm, total, errcodes);
}

int MPI_Comm_get_parent(MPI_Comm *parent) {
    if (!LOGGING) return PMPI_Comm_get_parent(parent);
    enter("Comm_get_parent", CALLER);
    end_entry();
    int rc = PMPI_Comm_get_parent(parent);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" new=%d", *parent == MPI_COMM_NULL ? -1 : known_comm(*parent));
    done();
    return rc;
}

int MPI_Comm_disconnect(MPI_Comm *comm) {
    if (!LOGGING) return PMPI_Comm_disconnect(comm);
    MPI_Comm before = *comm;
    enter("Comm_disconnect", CALLER);
    putf(" comm=%d", comm_id(*comm));
    end_entry();
    int rc = PMPI_Comm_disconnect(comm);
    result(rc);
    if (rc == MPI_SUCCESS) forget(comms, KEY(before));
    done();
    return rc;
}

/* ---- a datatype's life (MPI 4.1 §5.1.9): committed, then freed; a replay finds the derived
 * types a process never freed. T=0 is MPI_DATATYPE_NULL. ---------------------------------- */
int MPI_Type_commit(MPI_Datatype *t) {
    if (!LOGGING) return PMPI_Type_commit(t);
    enter("Type_commit", CALLER);
    putf(" T=%d", type_id(*t));
    end_entry();
    int rc = PMPI_Type_commit(t);
    result(rc);
    done();
    return rc;
}

int MPI_Type_free(MPI_Datatype *t) {
    MPI_Datatype before = *t;
    if (!LOGGING) {
        int rc = PMPI_Type_free(t);
        if (rc == MPI_SUCCESS && fd >= 0) {  /* the handle may be reused */
            LOCK();
            forget(types, KEY(before));
            UNLOCK();
        }
        return rc;
    }
    enter("Type_free", CALLER);
    putf(" T=%d", type_id(*t));
    end_entry();
    int rc = PMPI_Type_free(t);
    result(rc);
    if (rc == MPI_SUCCESS) forget(types, KEY(before));
    done();
    return rc;
}

/* ---- collectives -------------------------------------------------------------------------- */
/* Each collective logs what one process gives: n elements of T (its own part: a receive count
 * where MPI_IN_PLACE stands for the send buffer), root, and for the v and w forms a count per
 * rank (ns) and a datatype per rank (Ts). Its nonblocking form (MPI 4.1 §6.12) logs the same
 * and its request. */
static void counts(const char *key, const int *cs, MPI_Comm comm) {
    int size = 0;
    PMPI_Comm_size(comm, &size);
    putf(" %s=", key);
    for (int i = 0; i < size; i++) putf(i ? ",%d" : "%d", cs[i]);
}

static void type_ids(const char *key, const MPI_Datatype *ts, MPI_Comm comm) {
    int size = 0;
    PMPI_Comm_size(comm, &size);
    putf(" %s=", key);
    for (int i = 0; i < size; i++) putf(i ? ",%d" : "%d", type_id(ts[i]));
}

static int rank_in(MPI_Comm comm) {
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    return me;
}

/* The processes a collective's buffers hold a block for (an intercommunicator's remote
 * group). */
static int comm_size_of(MPI_Comm comm) {
    int size = 0, inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) PMPI_Comm_remote_size(comm, &size);
    else PMPI_Comm_size(comm, &size);
    return size;
}

/* One collective: its name, the logging of its arguments, then the PMPI call (REQ: its new
 * request, NULL for a blocking one). */
static void rooted(int count, MPI_Datatype dt, int root) {
    putf(" n=%d T=%d root=%d", count, type_id(dt), root);
}

static void sized(int count, MPI_Datatype dt) { putf(" n=%d T=%d", count, type_id(dt)); }

/* A gather's part: the send count, or at the root with MPI_IN_PLACE its block's. */
static void gathered(const void *s, int sc, MPI_Datatype st, int rc, MPI_Datatype rt,
                     int root, MPI_Comm comm) {
    if (s == MPI_IN_PLACE && rank_in(comm) == root) rooted(rc, rt, root);
    else rooted(sc, st, root);
}

/* A receiving rank's blocks of a v or w form (MPI 4.1 §6.5 to §6.8): its receive counts
 * (rns), displacements (rds, in elements of rT; bytes for the w form) and receive datatype
 * (rT, or rTs one per rank), with ip=1 when its own part is MPI_IN_PLACE; so that a replay
 * receives each block as the program did and checks them (overlapping blocks, the own
 * block's type signature). Left out beyond V_LOGGED processes (the line's room), and on an
 * intercommunicator (its arrays count the remote group's processes). */
#define V_LOGGED 128
static int v_logged(MPI_Comm comm) {
    int size = 0, inter = 0;
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_test_inter(comm, &inter);
    return size <= V_LOGGED && !inter;
}

static void received_v(int in_place, const int rcs[], const int rd[], MPI_Datatype rt,
                       const MPI_Datatype rts[], MPI_Comm comm) {
    if (in_place) puts_(" ip=1");
    if (!v_logged(comm)) return;
    if (rts) type_ids("rTs", rts, comm);
    else putf(" rT=%d", type_id(rt));
    counts("rns", rcs, comm);
    counts("rds", rd, comm);
}

static void gatheredv(const void *s, int sc, MPI_Datatype st, const int rcs[],
                      const int displs[], MPI_Datatype rt, int root, MPI_Comm comm) {
    int me = rank_in(comm);
    if (s == MPI_IN_PLACE && me == root) rooted(rcs[me], rt, root);
    else rooted(sc, st, root);
    if (me == root) received_v(s == MPI_IN_PLACE, rcs, displs, rt, NULL, comm);
}

/* An allgather's or all-to-all's part: the send count, or with MPI_IN_PLACE the receive's. */
static void own(const void *s, int sc, MPI_Datatype st, int rc, MPI_Datatype rt) {
    if (s == MPI_IN_PLACE) sized(rc, rt);
    else sized(sc, st);
}

/* An allgatherv's part: its own (as own()), then every block it receives. */
static void allgatheredv(const void *s, int sc, MPI_Datatype st, const int rcs[],
                         const int displs[], MPI_Datatype rt, MPI_Comm comm) {
    own(s, sc, st, rcs[rank_in(comm)], rt);
    received_v(s == MPI_IN_PLACE, rcs, displs, rt, NULL, comm);
}

/* A scatter's part: at the root its send blocks, elsewhere what it receives. */
static void scattered(int sc, MPI_Datatype st, int rc, MPI_Datatype rt, int root,
                      MPI_Comm comm) {
    if (rank_in(comm) == root) rooted(sc, st, root);
    else rooted(rc, rt, root);
}

/* A scatterv's part: at the root its send blocks (T, ns, and their displacements ds) and
 * its own receive (rn, rT; ip=1 for MPI_IN_PLACE: its block stays where it is, §6.6),
 * elsewhere what it receives. */
static void scatteredv(const int scs[], const int displs[], MPI_Datatype st, const void *r,
                       int rc, MPI_Datatype rt, int root, MPI_Comm comm) {
    putf(" root=%d", root);
    if (rank_in(comm) != root) { sized(rc, rt); return; }
    putf(" T=%d", type_id(st));
    counts("ns", scs, comm);
    if (v_logged(comm)) counts("ds", displs, comm);
    if (r == MPI_IN_PLACE) puts_(" ip=1");
    else putf(" rn=%d rT=%d", rc, type_id(rt));
}

/* An all-to-all's counts per rank: the send counts, or with MPI_IN_PLACE the receive ones. */
static void ownv(const void *s, const int scs[], MPI_Datatype st, const int rcs[],
                 const int rd[], MPI_Datatype rt, MPI_Comm comm) {
    if (s == MPI_IN_PLACE) { putf(" T=%d", type_id(rt)); counts("ns", rcs, comm); }
    else { putf(" T=%d", type_id(st)); counts("ns", scs, comm); }
    received_v(s == MPI_IN_PLACE, rcs, rd, rt, NULL, comm);
}

static void ownw(const void *s, const int scs[], const MPI_Datatype sts[], const int rcs[],
                 const int rd[], const MPI_Datatype rts[], MPI_Comm comm) {
    int in_place = s == MPI_IN_PLACE;
    counts("ns", in_place ? rcs : scs, comm);
    type_ids("Ts", in_place ? rts : sts, comm);
    received_v(in_place, rcs, rd, MPI_DATATYPE_NULL, rts, comm);
}

/* ---- neighbourhood collectives (MPI 4.1 §8.6): what this process sends; the replay finds
 * the neighbours from the topology. The v and w forms give a count (and type) per
 * out-neighbour. */
static int out_degree(MPI_Comm comm) {
    int kind = MPI_UNDEFINED, in = 0, out = 0, weighted = 0;
    PMPI_Topo_test(comm, &kind);
    if (kind == MPI_CART) { PMPI_Cartdim_get(comm, &out); out *= 2; }
    else if (kind == MPI_GRAPH) PMPI_Graph_neighbors_count(comm, rank_in(comm), &out);
    else if (kind == MPI_DIST_GRAPH) PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
    return out;
}

static void per_out(const int *cs, const MPI_Datatype *ts, MPI_Datatype t, MPI_Comm comm) {
    int n = out_degree(comm);
    if (!ts) putf(" T=%d", type_id(t));
    put_ints("ns", n, cs);
    if (ts) {
        puts_(" Ts=");
        if (n <= 0) puts_("-");
        for (int i = 0; i < n; i++) putf(i ? ",%d" : "%d", type_id(ts[i]));
    }
}

/* ---- groups (MPI 4.1 §7.3): numbered when made; each logged with its members as ranks of
 * MPI_COMM_WORLD (wr=), so that a replay makes any group, whatever call made it ------------- */
static slot_t groups[TABLE], wins[TABLE];
static int next_group = 1, next_win = 1;

static int new_id(slot_t *t, uint64_t key, int *next) {
    slot_t *s = lookup(t, key, 1);
    if (!s) return -1;
    if (t == ops_t) memo_clear();  /* an operation's name changes (user -> uN) */
    s->id = (*next)++;
    return s->id;
}

static int known_id(slot_t *t, uint64_t key) {
    slot_t *s = lookup(t, key, 0);
    return s ? s->id : -1;
}

static int group_id(MPI_Group g) { return g == MPI_GROUP_EMPTY ? 0 : known_id(groups, KEY(g)); }

/* A group's members as ranks of the group `of` (-1 for one not in it). */
static void put_members_of(const char *key, MPI_Group group, MPI_Group of) {
    int n = 0;
    PMPI_Group_size(group, &n);
    int *mine = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *theirs = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++) mine[i] = i;
    PMPI_Group_translate_ranks(group, n, mine, of, theirs);
    for (int i = 0; i < n; i++) if (theirs[i] == MPI_UNDEFINED) theirs[i] = -1;
    put_ints(key, n, theirs);
    free(mine);
    free(theirs);
}

/* The result of a call that made a group: its id and its members as world ranks (the
 * call made first: `made` points to what it made). */
static int group_made(int rc, const MPI_Group *made) {
    result(rc);
    if (rc == MPI_SUCCESS) {
        MPI_Group world;
        putf(" gid=%d", *made == MPI_GROUP_EMPTY ? 0 : new_id(groups, KEY(*made), &next_group));
        PMPI_Comm_group(MPI_COMM_WORLD, &world);
        put_members_of("wr", *made, world);
        PMPI_Group_free(&world);
    }
    done();
    return rc;
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group *group) {
    if (!LOGGING) return PMPI_Comm_group(comm, group);
    enter("Comm_group", CALLER);
    putf(" comm=%d", comm_id(comm));
    end_entry();
    return group_made(PMPI_Comm_group(comm, group), group);
}

#define GROUP_RANKS(NAME)                                                                 \
    int MPI_##NAME(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup) {      \
        if (!LOGGING) return PMPI_##NAME(group, n, ranks, newgroup);                      \
        enter(#NAME, CALLER);                                                             \
        putf(" gid=%d", group_id(group));                                                 \
        put_ints("ranks", n, ranks);                                                      \
        end_entry();                                                                      \
        return group_made(PMPI_##NAME(group, n, ranks, newgroup), newgroup);              \
    }
GROUP_RANKS(Group_incl)
GROUP_RANKS(Group_excl)

int MPI_Group_free(MPI_Group *group) {
    if (!LOGGING) return PMPI_Group_free(group);
    MPI_Group before = *group;
    enter("Group_free", CALLER);
    putf(" gid=%d", group_id(*group));
    end_entry();
    int rc = PMPI_Group_free(group);
    result(rc);
    if (rc == MPI_SUCCESS) forget(groups, KEY(before));
    done();
    return rc;
}

/* ---- MPI_Comm_idup (MPI 4.1 §7.4.2): the new communicator's id and the request's --------- */
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Comm_idup(comm, newcomm, req);
    enter("Comm_idup", CALLER);
    putf(" comm=%d", comm_id(comm));
    end_entry();
    int rc = PMPI_Comm_idup(comm, newcomm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" new=%d r=%d", new_comm(*newcomm), req_new(*req, 'c'));
    done();
    return rc;
}

/* A string argument as one word of the log (spaces, '=', ',' and newlines made '_'). */
static void put_word(const char *key, const char *s) {
    putf(" %s=", key);
    for (; s && *s; s++) {
        char c = (*s == ' ' || *s == '=' || *s == '\n' || *s == ',') ? '_' : *s;
        put(&c, 1);
    }
}

/* ---- sessions (MPI 4.1 §11.3). A process's log starts at MPI_Init: a program that uses
 * sessions alone, without MPI_Init, is not recorded. ---------------------------------------- */
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
static slot_t sessions[TABLE];
static int next_session = 1;

int MPI_Session_init(MPI_Info info, MPI_Errhandler eh, MPI_Session *session) {
    if (!LOGGING) return PMPI_Session_init(info, eh, session);
    enter("Session_init", CALLER);
    end_entry();
    int rc = PMPI_Session_init(info, eh, session);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" sid=%d", new_id(sessions, KEY(*session), &next_session));
    done();
    return rc;
}

int MPI_Session_finalize(MPI_Session *session) {
    if (!LOGGING) return PMPI_Session_finalize(session);
    MPI_Session before = *session;
    enter("Session_finalize", CALLER);
    putf(" sid=%d", known_id(sessions, KEY(*session)));
    end_entry();
    int rc = PMPI_Session_finalize(session);
    result(rc);
    if (rc == MPI_SUCCESS) forget(sessions, KEY(before));
    done();
    return rc;
}

int MPI_Group_from_session_pset(MPI_Session session, const char *pset, MPI_Group *group) {
    if (!LOGGING) return PMPI_Group_from_session_pset(session, pset, group);
    enter("Group_from_session_pset", CALLER);
    putf(" sid=%d", known_id(sessions, KEY(session)));
    put_word("pset", pset);
    end_entry();
    return group_made(PMPI_Group_from_session_pset(session, pset, group), group);
}

int MPI_Comm_create_from_group(MPI_Group group, const char *tag, MPI_Info info,
                               MPI_Errhandler eh, MPI_Comm *newcomm) {
    if (!LOGGING) return PMPI_Comm_create_from_group(group, tag, info, eh, newcomm);
    enter("Comm_create_from_group", CALLER);
    putf(" gid=%d", group_id(group));
    put_word("stag", tag);
    end_entry();
    int rc = PMPI_Comm_create_from_group(group, tag, info, eh, newcomm);
    return inter_end(rc, *newcomm);
}
#endif

/* ---- one-sided communication (MPI 4.1 §12): windows numbered when made; targets are
 * ranks of the window's group; assertions and lock types by name (the libraries' values
 * differ); an accumulate's operation by name. ------------------------------------------------ */
static int win_id(MPI_Win w) { return w == MPI_WIN_NULL ? 0 : known_id(wins, KEY(w)); }

static void put_assert(int a) {
    static const struct { int bit; const char *name; } modes[] = {
        {MPI_MODE_NOCHECK, "nocheck"}, {MPI_MODE_NOSTORE, "nostore"},
        {MPI_MODE_NOPUT, "noput"}, {MPI_MODE_NOPRECEDE, "noprecede"},
        {MPI_MODE_NOSUCCEED, "nosucceed"}};
    const char *sep = "";
    puts_(" assert=");
    if (!a) puts_("0");
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (a & modes[i].bit) { puts_(sep); puts_(modes[i].name); sep = ","; }
}


static TLS void *allocated;     /* MPI_Win_allocate's memory, for its result's wb= */
static TLS MPI_Aint allocated_size;

static int win_made(int rc, MPI_Win *win) {
    result(rc);
    if (rc == MPI_SUCCESS) putf(" win=%d", new_id(wins, KEY(*win), &next_win));
    if (rc == MPI_SUCCESS && allocated) put_window(allocated, allocated_size);
    allocated = NULL;
    done();
    return rc;
}

int MPI_Win_create(void *base, MPI_Aint size, int du, MPI_Info info, MPI_Comm comm,
                   MPI_Win *win) {
    if (!LOGGING) return PMPI_Win_create(base, size, du, info, comm, win);
    enter("Win_create", CALLER);
    putf(" comm=%d size=%lld du=%d", comm_id(comm), (long long)size, du);
    put_window(base, size);
    end_entry();
    return win_made(PMPI_Win_create(base, size, du, info, comm, win), win);
}

int MPI_Win_allocate(MPI_Aint size, int du, MPI_Info info, MPI_Comm comm, void *base,
                     MPI_Win *win) {
    if (!LOGGING) return PMPI_Win_allocate(size, du, info, comm, base, win);
    enter("Win_allocate", CALLER);
    putf(" comm=%d size=%lld du=%d", comm_id(comm), (long long)size, du);
    end_entry();
    int rc = PMPI_Win_allocate(size, du, info, comm, base, win);
    if (rc == MPI_SUCCESS) allocated = *(void **)base, allocated_size = size;
    return win_made(rc, win);
}

int MPI_Win_free(MPI_Win *win) {
    if (!LOGGING) return PMPI_Win_free(win);
    MPI_Win before = *win;
    enter("Win_free", CALLER);
    putf(" win=%d", win_id(*win));
    end_entry();
    int rc = PMPI_Win_free(win);
    result(rc);
    if (rc == MPI_SUCCESS) forget(wins, KEY(before));
    done();
    return rc;
}

static void rma_args(MPI_Win win, int n, MPI_Datatype t, int target, MPI_Aint disp, int tn,
                     MPI_Datatype tt) {
    putf(" win=%d n=%d T=%d", win_id(win), n, type_id(t));
    put_peer("tgt", target);
    putf(" tdisp=%lld tn=%d tT=%d", (long long)disp, tn, type_id(tt));
}

/* ---- request-based one-sided operations (MPI 4.1 §12.3.5): as their plain forms, with the
 * request made (kind 'o'), which a wait or test completes -------------------------------- */

/* A synchronization call: its name, then what follows "win=ID" (ARGS), then the call. */
static void win_group(const char *key, MPI_Group group, MPI_Win win) {
    MPI_Group of;
    PMPI_Win_get_group(win, &of);
    put_members_of(key, group, of);
    PMPI_Group_free(&of);
}

/* ---- persistent collectives (MPI 4.1 §6.13): logged as their nonblocking forms are, with
 * the persistent request made (kind 'P': each MPI_Start starts the collective again, a wait
 * completes that start, MPI_Request_free ends it). ---------------------------------------- */
#if MPI_VERSION >= 4

#endif

/* ---- user-defined reduction operations (MPI 4.1 §6.9.5): numbered when made (u1...), so
 * that the collectives name them; MPI_Op_free logged. ------------------------------------- */
int MPI_Op_create(MPI_User_function *fn, int commute, MPI_Op *op) {
    if (!LOGGING) return PMPI_Op_create(fn, commute, op);
    enter("Op_create", CALLER);
    putf(" commute=%d", commute != 0);
    end_entry();
    int rc = PMPI_Op_create(fn, commute, op);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" op=u%d", new_id(ops_t, KEY(*op), &next_op));
    done();
    return rc;
}

int MPI_Op_free(MPI_Op *op) {
    if (!LOGGING) return PMPI_Op_free(op);
    MPI_Op before = *op;
    enter("Op_free", CALLER);
    put_op(*op);
    end_entry();
    int rc = PMPI_Op_free(op);
    result(rc);
    if (rc == MPI_SUCCESS) forget(ops_t, KEY(before));
    done();
    return rc;
}

/* ---- large counts (MPI 4.1 §6, "_c" bindings): logged as their int forms, counts as
 * MPI_Count (the log's n= is any integer) ------------------------------------------------- */
#if MPI_VERSION >= 4
static void send_args_c(MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                        int pack) {
    put_peer("dest", dest);
    put_tag("tag", tag);
    putf(" comm=%d n=%lld T=%d", comm_id(comm), (long long)count, type_id(dt));
    if (pack) {
        MPI_Count ps = 0;
        PMPI_Pack_size_c(count, dt, comm, &ps);
        putf(" pk=%lld", (long long)ps);
    }
}

static void recv_args_c(MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm) {
    put_peer("src", source);
    put_tag("tag", tag);
    putf(" comm=%d n=%lld T=%d", comm_id(comm), (long long)count, type_id(dt));
}

static void rooted_c(MPI_Count count, MPI_Datatype dt, int root) {
    putf(" n=%lld T=%d root=%d", (long long)count, type_id(dt), root);
}

static void sized_c(MPI_Count count, MPI_Datatype dt) {
    putf(" n=%lld T=%d", (long long)count, type_id(dt));
}

/* Allgather, Alltoall: the send count, or with MPI_IN_PLACE the receive's. */

#endif

/* ---- MPI-IO (MPI 4.1 §14): files numbered when opened (fh=); the file's name as the program
 * gave it and its access mode by name (the libraries' values differ), with the size the file
 * had before the open (was=, -1: none), so that a replay makes the files a program read;
 * views by the recorded etype and filetype and the filetype's layout (fmap=); offsets,
 * positions and sizes as the program passed them; each access's bytes moved (nb=). ------- */
static slot_t files[TABLE];
static int next_file = 1;

static int file_id(MPI_File f) { return f == MPI_FILE_NULL ? 0 : known_id(files, KEY(f)); }

static void put_amode(int amode) {
    static const struct { int bit; const char *name; } modes[] = {
        {MPI_MODE_RDONLY, "RDONLY"}, {MPI_MODE_WRONLY, "WRONLY"}, {MPI_MODE_RDWR, "RDWR"},
        {MPI_MODE_CREATE, "CREATE"}, {MPI_MODE_EXCL, "EXCL"},
        {MPI_MODE_DELETE_ON_CLOSE, "DELETE_ON_CLOSE"}, {MPI_MODE_UNIQUE_OPEN, "UNIQUE_OPEN"},
        {MPI_MODE_SEQUENTIAL, "SEQUENTIAL"}, {MPI_MODE_APPEND, "APPEND"}};
    const char *sep = "";
    int rest = amode;
    puts_(" amode=");
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (amode & modes[i].bit) { puts_(sep); puts_(modes[i].name); sep = ","; rest &= ~modes[i].bit; }
    if (rest || !*sep) putf("%s%d", sep, rest);  /* a bit MPI does not name: its number */
}

/* The file's size before the program opened it (-1: there was none), as the recorder's
 * process sees the name (a ROMIO prefix such as "ufs:" left out). */
static long long size_before(const char *name) {
    struct stat st;
    const char *colon = name ? strchr(name, ':') : NULL;
    if (name && stat(name, &st) == 0) return (long long)st.st_size;
    if (colon && colon - name > 1 && stat(colon + 1, &st) == 0) return (long long)st.st_size;
    return -1;
}

int MPI_File_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh) {
    if (!LOGGING) return PMPI_File_open(comm, name, amode, info, fh);
    long long was = size_before(name);
    enter("File_open", CALLER);
    putf(" comm=%d", comm_id(comm));
    put_word("name", name);
    put_amode(amode);
    putf(" was=%lld", was);
    end_entry();
    int rc = PMPI_File_open(comm, name, amode, info, fh);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" fh=%d", new_id(files, KEY(*fh), &next_file));
    done();
    return rc;
}

int MPI_File_close(MPI_File *fh) {
    if (!LOGGING) return PMPI_File_close(fh);
    MPI_File before = *fh;
    enter("File_close", CALLER);
    putf(" fh=%d", file_id(*fh));
    end_entry();
    int rc = PMPI_File_close(fh);
    result(rc);
    if (rc == MPI_SUCCESS) forget(files, KEY(before));
    done();
    return rc;
}

int MPI_File_delete(const char *name, MPI_Info info) {
    if (!LOGGING) return PMPI_File_delete(name, info);
    enter("File_delete", CALLER);
    put_word("name", name);
    end_entry();
    int rc = PMPI_File_delete(name, info);
    result(rc);
    done();
    return rc;
}

/* A filetype's layout: the byte blocks of its data (displacement+length, from the type's
 * origin), found by unpacking a stream of 0xFF bytes with the type into zeroed memory, which
 * follows every combiner (darray and subarray included). Left out beyond MAP_BLOCKS blocks
 * or MAP_BYTES of true extent: the replay then puts the data at the type's lower bound. */
#define MAP_BLOCKS 64
#define MAP_BYTES (1 << 20)
static void put_layout(MPI_Datatype t) {
    MPI_Aint tlb = 0, textent = 0;
    int size = 0, ni, na, nd, comb, pos = 0, blocks = 0;
    PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED) return;
    PMPI_Type_size(t, &size);
    PMPI_Type_get_true_extent(t, &tlb, &textent);
    if (size <= 0 || textent <= 0 || textent > MAP_BYTES) return;
    unsigned char *mem = calloc((size_t)textent, 1), *ones = malloc((size_t)size);
    if (!mem || !ones) { free(mem); free(ones); return; }
    memset(ones, 0xFF, (size_t)size);
    if (PMPI_Unpack(ones, size, &pos, (char *)mem - tlb, 1, t, MPI_COMM_SELF) == MPI_SUCCESS) {
        for (MPI_Aint i = 0; i < textent; i++)
            if (mem[i] && (i == 0 || !mem[i - 1])) blocks++;
        if (blocks <= MAP_BLOCKS) {
            puts_(" fmap=");
            for (MPI_Aint i = 0, n = 0; i < textent; i++) {
                if (!mem[i] || (i > 0 && mem[i - 1])) continue;
                MPI_Aint j = i;
                while (j < textent && mem[j]) j++;
                putf("%s%lld+%lld", n++ ? "," : "", (long long)(tlb + i), (long long)(j - i));
            }
        }
    }
    free(mem);
    free(ones);
}

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info) {
    if (!LOGGING) return PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
    enter("File_set_view", CALLER);
    putf(" fh=%d disp=%lld eT=%d fT=%d", file_id(fh), (long long)disp, type_id(etype),
         type_id(filetype));
    put_word("rep", datarep);
    if (filetype != MPI_DATATYPE_NULL) put_layout(filetype);
    end_entry();
    int rc = PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
    result(rc);
    done();
    return rc;
}

/* A call on the file alone: "fh=ID", what follows it (ARGS), the call, what its result
 * adds (OUT). */
static const char *whence_name(int whence) {
    return whence == MPI_SEEK_SET ? "SET" : whence == MPI_SEEK_CUR ? "CUR"
           : whence == MPI_SEEK_END ? "END" : "?";
}

/* Data access: n elements of T (and the explicit offset, off=); a blocking access's result
 * gives the bytes it moved (nb=), a nonblocking one's its request (kind 'i'), a split
 * collective's _end the bytes of the access its _begin started. */
static void put_moved(const MPI_Status *st) {
    int bytes = 0;
    PMPI_Get_count(st, MPI_BYTE, &bytes);
    putf(" nb=%d", bytes == MPI_UNDEFINED ? -1 : bytes);
}

/* Split collectives (§14.4.5): _begin as its access, _end with the bytes moved. */

/* ---- generated by `python -m mpisim.recorded.record.cwrappers` from its table: do not edit ---- */

int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Send(buf, count, dt, dest, tag, comm);
    enter_begin("Send");
    uint64_t mw[] = {1, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(dest),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Send", CALLER, mw, 9)) {
        send_args(count, dt, dest, tag, comm, 0);
        put_buf("sb", buf, count, dt, 1);
    }
    end_entry();
    int rc = PMPI_Send(buf, count, dt, dest, tag, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              MPI_Request *req) {
    if (!LOGGING) return PMPI_Isend(buf, count, dt, dest, tag, comm, req);
    enter_begin("Isend");
    uint64_t mw[] = {2, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(dest),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Isend", CALLER, mw, 9)) {
        send_args(count, dt, dest, tag, comm, 0);
        put_buf("sb", buf, count, dt, 1);
    }
    end_entry();
    int rc = PMPI_Isend(buf, count, dt, dest, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 's');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

int MPI_Send_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                  MPI_Request *req) {
    if (!LOGGING) return PMPI_Send_init(buf, count, dt, dest, tag, comm, req);
    enter("Send_init", CALLER);
    send_args(count, dt, dest, tag, comm, 0);
    put_buf("sb", buf, count, dt, 1);
    end_entry();
    int rc = PMPI_Send_init(buf, count, dt, dest, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'S'));
    done();
    return rc;
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Bsend(buf, count, dt, dest, tag, comm);
    enter_begin("Bsend");
    uint64_t mw[] = {4, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(dest),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Bsend", CALLER, mw, 9)) {
        send_args(count, dt, dest, tag, comm, 1);
        put_buf("sb", buf, count, dt, 1);
    }
    end_entry();
    int rc = PMPI_Bsend(buf, count, dt, dest, tag, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Ibsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *req) {
    if (!LOGGING) return PMPI_Ibsend(buf, count, dt, dest, tag, comm, req);
    enter_begin("Ibsend");
    uint64_t mw[] = {5, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(dest),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Ibsend", CALLER, mw, 9)) {
        send_args(count, dt, dest, tag, comm, 1);
        put_buf("sb", buf, count, dt, 1);
    }
    end_entry();
    int rc = PMPI_Ibsend(buf, count, dt, dest, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 's');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

int MPI_Bsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                   MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Bsend_init(buf, count, dt, dest, tag, comm, req);
    enter("Bsend_init", CALLER);
    send_args(count, dt, dest, tag, comm, 1);
    put_buf("sb", buf, count, dt, 1);
    end_entry();
    int rc = PMPI_Bsend_init(buf, count, dt, dest, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'S'));
    done();
    return rc;
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Ssend(buf, count, dt, dest, tag, comm);
    enter_begin("Ssend");
    uint64_t mw[] = {7, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(dest),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Ssend", CALLER, mw, 9)) {
        send_args(count, dt, dest, tag, comm, 0);
        put_buf("sb", buf, count, dt, 1);
    }
    end_entry();
    int rc = PMPI_Ssend(buf, count, dt, dest, tag, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Issend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *req) {
    if (!LOGGING) return PMPI_Issend(buf, count, dt, dest, tag, comm, req);
    enter_begin("Issend");
    uint64_t mw[] = {8, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(dest),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Issend", CALLER, mw, 9)) {
        send_args(count, dt, dest, tag, comm, 0);
        put_buf("sb", buf, count, dt, 1);
    }
    end_entry();
    int rc = PMPI_Issend(buf, count, dt, dest, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 's');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

int MPI_Ssend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                   MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Ssend_init(buf, count, dt, dest, tag, comm, req);
    enter("Ssend_init", CALLER);
    send_args(count, dt, dest, tag, comm, 0);
    put_buf("sb", buf, count, dt, 1);
    end_entry();
    int rc = PMPI_Ssend_init(buf, count, dt, dest, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'S'));
    done();
    return rc;
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Rsend(buf, count, dt, dest, tag, comm);
    enter_begin("Rsend");
    uint64_t mw[] = {10, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(dest),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Rsend", CALLER, mw, 9)) {
        send_args(count, dt, dest, tag, comm, 0);
        put_buf("sb", buf, count, dt, 1);
    }
    end_entry();
    int rc = PMPI_Rsend(buf, count, dt, dest, tag, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Irsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *req) {
    if (!LOGGING) return PMPI_Irsend(buf, count, dt, dest, tag, comm, req);
    enter_begin("Irsend");
    uint64_t mw[] = {11, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(dest),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Irsend", CALLER, mw, 9)) {
        send_args(count, dt, dest, tag, comm, 0);
        put_buf("sb", buf, count, dt, 1);
    }
    end_entry();
    int rc = PMPI_Irsend(buf, count, dt, dest, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 's');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

int MPI_Rsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                   MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Rsend_init(buf, count, dt, dest, tag, comm, req);
    enter("Rsend_init", CALLER);
    send_args(count, dt, dest, tag, comm, 0);
    put_buf("sb", buf, count, dt, 1);
    end_entry();
    int rc = PMPI_Rsend_init(buf, count, dt, dest, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'S'));
    done();
    return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
             MPI_Status *status) {
    if (!LOGGING) return PMPI_Recv(buf, count, dt, source, tag, comm, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter_begin("Recv");
    uint64_t mw[] = {13, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(source),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Recv", CALLER, mw, 9)) {
        recv_args(count, dt, source, tag, comm);
        put_buf("rb", buf, count, dt, 0);
    }
    end_entry();
    int rc = PMPI_Recv(buf, count, dt, source, tag, comm, st);
    result(rc);
    if (rc == MPI_SUCCESS) {
        recv_hash(st);
        uint64_t rw[3];
        status_words(st, rw);
        if (!memo_result(rw, 3, 0)) put_status(st);
    }
    done();
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
              MPI_Request *req) {
    if (!LOGGING) return PMPI_Irecv(buf, count, dt, source, tag, comm, req);
    enter_begin("Irecv");
    uint64_t mw[] = {14, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(source),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Irecv", CALLER, mw, 9)) {
        recv_args(count, dt, source, tag, comm);
        put_buf("rb", buf, count, dt, 0);
    }
    end_entry();
    int rc = PMPI_Irecv(buf, count, dt, source, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 'r');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                  MPI_Request *req) {
    if (!LOGGING) return PMPI_Recv_init(buf, count, dt, source, tag, comm, req);
    enter("Recv_init", CALLER);
    recv_args(count, dt, source, tag, comm);
    put_buf("rb", buf, count, dt, 0);
    end_entry();
    int rc = PMPI_Recv_init(buf, count, dt, source, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'R'));
    done();
    return rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                 void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
                 MPI_Comm comm, MPI_Status *status) {
    if (!LOGGING) return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
        source, rtag, comm, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter_begin("Sendrecv");
    uint64_t mw[] = {16, 0, 0, MEMO_P(sbuf), MEMO_I(scount), memo_type(stype), MEMO_I(dest),
        MEMO_I(stag), MEMO_P(rbuf), MEMO_I(rcount), memo_type(rtype), MEMO_I(source),
        MEMO_I(rtag), memo_comm(comm)};
    if (!enter_memo("Sendrecv", CALLER, mw, 14)) {
        send_args(scount, stype, dest, stag, comm, 0);
        put_peer("src", source);
        put_tag("rtag", rtag);
        putf(" rn=%d rT=%d", rcount, type_id(rtype));
        put_buf("sb", sbuf, scount, stype, 1);
        put_buf("rb", rbuf, rcount, rtype, 0);
    }
    end_entry();
    int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
        comm, st);
    result(rc);
    if (rc == MPI_SUCCESS) {
        recv_hash(st);
        uint64_t rw[3];
        status_words(st, rw);
        if (!memo_result(rw, 3, 0)) put_status(st);
    }
    done();
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag, int source,
                         int rtag, MPI_Comm comm, MPI_Status *status) {
    if (!LOGGING) return PMPI_Sendrecv_replace(buf, count, dt, dest, stag, source, rtag, comm,
        status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("Sendrecv_replace", CALLER);
    send_args(count, dt, dest, stag, comm, 0);
    put_peer("src", source);
    put_tag("rtag", rtag);
    end_entry();
    int rc = PMPI_Sendrecv_replace(buf, count, dt, dest, stag, source, rtag, comm, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_status(st);
    done();
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Isendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                  void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
                  MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Isendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
        source, rtag, comm, req);
    enter("Isendrecv", CALLER);
    send_args(scount, stype, dest, stag, comm, 0);
    put_peer("src", source);
    put_tag("rtag", rtag);
    putf(" rn=%d rT=%d", rcount, type_id(rtype));
    put_buf("rb", rbuf, rcount, rtype, 0);
    put_buf("sb", sbuf, scount, stype, 1);
    end_entry();
    int rc = PMPI_Isendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
        comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'x'));
    done();
    return rc;
}

int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag, int source,
                          int rtag, MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Isendrecv_replace(buf, count, dt, dest, stag, source, rtag, comm,
        req);
    enter("Isendrecv_replace", CALLER);
    send_args(count, dt, dest, stag, comm, 0);
    put_peer("src", source);
    put_tag("rtag", rtag);
    end_entry();
    int rc = PMPI_Isendrecv_replace(buf, count, dt, dest, stag, source, rtag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'x'));
    done();
    return rc;
}

int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
               MPI_Comm comm) {
    if (!LOGGING) return PMPI_Send_c(buf, count, dt, dest, tag, comm);
    enter_begin("Send");
    uint64_t mw[] = {20, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(dest),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Send", CALLER, mw, 9)) {
        send_args_c(count, dt, dest, tag, comm, 0);
        put_buf("sb", buf, count, dt, 1);
    }
    end_entry();
    int rc = PMPI_Send_c(buf, count, dt, dest, tag, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Isend_c(buf, count, dt, dest, tag, comm, req);
    enter_begin("Isend");
    uint64_t mw[] = {21, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(dest),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Isend", CALLER, mw, 9)) {
        send_args_c(count, dt, dest, tag, comm, 0);
        put_buf("sb", buf, count, dt, 1);
    }
    end_entry();
    int rc = PMPI_Isend_c(buf, count, dt, dest, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 's');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

int MPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                    MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Send_init_c(buf, count, dt, dest, tag, comm, req);
    enter("Send_init", CALLER);
    send_args_c(count, dt, dest, tag, comm, 0);
    put_buf("sb", buf, count, dt, 1);
    end_entry();
    int rc = PMPI_Send_init_c(buf, count, dt, dest, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'S'));
    done();
    return rc;
}

int MPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm) {
    if (!LOGGING) return PMPI_Bsend_c(buf, count, dt, dest, tag, comm);
    enter_begin("Bsend");
    uint64_t mw[] = {23, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(dest),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Bsend", CALLER, mw, 9)) {
        send_args_c(count, dt, dest, tag, comm, 1);
        put_buf("sb", buf, count, dt, 1);
    }
    end_entry();
    int rc = PMPI_Bsend_c(buf, count, dt, dest, tag, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Ibsend_c(buf, count, dt, dest, tag, comm, req);
    enter_begin("Ibsend");
    uint64_t mw[] = {24, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(dest),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Ibsend", CALLER, mw, 9)) {
        send_args_c(count, dt, dest, tag, comm, 1);
        put_buf("sb", buf, count, dt, 1);
    }
    end_entry();
    int rc = PMPI_Ibsend_c(buf, count, dt, dest, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 's');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

int MPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                     MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Bsend_init_c(buf, count, dt, dest, tag, comm, req);
    enter("Bsend_init", CALLER);
    send_args_c(count, dt, dest, tag, comm, 1);
    put_buf("sb", buf, count, dt, 1);
    end_entry();
    int rc = PMPI_Bsend_init_c(buf, count, dt, dest, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'S'));
    done();
    return rc;
}

int MPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm) {
    if (!LOGGING) return PMPI_Ssend_c(buf, count, dt, dest, tag, comm);
    enter_begin("Ssend");
    uint64_t mw[] = {26, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(dest),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Ssend", CALLER, mw, 9)) {
        send_args_c(count, dt, dest, tag, comm, 0);
        put_buf("sb", buf, count, dt, 1);
    }
    end_entry();
    int rc = PMPI_Ssend_c(buf, count, dt, dest, tag, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Issend_c(buf, count, dt, dest, tag, comm, req);
    enter_begin("Issend");
    uint64_t mw[] = {27, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(dest),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Issend", CALLER, mw, 9)) {
        send_args_c(count, dt, dest, tag, comm, 0);
        put_buf("sb", buf, count, dt, 1);
    }
    end_entry();
    int rc = PMPI_Issend_c(buf, count, dt, dest, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 's');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

int MPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                     MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Ssend_init_c(buf, count, dt, dest, tag, comm, req);
    enter("Ssend_init", CALLER);
    send_args_c(count, dt, dest, tag, comm, 0);
    put_buf("sb", buf, count, dt, 1);
    end_entry();
    int rc = PMPI_Ssend_init_c(buf, count, dt, dest, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'S'));
    done();
    return rc;
}

int MPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm) {
    if (!LOGGING) return PMPI_Rsend_c(buf, count, dt, dest, tag, comm);
    enter_begin("Rsend");
    uint64_t mw[] = {29, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(dest),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Rsend", CALLER, mw, 9)) {
        send_args_c(count, dt, dest, tag, comm, 0);
        put_buf("sb", buf, count, dt, 1);
    }
    end_entry();
    int rc = PMPI_Rsend_c(buf, count, dt, dest, tag, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Irsend_c(buf, count, dt, dest, tag, comm, req);
    enter_begin("Irsend");
    uint64_t mw[] = {30, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(dest),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Irsend", CALLER, mw, 9)) {
        send_args_c(count, dt, dest, tag, comm, 0);
        put_buf("sb", buf, count, dt, 1);
    }
    end_entry();
    int rc = PMPI_Irsend_c(buf, count, dt, dest, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 's');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

int MPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                     MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Rsend_init_c(buf, count, dt, dest, tag, comm, req);
    enter("Rsend_init", CALLER);
    send_args_c(count, dt, dest, tag, comm, 0);
    put_buf("sb", buf, count, dt, 1);
    end_entry();
    int rc = PMPI_Rsend_init_c(buf, count, dt, dest, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'S'));
    done();
    return rc;
}

int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
               MPI_Status *status) {
    if (!LOGGING) return PMPI_Recv_c(buf, count, dt, source, tag, comm, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter_begin("Recv");
    uint64_t mw[] = {32, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(source),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Recv", CALLER, mw, 9)) {
        recv_args_c(count, dt, source, tag, comm);
        put_buf("rb", buf, count, dt, 0);
    }
    end_entry();
    int rc = PMPI_Recv_c(buf, count, dt, source, tag, comm, st);
    result(rc);
    if (rc == MPI_SUCCESS) {
        recv_hash(st);
        uint64_t rw[3];
        status_words(st, rw);
        if (!memo_result(rw, 3, 0)) put_status(st);
    }
    done();
    return rc;
}

int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                MPI_Request *req) {
    if (!LOGGING) return PMPI_Irecv_c(buf, count, dt, source, tag, comm, req);
    enter_begin("Irecv");
    uint64_t mw[] = {33, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(source),
        MEMO_I(tag), memo_comm(comm)};
    if (!enter_memo("Irecv", CALLER, mw, 9)) {
        recv_args_c(count, dt, source, tag, comm);
        put_buf("rb", buf, count, dt, 0);
    }
    end_entry();
    int rc = PMPI_Irecv_c(buf, count, dt, source, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 'r');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

int MPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype dt, int source, int tag,
                    MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Recv_init_c(buf, count, dt, source, tag, comm, req);
    enter("Recv_init", CALLER);
    recv_args_c(count, dt, source, tag, comm);
    put_buf("rb", buf, count, dt, 0);
    end_entry();
    int rc = PMPI_Recv_init_c(buf, count, dt, source, tag, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'R'));
    done();
    return rc;
}

int MPI_Sendrecv_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                   void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source, int rtag,
                   MPI_Comm comm, MPI_Status *status) {
    if (!LOGGING) return PMPI_Sendrecv_c(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
        source, rtag, comm, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter_begin("Sendrecv");
    uint64_t mw[] = {35, 0, 0, MEMO_P(sbuf), MEMO_I(scount), memo_type(stype), MEMO_I(dest),
        MEMO_I(stag), MEMO_P(rbuf), MEMO_I(rcount), memo_type(rtype), MEMO_I(source),
        MEMO_I(rtag), memo_comm(comm)};
    if (!enter_memo("Sendrecv", CALLER, mw, 14)) {
        send_args_c(scount, stype, dest, stag, comm, 0);
        put_peer("src", source);
        put_tag("rtag", rtag);
        putf(" rn=%lld rT=%d", (long long)rcount, type_id(rtype));
        put_buf("sb", sbuf, scount, stype, 1);
        put_buf("rb", rbuf, rcount, rtype, 0);
    }
    end_entry();
    int rc = PMPI_Sendrecv_c(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
        comm, st);
    result(rc);
    if (rc == MPI_SUCCESS) {
        recv_hash(st);
        uint64_t rw[3];
        status_words(st, rw);
        if (!memo_result(rw, 3, 0)) put_status(st);
    }
    done();
    return rc;
}
#endif

int MPI_Barrier(MPI_Comm comm) {
    if (!LOGGING) return PMPI_Barrier(comm);
    enter_begin("Barrier");
    uint64_t mw[] = {36, 0, 0, memo_comm(comm)};
    if (!enter_memo("Barrier", CALLER, mw, 4)) {
        putf(" comm=%d", comm_id(comm));
    }
    end_entry();
    int rc = PMPI_Barrier(comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Ibarrier(comm, req);
    enter_begin("Ibarrier");
    uint64_t mw[] = {37, 0, 0, memo_comm(comm)};
    if (!enter_memo("Ibarrier", CALLER, mw, 4)) {
        putf(" comm=%d", comm_id(comm));
    }
    end_entry();
    int rc = PMPI_Ibarrier(comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 'c');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *req) {
    if (!LOGGING) return PMPI_Barrier_init(comm, info, req);
    enter("Barrier_init", CALLER);
    putf(" comm=%d", comm_id(comm));
    end_entry();
    int rc = PMPI_Barrier_init(comm, info, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'P'));
    done();
    return rc;
}
#endif

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Bcast(buf, count, dt, root, comm);
    enter_begin("Bcast");
    uint64_t mw[] = {39, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(root),
        memo_comm(comm)};
    if (!enter_memo("Bcast", CALLER, mw, 8)) {
        putf(" comm=%d", comm_id(comm));
        rooted(count, dt, root);
        put_buf("rb", buf, count, dt, 2);
    }
    end_entry();
    int rc = PMPI_Bcast(buf, count, dt, root, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
               MPI_Request *req) {
    if (!LOGGING) return PMPI_Ibcast(buf, count, dt, root, comm, req);
    enter_begin("Ibcast");
    uint64_t mw[] = {40, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(root),
        memo_comm(comm)};
    if (!enter_memo("Ibcast", CALLER, mw, 8)) {
        putf(" comm=%d", comm_id(comm));
        rooted(count, dt, root);
        put_buf("rb", buf, count, dt, 2);
    }
    end_entry();
    int rc = PMPI_Ibcast(buf, count, dt, root, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 'c');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Bcast_init(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                   MPI_Info info, MPI_Request *req) {
    if (!LOGGING) return PMPI_Bcast_init(buf, count, dt, root, comm, info, req);
    enter("Bcast_init", CALLER);
    putf(" comm=%d", comm_id(comm));
    rooted(count, dt, root);
    put_buf("rb", buf, count, dt, 2);
    end_entry();
    int rc = PMPI_Bcast_init(buf, count, dt, root, comm, info, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'P'));
    done();
    return rc;
}
#endif

int MPI_Reduce(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op, int root,
               MPI_Comm comm) {
    if (!LOGGING) return PMPI_Reduce(s, r, count, dt, op, root, comm);
    enter_begin("Reduce");
    uint64_t mw[] = {42, 0, 0, MEMO_P(s), MEMO_P(r), MEMO_I(count), memo_type(dt), KEY(op),
        MEMO_I(root), memo_comm(comm)};
    if (!enter_memo("Reduce", CALLER, mw, 10)) {
        putf(" comm=%d", comm_id(comm));
        rooted(count, dt, root);
        put_op(op);
        put_buf("sb", s, count, dt, 2);
        put_buf("rb", r, count, dt, 2);
    }
    end_entry();
    int rc = PMPI_Reduce(s, r, count, dt, op, root, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Ireduce(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Ireduce(s, r, count, dt, op, root, comm, req);
    enter_begin("Ireduce");
    uint64_t mw[] = {43, 0, 0, MEMO_P(s), MEMO_P(r), MEMO_I(count), memo_type(dt), KEY(op),
        MEMO_I(root), memo_comm(comm)};
    if (!enter_memo("Ireduce", CALLER, mw, 10)) {
        putf(" comm=%d", comm_id(comm));
        rooted(count, dt, root);
        put_op(op);
        put_buf("sb", s, count, dt, 1);
        put_buf("rb", r, count, dt, 2);
    }
    end_entry();
    int rc = PMPI_Ireduce(s, r, count, dt, op, root, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 'c');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Reduce_init(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op, int root,
                    MPI_Comm comm, MPI_Info info, MPI_Request *req) {
    if (!LOGGING) return PMPI_Reduce_init(s, r, count, dt, op, root, comm, info, req);
    enter("Reduce_init", CALLER);
    putf(" comm=%d", comm_id(comm));
    rooted(count, dt, root);
    put_op(op);
    put_buf("sb", s, count, dt, 1);
    put_buf("rb", r, count, dt, 2);
    end_entry();
    int rc = PMPI_Reduce_init(s, r, count, dt, op, root, comm, info, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'P'));
    done();
    return rc;
}
#endif

int MPI_Allreduce(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm) {
    if (!LOGGING) return PMPI_Allreduce(s, r, count, dt, op, comm);
    enter_begin("Allreduce");
    uint64_t mw[] = {45, 0, 0, MEMO_P(s), MEMO_P(r), MEMO_I(count), memo_type(dt), KEY(op),
        memo_comm(comm)};
    if (!enter_memo("Allreduce", CALLER, mw, 9)) {
        putf(" comm=%d", comm_id(comm));
        sized(count, dt);
        put_op(op);
        put_buf("sb", s, count, dt, 2);
        put_buf("rb", r, count, dt, 2);
    }
    end_entry();
    int rc = PMPI_Allreduce(s, r, count, dt, op, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Iallreduce(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                   MPI_Request *req) {
    if (!LOGGING) return PMPI_Iallreduce(s, r, count, dt, op, comm, req);
    enter_begin("Iallreduce");
    uint64_t mw[] = {46, 0, 0, MEMO_P(s), MEMO_P(r), MEMO_I(count), memo_type(dt), KEY(op),
        memo_comm(comm)};
    if (!enter_memo("Iallreduce", CALLER, mw, 9)) {
        putf(" comm=%d", comm_id(comm));
        sized(count, dt);
        put_op(op);
        put_buf("sb", s, count, dt, 1);
        put_buf("rb", r, count, dt, 2);
    }
    end_entry();
    int rc = PMPI_Iallreduce(s, r, count, dt, op, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 'c');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Allreduce_init(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op,
                       MPI_Comm comm, MPI_Info info, MPI_Request *req) {
    if (!LOGGING) return PMPI_Allreduce_init(s, r, count, dt, op, comm, info, req);
    enter("Allreduce_init", CALLER);
    putf(" comm=%d", comm_id(comm));
    sized(count, dt);
    put_op(op);
    put_buf("sb", s, count, dt, 1);
    put_buf("rb", r, count, dt, 2);
    end_entry();
    int rc = PMPI_Allreduce_init(s, r, count, dt, op, comm, info, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'P'));
    done();
    return rc;
}
#endif

int MPI_Scan(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Scan(s, r, count, dt, op, comm);
    enter_begin("Scan");
    uint64_t mw[] = {48, 0, 0, MEMO_P(s), MEMO_P(r), MEMO_I(count), memo_type(dt), KEY(op),
        memo_comm(comm)};
    if (!enter_memo("Scan", CALLER, mw, 9)) {
        putf(" comm=%d", comm_id(comm));
        sized(count, dt);
        put_op(op);
        put_buf("sb", s, count, dt, 2);
        put_buf("rb", r, count, dt, 2);
    }
    end_entry();
    int rc = PMPI_Scan(s, r, count, dt, op, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Iscan(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
              MPI_Request *req) {
    if (!LOGGING) return PMPI_Iscan(s, r, count, dt, op, comm, req);
    enter_begin("Iscan");
    uint64_t mw[] = {49, 0, 0, MEMO_P(s), MEMO_P(r), MEMO_I(count), memo_type(dt), KEY(op),
        memo_comm(comm)};
    if (!enter_memo("Iscan", CALLER, mw, 9)) {
        putf(" comm=%d", comm_id(comm));
        sized(count, dt);
        put_op(op);
        put_buf("sb", s, count, dt, 1);
        put_buf("rb", r, count, dt, 2);
    }
    end_entry();
    int rc = PMPI_Iscan(s, r, count, dt, op, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 'c');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Scan_init(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                  MPI_Info info, MPI_Request *req) {
    if (!LOGGING) return PMPI_Scan_init(s, r, count, dt, op, comm, info, req);
    enter("Scan_init", CALLER);
    putf(" comm=%d", comm_id(comm));
    sized(count, dt);
    put_op(op);
    put_buf("sb", s, count, dt, 1);
    put_buf("rb", r, count, dt, 2);
    end_entry();
    int rc = PMPI_Scan_init(s, r, count, dt, op, comm, info, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'P'));
    done();
    return rc;
}
#endif

int MPI_Exscan(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Exscan(s, r, count, dt, op, comm);
    enter_begin("Exscan");
    uint64_t mw[] = {51, 0, 0, MEMO_P(s), MEMO_P(r), MEMO_I(count), memo_type(dt), KEY(op),
        memo_comm(comm)};
    if (!enter_memo("Exscan", CALLER, mw, 9)) {
        putf(" comm=%d", comm_id(comm));
        sized(count, dt);
        put_op(op);
        put_buf("sb", s, count, dt, 2);
        put_buf("rb", r, count, dt, 2);
    }
    end_entry();
    int rc = PMPI_Exscan(s, r, count, dt, op, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Iexscan(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                MPI_Request *req) {
    if (!LOGGING) return PMPI_Iexscan(s, r, count, dt, op, comm, req);
    enter_begin("Iexscan");
    uint64_t mw[] = {52, 0, 0, MEMO_P(s), MEMO_P(r), MEMO_I(count), memo_type(dt), KEY(op),
        memo_comm(comm)};
    if (!enter_memo("Iexscan", CALLER, mw, 9)) {
        putf(" comm=%d", comm_id(comm));
        sized(count, dt);
        put_op(op);
        put_buf("sb", s, count, dt, 1);
        put_buf("rb", r, count, dt, 2);
    }
    end_entry();
    int rc = PMPI_Iexscan(s, r, count, dt, op, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 'c');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Exscan_init(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op,
                    MPI_Comm comm, MPI_Info info, MPI_Request *req) {
    if (!LOGGING) return PMPI_Exscan_init(s, r, count, dt, op, comm, info, req);
    enter("Exscan_init", CALLER);
    putf(" comm=%d", comm_id(comm));
    sized(count, dt);
    put_op(op);
    put_buf("sb", s, count, dt, 1);
    put_buf("rb", r, count, dt, 2);
    end_entry();
    int rc = PMPI_Exscan_init(s, r, count, dt, op, comm, info, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'P'));
    done();
    return rc;
}
#endif

int MPI_Reduce_scatter_block(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op,
                             MPI_Comm comm) {
    if (!LOGGING) return PMPI_Reduce_scatter_block(s, r, count, dt, op, comm);
    enter_begin("Reduce_scatter_block");
    uint64_t mw[] = {54, 0, 0, MEMO_P(s), MEMO_P(r), MEMO_I(count), memo_type(dt), KEY(op),
        memo_comm(comm)};
    if (!enter_memo("Reduce_scatter_block", CALLER, mw, 9)) {
        putf(" comm=%d", comm_id(comm));
        sized(count, dt);
        put_op(op);
    }
    end_entry();
    int rc = PMPI_Reduce_scatter_block(s, r, count, dt, op, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Ireduce_scatter_block(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op,
                              MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Ireduce_scatter_block(s, r, count, dt, op, comm, req);
    enter_begin("Ireduce_scatter_block");
    uint64_t mw[] = {55, 0, 0, MEMO_P(s), MEMO_P(r), MEMO_I(count), memo_type(dt), KEY(op),
        memo_comm(comm)};
    if (!enter_memo("Ireduce_scatter_block", CALLER, mw, 9)) {
        putf(" comm=%d", comm_id(comm));
        sized(count, dt);
        put_op(op);
    }
    end_entry();
    int rc = PMPI_Ireduce_scatter_block(s, r, count, dt, op, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 'c');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Reduce_scatter_block_init(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *req) {
    if (!LOGGING) return PMPI_Reduce_scatter_block_init(s, r, count, dt, op, comm, info, req);
    enter("Reduce_scatter_block_init", CALLER);
    putf(" comm=%d", comm_id(comm));
    sized(count, dt);
    put_op(op);
    end_entry();
    int rc = PMPI_Reduce_scatter_block_init(s, r, count, dt, op, comm, info, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'P'));
    done();
    return rc;
}
#endif

int MPI_Reduce_scatter(const void *s, void *r, const int rcs[], MPI_Datatype dt, MPI_Op op,
                       MPI_Comm comm) {
    if (!LOGGING) return PMPI_Reduce_scatter(s, r, rcs, dt, op, comm);
    enter("Reduce_scatter", CALLER);
    putf(" comm=%d", comm_id(comm));
    putf(" T=%d", type_id(dt));
    counts("ns", rcs, comm);
    put_op(op);
    end_entry();
    int rc = PMPI_Reduce_scatter(s, r, rcs, dt, op, comm);
    result(rc);
    done();
    return rc;
}

int MPI_Ireduce_scatter(const void *s, void *r, const int rcs[], MPI_Datatype dt, MPI_Op op,
                        MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Ireduce_scatter(s, r, rcs, dt, op, comm, req);
    enter("Ireduce_scatter", CALLER);
    putf(" comm=%d", comm_id(comm));
    putf(" T=%d", type_id(dt));
    counts("ns", rcs, comm);
    put_op(op);
    end_entry();
    int rc = PMPI_Ireduce_scatter(s, r, rcs, dt, op, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'c'));
    done();
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Reduce_scatter_init(const void *s, void *r, const int rcs[], MPI_Datatype dt, MPI_Op op,
                            MPI_Comm comm, MPI_Info info, MPI_Request *req) {
    if (!LOGGING) return PMPI_Reduce_scatter_init(s, r, rcs, dt, op, comm, info, req);
    enter("Reduce_scatter_init", CALLER);
    putf(" comm=%d", comm_id(comm));
    putf(" T=%d", type_id(dt));
    counts("ns", rcs, comm);
    put_op(op);
    end_entry();
    int rc = PMPI_Reduce_scatter_init(s, r, rcs, dt, op, comm, info, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'P'));
    done();
    return rc;
}
#endif

int MPI_Gather(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
               int root, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Gather(s, sc, st, r, rc_, rt, root, comm);
    enter_begin("Gather");
    uint64_t mw[] = {60, 0, 0, MEMO_P(s), MEMO_I(sc), memo_type(st), MEMO_P(r), MEMO_I(rc_),
        memo_type(rt), MEMO_I(root), memo_comm(comm)};
    if (!enter_memo("Gather", CALLER, mw, 11)) {
        putf(" comm=%d", comm_id(comm));
        gathered(s, sc, st, rc_, rt, root, comm);
        put_buf("sb", s, sc, st, 2);
        if (rank_in(comm) == root) put_buf("rb", r, (long long)rc_ * comm_size_of(comm), rt, 2);
    }
    end_entry();
    int rc = PMPI_Gather(s, sc, st, r, rc_, rt, root, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Igather(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
                int root, MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Igather(s, sc, st, r, rc_, rt, root, comm, req);
    enter_begin("Igather");
    uint64_t mw[] = {61, 0, 0, MEMO_P(s), MEMO_I(sc), memo_type(st), MEMO_P(r), MEMO_I(rc_),
        memo_type(rt), MEMO_I(root), memo_comm(comm)};
    if (!enter_memo("Igather", CALLER, mw, 11)) {
        putf(" comm=%d", comm_id(comm));
        gathered(s, sc, st, rc_, rt, root, comm);
        put_buf("sb", s, sc, st, 1);
        if (rank_in(comm) == root) put_buf("rb", r, (long long)rc_ * comm_size_of(comm), rt, 2);
    }
    end_entry();
    int rc = PMPI_Igather(s, sc, st, r, rc_, rt, root, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 'c');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Gather_init(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
                    int root, MPI_Comm comm, MPI_Info info, MPI_Request *req) {
    if (!LOGGING) return PMPI_Gather_init(s, sc, st, r, rc_, rt, root, comm, info, req);
    enter("Gather_init", CALLER);
    putf(" comm=%d", comm_id(comm));
    gathered(s, sc, st, rc_, rt, root, comm);
    put_buf("sb", s, sc, st, 1);
    if (rank_in(comm) == root) put_buf("rb", r, (long long)rc_ * comm_size_of(comm), rt, 2);
    end_entry();
    int rc = PMPI_Gather_init(s, sc, st, r, rc_, rt, root, comm, info, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'P'));
    done();
    return rc;
}
#endif

int MPI_Gatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rcs[],
                const int displs[], MPI_Datatype rt, int root, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Gatherv(s, sc, st, r, rcs, displs, rt, root, comm);
    enter("Gatherv", CALLER);
    putf(" comm=%d", comm_id(comm));
    gatheredv(s, sc, st, rcs, displs, rt, root, comm);
    end_entry();
    int rc = PMPI_Gatherv(s, sc, st, r, rcs, displs, rt, root, comm);
    result(rc);
    done();
    return rc;
}

int MPI_Igatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rcs[],
                 const int displs[], MPI_Datatype rt, int root, MPI_Comm comm,
                 MPI_Request *req) {
    if (!LOGGING) return PMPI_Igatherv(s, sc, st, r, rcs, displs, rt, root, comm, req);
    enter("Igatherv", CALLER);
    putf(" comm=%d", comm_id(comm));
    gatheredv(s, sc, st, rcs, displs, rt, root, comm);
    end_entry();
    int rc = PMPI_Igatherv(s, sc, st, r, rcs, displs, rt, root, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'c'));
    done();
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Gatherv_init(const void *s, int sc, MPI_Datatype st, void *r, const int rcs[],
                     const int displs[], MPI_Datatype rt, int root, MPI_Comm comm,
                     MPI_Info info, MPI_Request *req) {
    if (!LOGGING) return PMPI_Gatherv_init(s, sc, st, r, rcs, displs, rt, root, comm, info,
        req);
    enter("Gatherv_init", CALLER);
    putf(" comm=%d", comm_id(comm));
    gatheredv(s, sc, st, rcs, displs, rt, root, comm);
    end_entry();
    int rc = PMPI_Gatherv_init(s, sc, st, r, rcs, displs, rt, root, comm, info, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'P'));
    done();
    return rc;
}
#endif

int MPI_Allgather(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
                  MPI_Comm comm) {
    if (!LOGGING) return PMPI_Allgather(s, sc, st, r, rc_, rt, comm);
    enter_begin("Allgather");
    uint64_t mw[] = {66, 0, 0, MEMO_P(s), MEMO_I(sc), memo_type(st), MEMO_P(r), MEMO_I(rc_),
        memo_type(rt), memo_comm(comm)};
    if (!enter_memo("Allgather", CALLER, mw, 10)) {
        putf(" comm=%d", comm_id(comm));
        own(s, sc, st, rc_, rt);
        put_buf("sb", s, sc, st, 2);
        put_buf("rb", r, (long long)rc_ * comm_size_of(comm), rt, 2);
    }
    end_entry();
    int rc = PMPI_Allgather(s, sc, st, r, rc_, rt, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Iallgather(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
                   MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Iallgather(s, sc, st, r, rc_, rt, comm, req);
    enter_begin("Iallgather");
    uint64_t mw[] = {67, 0, 0, MEMO_P(s), MEMO_I(sc), memo_type(st), MEMO_P(r), MEMO_I(rc_),
        memo_type(rt), memo_comm(comm)};
    if (!enter_memo("Iallgather", CALLER, mw, 10)) {
        putf(" comm=%d", comm_id(comm));
        own(s, sc, st, rc_, rt);
        put_buf("sb", s, sc, st, 1);
        put_buf("rb", r, (long long)rc_ * comm_size_of(comm), rt, 2);
    }
    end_entry();
    int rc = PMPI_Iallgather(s, sc, st, r, rc_, rt, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 'c');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Allgather_init(const void *s, int sc, MPI_Datatype st, void *r, int rc_,
                       MPI_Datatype rt, MPI_Comm comm, MPI_Info info, MPI_Request *req) {
    if (!LOGGING) return PMPI_Allgather_init(s, sc, st, r, rc_, rt, comm, info, req);
    enter("Allgather_init", CALLER);
    putf(" comm=%d", comm_id(comm));
    own(s, sc, st, rc_, rt);
    put_buf("sb", s, sc, st, 1);
    put_buf("rb", r, (long long)rc_ * comm_size_of(comm), rt, 2);
    end_entry();
    int rc = PMPI_Allgather_init(s, sc, st, r, rc_, rt, comm, info, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'P'));
    done();
    return rc;
}
#endif

int MPI_Allgatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rcs[],
                   const int displs[], MPI_Datatype rt, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Allgatherv(s, sc, st, r, rcs, displs, rt, comm);
    enter("Allgatherv", CALLER);
    putf(" comm=%d", comm_id(comm));
    allgatheredv(s, sc, st, rcs, displs, rt, comm);
    end_entry();
    int rc = PMPI_Allgatherv(s, sc, st, r, rcs, displs, rt, comm);
    result(rc);
    done();
    return rc;
}

int MPI_Iallgatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rcs[],
                    const int displs[], MPI_Datatype rt, MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Iallgatherv(s, sc, st, r, rcs, displs, rt, comm, req);
    enter("Iallgatherv", CALLER);
    putf(" comm=%d", comm_id(comm));
    allgatheredv(s, sc, st, rcs, displs, rt, comm);
    end_entry();
    int rc = PMPI_Iallgatherv(s, sc, st, r, rcs, displs, rt, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'c'));
    done();
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Allgatherv_init(const void *s, int sc, MPI_Datatype st, void *r, const int rcs[],
                        const int displs[], MPI_Datatype rt, MPI_Comm comm, MPI_Info info,
                        MPI_Request *req) {
    if (!LOGGING) return PMPI_Allgatherv_init(s, sc, st, r, rcs, displs, rt, comm, info, req);
    enter("Allgatherv_init", CALLER);
    putf(" comm=%d", comm_id(comm));
    allgatheredv(s, sc, st, rcs, displs, rt, comm);
    end_entry();
    int rc = PMPI_Allgatherv_init(s, sc, st, r, rcs, displs, rt, comm, info, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'P'));
    done();
    return rc;
}
#endif

int MPI_Scatter(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
                int root, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Scatter(s, sc, st, r, rc_, rt, root, comm);
    enter_begin("Scatter");
    uint64_t mw[] = {72, 0, 0, MEMO_P(s), MEMO_I(sc), memo_type(st), MEMO_P(r), MEMO_I(rc_),
        memo_type(rt), MEMO_I(root), memo_comm(comm)};
    if (!enter_memo("Scatter", CALLER, mw, 11)) {
        putf(" comm=%d", comm_id(comm));
        scattered(sc, st, rc_, rt, root, comm);
        if (rank_in(comm) == root) put_buf("sb", s, (long long)sc * comm_size_of(comm), st, 2);
        put_buf("rb", r, rc_, rt, 2);
    }
    end_entry();
    int rc = PMPI_Scatter(s, sc, st, r, rc_, rt, root, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Iscatter(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
                 int root, MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Iscatter(s, sc, st, r, rc_, rt, root, comm, req);
    enter_begin("Iscatter");
    uint64_t mw[] = {73, 0, 0, MEMO_P(s), MEMO_I(sc), memo_type(st), MEMO_P(r), MEMO_I(rc_),
        memo_type(rt), MEMO_I(root), memo_comm(comm)};
    if (!enter_memo("Iscatter", CALLER, mw, 11)) {
        putf(" comm=%d", comm_id(comm));
        scattered(sc, st, rc_, rt, root, comm);
        if (rank_in(comm) == root) put_buf("sb", s, (long long)sc * comm_size_of(comm), st, 1);
        put_buf("rb", r, rc_, rt, 2);
    }
    end_entry();
    int rc = PMPI_Iscatter(s, sc, st, r, rc_, rt, root, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 'c');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Scatter_init(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
                     int root, MPI_Comm comm, MPI_Info info, MPI_Request *req) {
    if (!LOGGING) return PMPI_Scatter_init(s, sc, st, r, rc_, rt, root, comm, info, req);
    enter("Scatter_init", CALLER);
    putf(" comm=%d", comm_id(comm));
    scattered(sc, st, rc_, rt, root, comm);
    if (rank_in(comm) == root) put_buf("sb", s, (long long)sc * comm_size_of(comm), st, 1);
    put_buf("rb", r, rc_, rt, 2);
    end_entry();
    int rc = PMPI_Scatter_init(s, sc, st, r, rc_, rt, root, comm, info, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'P'));
    done();
    return rc;
}
#endif

int MPI_Scatterv(const void *s, const int scs[], const int displs[], MPI_Datatype st, void *r,
                 int rc_, MPI_Datatype rt, int root, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Scatterv(s, scs, displs, st, r, rc_, rt, root, comm);
    enter("Scatterv", CALLER);
    putf(" comm=%d", comm_id(comm));
    scatteredv(scs, displs, st, r, rc_, rt, root, comm);
    end_entry();
    int rc = PMPI_Scatterv(s, scs, displs, st, r, rc_, rt, root, comm);
    result(rc);
    done();
    return rc;
}

int MPI_Iscatterv(const void *s, const int scs[], const int displs[], MPI_Datatype st, void *r,
                  int rc_, MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Iscatterv(s, scs, displs, st, r, rc_, rt, root, comm, req);
    enter("Iscatterv", CALLER);
    putf(" comm=%d", comm_id(comm));
    scatteredv(scs, displs, st, r, rc_, rt, root, comm);
    end_entry();
    int rc = PMPI_Iscatterv(s, scs, displs, st, r, rc_, rt, root, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'c'));
    done();
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Scatterv_init(const void *s, const int scs[], const int displs[], MPI_Datatype st,
                      void *r, int rc_, MPI_Datatype rt, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *req) {
    if (!LOGGING) return PMPI_Scatterv_init(s, scs, displs, st, r, rc_, rt, root, comm, info,
        req);
    enter("Scatterv_init", CALLER);
    putf(" comm=%d", comm_id(comm));
    scatteredv(scs, displs, st, r, rc_, rt, root, comm);
    end_entry();
    int rc = PMPI_Scatterv_init(s, scs, displs, st, r, rc_, rt, root, comm, info, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'P'));
    done();
    return rc;
}
#endif

int MPI_Alltoall(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
                 MPI_Comm comm) {
    if (!LOGGING) return PMPI_Alltoall(s, sc, st, r, rc_, rt, comm);
    enter_begin("Alltoall");
    uint64_t mw[] = {78, 0, 0, MEMO_P(s), MEMO_I(sc), memo_type(st), MEMO_P(r), MEMO_I(rc_),
        memo_type(rt), memo_comm(comm)};
    if (!enter_memo("Alltoall", CALLER, mw, 10)) {
        putf(" comm=%d", comm_id(comm));
        own(s, sc, st, rc_, rt);
        put_buf("sb", s, (long long)sc * comm_size_of(comm), st, 2);
        put_buf("rb", r, (long long)rc_ * comm_size_of(comm), rt, 2);
    }
    end_entry();
    int rc = PMPI_Alltoall(s, sc, st, r, rc_, rt, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Ialltoall(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
                  MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Ialltoall(s, sc, st, r, rc_, rt, comm, req);
    enter_begin("Ialltoall");
    uint64_t mw[] = {79, 0, 0, MEMO_P(s), MEMO_I(sc), memo_type(st), MEMO_P(r), MEMO_I(rc_),
        memo_type(rt), memo_comm(comm)};
    if (!enter_memo("Ialltoall", CALLER, mw, 10)) {
        putf(" comm=%d", comm_id(comm));
        own(s, sc, st, rc_, rt);
        put_buf("sb", s, (long long)sc * comm_size_of(comm), st, 1);
        put_buf("rb", r, (long long)rc_ * comm_size_of(comm), rt, 2);
    }
    end_entry();
    int rc = PMPI_Ialltoall(s, sc, st, r, rc_, rt, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) {
        int id = req_new(*req, 'c');
        uint64_t rw[] = {MEMO_REQ(id)};
        if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);
    }
    done();
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Alltoall_init(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
                      MPI_Comm comm, MPI_Info info, MPI_Request *req) {
    if (!LOGGING) return PMPI_Alltoall_init(s, sc, st, r, rc_, rt, comm, info, req);
    enter("Alltoall_init", CALLER);
    putf(" comm=%d", comm_id(comm));
    own(s, sc, st, rc_, rt);
    put_buf("sb", s, (long long)sc * comm_size_of(comm), st, 1);
    put_buf("rb", r, (long long)rc_ * comm_size_of(comm), rt, 2);
    end_entry();
    int rc = PMPI_Alltoall_init(s, sc, st, r, rc_, rt, comm, info, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'P'));
    done();
    return rc;
}
#endif

int MPI_Alltoallv(const void *s, const int scs[], const int sd[], MPI_Datatype st, void *r,
                  const int rcs[], const int rd[], MPI_Datatype rt, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Alltoallv(s, scs, sd, st, r, rcs, rd, rt, comm);
    enter("Alltoallv", CALLER);
    putf(" comm=%d", comm_id(comm));
    ownv(s, scs, st, rcs, rd, rt, comm);
    end_entry();
    int rc = PMPI_Alltoallv(s, scs, sd, st, r, rcs, rd, rt, comm);
    result(rc);
    done();
    return rc;
}

int MPI_Ialltoallv(const void *s, const int scs[], const int sd[], MPI_Datatype st, void *r,
                   const int rcs[], const int rd[], MPI_Datatype rt, MPI_Comm comm,
                   MPI_Request *req) {
    if (!LOGGING) return PMPI_Ialltoallv(s, scs, sd, st, r, rcs, rd, rt, comm, req);
    enter("Ialltoallv", CALLER);
    putf(" comm=%d", comm_id(comm));
    ownv(s, scs, st, rcs, rd, rt, comm);
    end_entry();
    int rc = PMPI_Ialltoallv(s, scs, sd, st, r, rcs, rd, rt, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'c'));
    done();
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Alltoallv_init(const void *s, const int scs[], const int sd[], MPI_Datatype st, void *r,
                       const int rcs[], const int rd[], MPI_Datatype rt, MPI_Comm comm,
                       MPI_Info info, MPI_Request *req) {
    if (!LOGGING) return PMPI_Alltoallv_init(s, scs, sd, st, r, rcs, rd, rt, comm, info, req);
    enter("Alltoallv_init", CALLER);
    putf(" comm=%d", comm_id(comm));
    ownv(s, scs, st, rcs, rd, rt, comm);
    end_entry();
    int rc = PMPI_Alltoallv_init(s, scs, sd, st, r, rcs, rd, rt, comm, info, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'P'));
    done();
    return rc;
}
#endif

int MPI_Alltoallw(const void *s, const int scs[], const int sd[], const MPI_Datatype sts[],
                  void *r, const int rcs[], const int rd[], const MPI_Datatype rts[],
                  MPI_Comm comm) {
    if (!LOGGING) return PMPI_Alltoallw(s, scs, sd, sts, r, rcs, rd, rts, comm);
    enter("Alltoallw", CALLER);
    putf(" comm=%d", comm_id(comm));
    ownw(s, scs, sts, rcs, rd, rts, comm);
    end_entry();
    int rc = PMPI_Alltoallw(s, scs, sd, sts, r, rcs, rd, rts, comm);
    result(rc);
    done();
    return rc;
}

int MPI_Ialltoallw(const void *s, const int scs[], const int sd[], const MPI_Datatype sts[],
                   void *r, const int rcs[], const int rd[], const MPI_Datatype rts[],
                   MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Ialltoallw(s, scs, sd, sts, r, rcs, rd, rts, comm, req);
    enter("Ialltoallw", CALLER);
    putf(" comm=%d", comm_id(comm));
    ownw(s, scs, sts, rcs, rd, rts, comm);
    end_entry();
    int rc = PMPI_Ialltoallw(s, scs, sd, sts, r, rcs, rd, rts, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'c'));
    done();
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Alltoallw_init(const void *s, const int scs[], const int sd[], const MPI_Datatype sts[],
                       void *r, const int rcs[], const int rd[], const MPI_Datatype rts[],
                       MPI_Comm comm, MPI_Info info, MPI_Request *req) {
    if (!LOGGING) return PMPI_Alltoallw_init(s, scs, sd, sts, r, rcs, rd, rts, comm, info, req);
    enter("Alltoallw_init", CALLER);
    putf(" comm=%d", comm_id(comm));
    ownw(s, scs, sts, rcs, rd, rts, comm);
    end_entry();
    int rc = PMPI_Alltoallw_init(s, scs, sd, sts, r, rcs, rd, rts, comm, info, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'P'));
    done();
    return rc;
}

int MPI_Bcast_c(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Bcast_c(buf, count, dt, root, comm);
    enter_begin("Bcast");
    uint64_t mw[] = {87, 0, 0, MEMO_P(buf), MEMO_I(count), memo_type(dt), MEMO_I(root),
        memo_comm(comm)};
    if (!enter_memo("Bcast", CALLER, mw, 8)) {
        putf(" comm=%d", comm_id(comm));
        rooted_c(count, dt, root);
    }
    end_entry();
    int rc = PMPI_Bcast_c(buf, count, dt, root, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Reduce_c(const void *s, void *r, MPI_Count count, MPI_Datatype dt, MPI_Op op, int root,
                 MPI_Comm comm) {
    if (!LOGGING) return PMPI_Reduce_c(s, r, count, dt, op, root, comm);
    enter_begin("Reduce");
    uint64_t mw[] = {88, 0, 0, MEMO_P(s), MEMO_P(r), MEMO_I(count), memo_type(dt), KEY(op),
        MEMO_I(root), memo_comm(comm)};
    if (!enter_memo("Reduce", CALLER, mw, 10)) {
        putf(" comm=%d", comm_id(comm));
        rooted_c(count, dt, root);
        put_op(op);
    }
    end_entry();
    int rc = PMPI_Reduce_c(s, r, count, dt, op, root, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Allreduce_c(const void *s, void *r, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                    MPI_Comm comm) {
    if (!LOGGING) return PMPI_Allreduce_c(s, r, count, dt, op, comm);
    enter_begin("Allreduce");
    uint64_t mw[] = {89, 0, 0, MEMO_P(s), MEMO_P(r), MEMO_I(count), memo_type(dt), KEY(op),
        memo_comm(comm)};
    if (!enter_memo("Allreduce", CALLER, mw, 9)) {
        putf(" comm=%d", comm_id(comm));
        sized_c(count, dt);
        put_op(op);
    }
    end_entry();
    int rc = PMPI_Allreduce_c(s, r, count, dt, op, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Scan_c(const void *s, void *r, MPI_Count count, MPI_Datatype dt, MPI_Op op,
               MPI_Comm comm) {
    if (!LOGGING) return PMPI_Scan_c(s, r, count, dt, op, comm);
    enter_begin("Scan");
    uint64_t mw[] = {90, 0, 0, MEMO_P(s), MEMO_P(r), MEMO_I(count), memo_type(dt), KEY(op),
        memo_comm(comm)};
    if (!enter_memo("Scan", CALLER, mw, 9)) {
        putf(" comm=%d", comm_id(comm));
        sized_c(count, dt);
        put_op(op);
    }
    end_entry();
    int rc = PMPI_Scan_c(s, r, count, dt, op, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Exscan_c(const void *s, void *r, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                 MPI_Comm comm) {
    if (!LOGGING) return PMPI_Exscan_c(s, r, count, dt, op, comm);
    enter_begin("Exscan");
    uint64_t mw[] = {91, 0, 0, MEMO_P(s), MEMO_P(r), MEMO_I(count), memo_type(dt), KEY(op),
        memo_comm(comm)};
    if (!enter_memo("Exscan", CALLER, mw, 9)) {
        putf(" comm=%d", comm_id(comm));
        sized_c(count, dt);
        put_op(op);
    }
    end_entry();
    int rc = PMPI_Exscan_c(s, r, count, dt, op, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Reduce_scatter_block_c(const void *s, void *r, MPI_Count count, MPI_Datatype dt,
                               MPI_Op op, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Reduce_scatter_block_c(s, r, count, dt, op, comm);
    enter_begin("Reduce_scatter_block");
    uint64_t mw[] = {92, 0, 0, MEMO_P(s), MEMO_P(r), MEMO_I(count), memo_type(dt), KEY(op),
        memo_comm(comm)};
    if (!enter_memo("Reduce_scatter_block", CALLER, mw, 9)) {
        putf(" comm=%d", comm_id(comm));
        sized_c(count, dt);
        put_op(op);
    }
    end_entry();
    int rc = PMPI_Reduce_scatter_block_c(s, r, count, dt, op, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Allgather_c(const void *s, MPI_Count sc, MPI_Datatype st, void *r, MPI_Count rc_,
                    MPI_Datatype rt, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Allgather_c(s, sc, st, r, rc_, rt, comm);
    enter_begin("Allgather");
    uint64_t mw[] = {93, 0, 0, MEMO_P(s), MEMO_I(sc), memo_type(st), MEMO_P(r), MEMO_I(rc_),
        memo_type(rt), memo_comm(comm)};
    if (!enter_memo("Allgather", CALLER, mw, 10)) {
        putf(" comm=%d", comm_id(comm));
        s == MPI_IN_PLACE ? sized_c(rc_, rt) : sized_c(sc, st);
    }
    end_entry();
    int rc = PMPI_Allgather_c(s, sc, st, r, rc_, rt, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Alltoall_c(const void *s, MPI_Count sc, MPI_Datatype st, void *r, MPI_Count rc_,
                   MPI_Datatype rt, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Alltoall_c(s, sc, st, r, rc_, rt, comm);
    enter_begin("Alltoall");
    uint64_t mw[] = {94, 0, 0, MEMO_P(s), MEMO_I(sc), memo_type(st), MEMO_P(r), MEMO_I(rc_),
        memo_type(rt), memo_comm(comm)};
    if (!enter_memo("Alltoall", CALLER, mw, 10)) {
        putf(" comm=%d", comm_id(comm));
        s == MPI_IN_PLACE ? sized_c(rc_, rt) : sized_c(sc, st);
    }
    end_entry();
    int rc = PMPI_Alltoall_c(s, sc, st, r, rc_, rt, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Gather_c(const void *s, MPI_Count sc, MPI_Datatype st, void *r, MPI_Count rc_,
                 MPI_Datatype rt, int root, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Gather_c(s, sc, st, r, rc_, rt, root, comm);
    enter_begin("Gather");
    uint64_t mw[] = {95, 0, 0, MEMO_P(s), MEMO_I(sc), memo_type(st), MEMO_P(r), MEMO_I(rc_),
        memo_type(rt), MEMO_I(root), memo_comm(comm)};
    if (!enter_memo("Gather", CALLER, mw, 11)) {
        putf(" comm=%d", comm_id(comm));
        s == MPI_IN_PLACE && rank_in(comm) == root ? rooted_c(rc_, rt, root) : rooted_c(sc, st,
            root);
    }
    end_entry();
    int rc = PMPI_Gather_c(s, sc, st, r, rc_, rt, root, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}

int MPI_Scatter_c(const void *s, MPI_Count sc, MPI_Datatype st, void *r, MPI_Count rc_,
                  MPI_Datatype rt, int root, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Scatter_c(s, sc, st, r, rc_, rt, root, comm);
    enter_begin("Scatter");
    uint64_t mw[] = {96, 0, 0, MEMO_P(s), MEMO_I(sc), memo_type(st), MEMO_P(r), MEMO_I(rc_),
        memo_type(rt), MEMO_I(root), memo_comm(comm)};
    if (!enter_memo("Scatter", CALLER, mw, 11)) {
        putf(" comm=%d", comm_id(comm));
        rank_in(comm) == root ? rooted_c(sc, st, root) : rooted_c(rc_, rt, root);
    }
    end_entry();
    int rc = PMPI_Scatter_c(s, sc, st, r, rc_, rt, root, comm);
    result(rc);
    if (rc == MPI_SUCCESS) memo_result(NULL, 0, 0);
    done();
    return rc;
}
#endif

int MPI_Neighbor_allgather(const void *s, int sc, MPI_Datatype st, void *r, int rc_,
                           MPI_Datatype rt, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Neighbor_allgather(s, sc, st, r, rc_, rt, comm);
    enter("Neighbor_allgather", CALLER);
    putf(" comm=%d", comm_id(comm));
    sized(sc, st);
    end_entry();
    int rc = PMPI_Neighbor_allgather(s, sc, st, r, rc_, rt, comm);
    result(rc);
    done();
    return rc;
}

int MPI_Ineighbor_allgather(const void *s, int sc, MPI_Datatype st, void *r, int rc_,
                            MPI_Datatype rt, MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Ineighbor_allgather(s, sc, st, r, rc_, rt, comm, req);
    enter("Ineighbor_allgather", CALLER);
    putf(" comm=%d", comm_id(comm));
    sized(sc, st);
    end_entry();
    int rc = PMPI_Ineighbor_allgather(s, sc, st, r, rc_, rt, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'c'));
    done();
    return rc;
}

int MPI_Neighbor_allgatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rcs[],
                            const int rd[], MPI_Datatype rt, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Neighbor_allgatherv(s, sc, st, r, rcs, rd, rt, comm);
    enter("Neighbor_allgatherv", CALLER);
    putf(" comm=%d", comm_id(comm));
    sized(sc, st);
    end_entry();
    int rc = PMPI_Neighbor_allgatherv(s, sc, st, r, rcs, rd, rt, comm);
    result(rc);
    done();
    return rc;
}

int MPI_Ineighbor_allgatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rcs[],
                             const int rd[], MPI_Datatype rt, MPI_Comm comm,
                             MPI_Request *req) {
    if (!LOGGING) return PMPI_Ineighbor_allgatherv(s, sc, st, r, rcs, rd, rt, comm, req);
    enter("Ineighbor_allgatherv", CALLER);
    putf(" comm=%d", comm_id(comm));
    sized(sc, st);
    end_entry();
    int rc = PMPI_Ineighbor_allgatherv(s, sc, st, r, rcs, rd, rt, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'c'));
    done();
    return rc;
}

int MPI_Neighbor_alltoall(const void *s, int sc, MPI_Datatype st, void *r, int rc_,
                          MPI_Datatype rt, MPI_Comm comm) {
    if (!LOGGING) return PMPI_Neighbor_alltoall(s, sc, st, r, rc_, rt, comm);
    enter("Neighbor_alltoall", CALLER);
    putf(" comm=%d", comm_id(comm));
    sized(sc, st);
    end_entry();
    int rc = PMPI_Neighbor_alltoall(s, sc, st, r, rc_, rt, comm);
    result(rc);
    done();
    return rc;
}

int MPI_Ineighbor_alltoall(const void *s, int sc, MPI_Datatype st, void *r, int rc_,
                           MPI_Datatype rt, MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Ineighbor_alltoall(s, sc, st, r, rc_, rt, comm, req);
    enter("Ineighbor_alltoall", CALLER);
    putf(" comm=%d", comm_id(comm));
    sized(sc, st);
    end_entry();
    int rc = PMPI_Ineighbor_alltoall(s, sc, st, r, rc_, rt, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'c'));
    done();
    return rc;
}

int MPI_Neighbor_alltoallv(const void *s, const int scs[], const int sd[], MPI_Datatype st,
                           void *r, const int rcs[], const int rd[], MPI_Datatype rt,
                           MPI_Comm comm) {
    if (!LOGGING) return PMPI_Neighbor_alltoallv(s, scs, sd, st, r, rcs, rd, rt, comm);
    enter("Neighbor_alltoallv", CALLER);
    putf(" comm=%d", comm_id(comm));
    per_out(scs, NULL, st, comm);
    end_entry();
    int rc = PMPI_Neighbor_alltoallv(s, scs, sd, st, r, rcs, rd, rt, comm);
    result(rc);
    done();
    return rc;
}

int MPI_Ineighbor_alltoallv(const void *s, const int scs[], const int sd[], MPI_Datatype st,
                            void *r, const int rcs[], const int rd[], MPI_Datatype rt,
                            MPI_Comm comm, MPI_Request *req) {
    if (!LOGGING) return PMPI_Ineighbor_alltoallv(s, scs, sd, st, r, rcs, rd, rt, comm, req);
    enter("Ineighbor_alltoallv", CALLER);
    putf(" comm=%d", comm_id(comm));
    per_out(scs, NULL, st, comm);
    end_entry();
    int rc = PMPI_Ineighbor_alltoallv(s, scs, sd, st, r, rcs, rd, rt, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'c'));
    done();
    return rc;
}

int MPI_Neighbor_alltoallw(const void *s, const int scs[], const MPI_Aint sd[],
                           const MPI_Datatype sts[], void *r, const int rcs[],
                           const MPI_Aint rd[], const MPI_Datatype rts[], MPI_Comm comm) {
    if (!LOGGING) return PMPI_Neighbor_alltoallw(s, scs, sd, sts, r, rcs, rd, rts, comm);
    enter("Neighbor_alltoallw", CALLER);
    putf(" comm=%d", comm_id(comm));
    per_out(scs, sts, MPI_DATATYPE_NULL, comm);
    end_entry();
    int rc = PMPI_Neighbor_alltoallw(s, scs, sd, sts, r, rcs, rd, rts, comm);
    result(rc);
    done();
    return rc;
}

int MPI_Ineighbor_alltoallw(const void *s, const int scs[], const MPI_Aint sd[],
                            const MPI_Datatype sts[], void *r, const int rcs[],
                            const MPI_Aint rd[], const MPI_Datatype rts[], MPI_Comm comm,
                            MPI_Request *req) {
    if (!LOGGING) return PMPI_Ineighbor_alltoallw(s, scs, sd, sts, r, rcs, rd, rts, comm, req);
    enter("Ineighbor_alltoallw", CALLER);
    putf(" comm=%d", comm_id(comm));
    per_out(scs, sts, MPI_DATATYPE_NULL, comm);
    end_entry();
    int rc = PMPI_Ineighbor_alltoallw(s, scs, sd, sts, r, rcs, rd, rts, comm, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'c'));
    done();
    return rc;
}

int MPI_Put(const void *o, int n, MPI_Datatype t, int target, MPI_Aint disp, int tn,
            MPI_Datatype tt, MPI_Win win) {
    if (!LOGGING) return PMPI_Put(o, n, t, target, disp, tn, tt, win);
    enter("Put", CALLER);
    rma_args(win, n, t, target, disp, tn, tt);
    put_buf("sb", o, n, t, 2);
    end_entry();
    int rc = PMPI_Put(o, n, t, target, disp, tn, tt, win);
    result(rc);
    done();
    return rc;
}

int MPI_Get(void *o, int n, MPI_Datatype t, int target, MPI_Aint disp, int tn, MPI_Datatype tt,
            MPI_Win win) {
    if (!LOGGING) return PMPI_Get(o, n, t, target, disp, tn, tt, win);
    enter("Get", CALLER);
    rma_args(win, n, t, target, disp, tn, tt);
    put_buf("rb", o, n, t, 2);
    end_entry();
    int rc = PMPI_Get(o, n, t, target, disp, tn, tt, win);
    result(rc);
    done();
    return rc;
}

int MPI_Accumulate(const void *o, int n, MPI_Datatype t, int target, MPI_Aint disp, int tn,
                   MPI_Datatype tt, MPI_Op op, MPI_Win win) {
    if (!LOGGING) return PMPI_Accumulate(o, n, t, target, disp, tn, tt, op, win);
    enter("Accumulate", CALLER);
    rma_args(win, n, t, target, disp, tn, tt);
    putf(" op=%s", op_name(op));
    put_buf("sb", o, n, t, 2);
    end_entry();
    int rc = PMPI_Accumulate(o, n, t, target, disp, tn, tt, op, win);
    result(rc);
    done();
    return rc;
}

int MPI_Get_accumulate(const void *o, int n, MPI_Datatype t, void *r, int rn, MPI_Datatype rt,
                       int target, MPI_Aint disp, int tn, MPI_Datatype tt, MPI_Op op,
                       MPI_Win win) {
    if (!LOGGING) return PMPI_Get_accumulate(o, n, t, r, rn, rt, target, disp, tn, tt, op, win);
    enter("Get_accumulate", CALLER);
    rma_args(win, n, t, target, disp, tn, tt);
    putf(" rn=%d rT=%d op=%s", rn, type_id(rt), op_name(op));
    put_buf("sb", o, n, t, 2);
    put_buf("rb", r, rn, rt, 2);
    end_entry();
    int rc = PMPI_Get_accumulate(o, n, t, r, rn, rt, target, disp, tn, tt, op, win);
    result(rc);
    done();
    return rc;
}

int MPI_Fetch_and_op(const void *o, void *r, MPI_Datatype t, int target, MPI_Aint disp,
                     MPI_Op op, MPI_Win win) {
    if (!LOGGING) return PMPI_Fetch_and_op(o, r, t, target, disp, op, win);
    enter("Fetch_and_op", CALLER);
    rma_args(win, 1, t, target, disp, 1, t);
    putf(" op=%s", op_name(op));
    end_entry();
    int rc = PMPI_Fetch_and_op(o, r, t, target, disp, op, win);
    result(rc);
    done();
    return rc;
}

int MPI_Compare_and_swap(const void *o, const void *c, void *r, MPI_Datatype t, int target,
                         MPI_Aint disp, MPI_Win win) {
    if (!LOGGING) return PMPI_Compare_and_swap(o, c, r, t, target, disp, win);
    enter("Compare_and_swap", CALLER);
    rma_args(win, 1, t, target, disp, 1, t);
    end_entry();
    int rc = PMPI_Compare_and_swap(o, c, r, t, target, disp, win);
    result(rc);
    done();
    return rc;
}

int MPI_Rput(const void *o, int n, MPI_Datatype t, int target, MPI_Aint disp, int tn,
             MPI_Datatype tt, MPI_Win win, MPI_Request *req) {
    if (!LOGGING) return PMPI_Rput(o, n, t, target, disp, tn, tt, win, req);
    enter("Rput", CALLER);
    rma_args(win, n, t, target, disp, tn, tt);
    put_buf("sb", o, n, t, 2);
    end_entry();
    int rc = PMPI_Rput(o, n, t, target, disp, tn, tt, win, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'o'));
    done();
    return rc;
}

int MPI_Rget(void *o, int n, MPI_Datatype t, int target, MPI_Aint disp, int tn, MPI_Datatype tt,
             MPI_Win win, MPI_Request *req) {
    if (!LOGGING) return PMPI_Rget(o, n, t, target, disp, tn, tt, win, req);
    enter("Rget", CALLER);
    rma_args(win, n, t, target, disp, tn, tt);
    put_buf("rb", o, n, t, 2);
    end_entry();
    int rc = PMPI_Rget(o, n, t, target, disp, tn, tt, win, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'o'));
    done();
    return rc;
}

int MPI_Raccumulate(const void *o, int n, MPI_Datatype t, int target, MPI_Aint disp, int tn,
                    MPI_Datatype tt, MPI_Op op, MPI_Win win, MPI_Request *req) {
    if (!LOGGING) return PMPI_Raccumulate(o, n, t, target, disp, tn, tt, op, win, req);
    enter("Raccumulate", CALLER);
    rma_args(win, n, t, target, disp, tn, tt);
    put_op(op);
    put_buf("sb", o, n, t, 2);
    end_entry();
    int rc = PMPI_Raccumulate(o, n, t, target, disp, tn, tt, op, win, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'o'));
    done();
    return rc;
}

int MPI_Rget_accumulate(const void *o, int n, MPI_Datatype t, void *r, int rn, MPI_Datatype rt,
                        int target, MPI_Aint disp, int tn, MPI_Datatype tt, MPI_Op op,
                        MPI_Win win, MPI_Request *req) {
    if (!LOGGING) return PMPI_Rget_accumulate(o, n, t, r, rn, rt, target, disp, tn, tt, op, win,
        req);
    enter("Rget_accumulate", CALLER);
    rma_args(win, n, t, target, disp, tn, tt);
    putf(" rn=%d rT=%d", rn, type_id(rt));
    put_op(op);
    end_entry();
    int rc = PMPI_Rget_accumulate(o, n, t, r, rn, rt, target, disp, tn, tt, op, win, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'o'));
    done();
    return rc;
}

int MPI_Win_fence(int a, MPI_Win win) {
    if (!LOGGING) return PMPI_Win_fence(a, win);
    enter("Win_fence", CALLER);
    putf(" win=%d", win_id(win));
    put_assert(a);
    end_entry();
    int rc = PMPI_Win_fence(a, win);
    result(rc);
    done();
    return rc;
}

int MPI_Win_lock(int lt, int target, int a, MPI_Win win) {
    if (!LOGGING) return PMPI_Win_lock(lt, target, a, win);
    enter("Win_lock", CALLER);
    putf(" win=%d", win_id(win));
    put_peer("tgt", target);
    puts_(lt == MPI_LOCK_SHARED ? " lt=S" : " lt=X");
    put_assert(a);
    end_entry();
    int rc = PMPI_Win_lock(lt, target, a, win);
    result(rc);
    done();
    return rc;
}

int MPI_Win_unlock(int target, MPI_Win win) {
    if (!LOGGING) return PMPI_Win_unlock(target, win);
    enter("Win_unlock", CALLER);
    putf(" win=%d", win_id(win));
    put_peer("tgt", target);
    end_entry();
    int rc = PMPI_Win_unlock(target, win);
    result(rc);
    done();
    return rc;
}

int MPI_Win_lock_all(int a, MPI_Win win) {
    if (!LOGGING) return PMPI_Win_lock_all(a, win);
    enter("Win_lock_all", CALLER);
    putf(" win=%d", win_id(win));
    put_assert(a);
    end_entry();
    int rc = PMPI_Win_lock_all(a, win);
    result(rc);
    done();
    return rc;
}

int MPI_Win_unlock_all(MPI_Win win) {
    if (!LOGGING) return PMPI_Win_unlock_all(win);
    enter("Win_unlock_all", CALLER);
    putf(" win=%d", win_id(win));
    end_entry();
    int rc = PMPI_Win_unlock_all(win);
    result(rc);
    done();
    return rc;
}

int MPI_Win_flush(int target, MPI_Win win) {
    if (!LOGGING) return PMPI_Win_flush(target, win);
    enter("Win_flush", CALLER);
    putf(" win=%d", win_id(win));
    put_peer("tgt", target);
    end_entry();
    int rc = PMPI_Win_flush(target, win);
    result(rc);
    done();
    return rc;
}

int MPI_Win_flush_all(MPI_Win win) {
    if (!LOGGING) return PMPI_Win_flush_all(win);
    enter("Win_flush_all", CALLER);
    putf(" win=%d", win_id(win));
    end_entry();
    int rc = PMPI_Win_flush_all(win);
    result(rc);
    done();
    return rc;
}

int MPI_Win_flush_local(int target, MPI_Win win) {
    if (!LOGGING) return PMPI_Win_flush_local(target, win);
    enter("Win_flush_local", CALLER);
    putf(" win=%d", win_id(win));
    put_peer("tgt", target);
    end_entry();
    int rc = PMPI_Win_flush_local(target, win);
    result(rc);
    done();
    return rc;
}

int MPI_Win_flush_local_all(MPI_Win win) {
    if (!LOGGING) return PMPI_Win_flush_local_all(win);
    enter("Win_flush_local_all", CALLER);
    putf(" win=%d", win_id(win));
    end_entry();
    int rc = PMPI_Win_flush_local_all(win);
    result(rc);
    done();
    return rc;
}

int MPI_Win_sync(MPI_Win win) {
    if (!LOGGING) return PMPI_Win_sync(win);
    enter("Win_sync", CALLER);
    putf(" win=%d", win_id(win));
    end_entry();
    int rc = PMPI_Win_sync(win);
    result(rc);
    done();
    return rc;
}

int MPI_Win_post(MPI_Group g, int a, MPI_Win win) {
    if (!LOGGING) return PMPI_Win_post(g, a, win);
    enter("Win_post", CALLER);
    putf(" win=%d", win_id(win));
    win_group("grp", g, win);
    put_assert(a);
    end_entry();
    int rc = PMPI_Win_post(g, a, win);
    result(rc);
    done();
    return rc;
}

int MPI_Win_start(MPI_Group g, int a, MPI_Win win) {
    if (!LOGGING) return PMPI_Win_start(g, a, win);
    enter("Win_start", CALLER);
    putf(" win=%d", win_id(win));
    win_group("grp", g, win);
    put_assert(a);
    end_entry();
    int rc = PMPI_Win_start(g, a, win);
    result(rc);
    done();
    return rc;
}

int MPI_Win_complete(MPI_Win win) {
    if (!LOGGING) return PMPI_Win_complete(win);
    enter("Win_complete", CALLER);
    putf(" win=%d", win_id(win));
    end_entry();
    int rc = PMPI_Win_complete(win);
    result(rc);
    done();
    return rc;
}

int MPI_Win_wait(MPI_Win win) {
    if (!LOGGING) return PMPI_Win_wait(win);
    enter("Win_wait", CALLER);
    putf(" win=%d", win_id(win));
    end_entry();
    int rc = PMPI_Win_wait(win);
    result(rc);
    done();
    return rc;
}

int MPI_Win_test(MPI_Win win, int *flag) {
    if (!LOGGING) return PMPI_Win_test(win, flag);
    enter("Win_test", CALLER);
    putf(" win=%d", win_id(win));
    end_entry();
    int rc = PMPI_Win_test(win, flag);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" flag=%d", *flag ? 1 : 0);
    done();
    return rc;
}

int MPI_File_get_size(MPI_File fh, MPI_Offset *size) {
    if (!LOGGING) return PMPI_File_get_size(fh, size);
    enter("File_get_size", CALLER);
    putf(" fh=%d", file_id(fh));
    end_entry();
    int rc = PMPI_File_get_size(fh, size);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" size=%lld", (long long)*size);
    done();
    return rc;
}

int MPI_File_set_size(MPI_File fh, MPI_Offset size) {
    if (!LOGGING) return PMPI_File_set_size(fh, size);
    enter("File_set_size", CALLER);
    putf(" fh=%d", file_id(fh));
    putf(" size=%lld", (long long)size);
    end_entry();
    int rc = PMPI_File_set_size(fh, size);
    result(rc);
    done();
    return rc;
}

int MPI_File_preallocate(MPI_File fh, MPI_Offset size) {
    if (!LOGGING) return PMPI_File_preallocate(fh, size);
    enter("File_preallocate", CALLER);
    putf(" fh=%d", file_id(fh));
    putf(" size=%lld", (long long)size);
    end_entry();
    int rc = PMPI_File_preallocate(fh, size);
    result(rc);
    done();
    return rc;
}

int MPI_File_seek(MPI_File fh, MPI_Offset off, int whence) {
    if (!LOGGING) return PMPI_File_seek(fh, off, whence);
    enter("File_seek", CALLER);
    putf(" fh=%d", file_id(fh));
    putf(" off=%lld whence=%s", (long long)off, whence_name(whence));
    end_entry();
    int rc = PMPI_File_seek(fh, off, whence);
    result(rc);
    done();
    return rc;
}

int MPI_File_seek_shared(MPI_File fh, MPI_Offset off, int whence) {
    if (!LOGGING) return PMPI_File_seek_shared(fh, off, whence);
    enter("File_seek_shared", CALLER);
    putf(" fh=%d", file_id(fh));
    putf(" off=%lld whence=%s", (long long)off, whence_name(whence));
    end_entry();
    int rc = PMPI_File_seek_shared(fh, off, whence);
    result(rc);
    done();
    return rc;
}

int MPI_File_get_position(MPI_File fh, MPI_Offset *pos) {
    if (!LOGGING) return PMPI_File_get_position(fh, pos);
    enter("File_get_position", CALLER);
    putf(" fh=%d", file_id(fh));
    end_entry();
    int rc = PMPI_File_get_position(fh, pos);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" pos=%lld", (long long)*pos);
    done();
    return rc;
}

int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *pos) {
    if (!LOGGING) return PMPI_File_get_position_shared(fh, pos);
    enter("File_get_position_shared", CALLER);
    putf(" fh=%d", file_id(fh));
    end_entry();
    int rc = PMPI_File_get_position_shared(fh, pos);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" pos=%lld", (long long)*pos);
    done();
    return rc;
}

int MPI_File_sync(MPI_File fh) {
    if (!LOGGING) return PMPI_File_sync(fh);
    enter("File_sync", CALLER);
    putf(" fh=%d", file_id(fh));
    end_entry();
    int rc = PMPI_File_sync(fh);
    result(rc);
    done();
    return rc;
}

int MPI_File_read(MPI_File fh, void *buf, int n, MPI_Datatype t, MPI_Status *status) {
    if (!LOGGING) return PMPI_File_read(fh, buf, n, t, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("File_read", CALLER);
    putf(" fh=%d n=%d T=%d", file_id(fh), n, type_id(t));
    end_entry();
    int rc = PMPI_File_read(fh, buf, n, t, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_moved(st);
    done();
    return rc;
}

int MPI_File_iread(MPI_File fh, void *buf, int n, MPI_Datatype t, MPI_Request *req) {
    if (!LOGGING) return PMPI_File_iread(fh, buf, n, t, req);
    enter("File_iread", CALLER);
    putf(" fh=%d n=%d T=%d", file_id(fh), n, type_id(t));
    end_entry();
    int rc = PMPI_File_iread(fh, buf, n, t, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'i'));
    done();
    return rc;
}

int MPI_File_write(MPI_File fh, const void *buf, int n, MPI_Datatype t, MPI_Status *status) {
    if (!LOGGING) return PMPI_File_write(fh, buf, n, t, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("File_write", CALLER);
    putf(" fh=%d n=%d T=%d", file_id(fh), n, type_id(t));
    end_entry();
    int rc = PMPI_File_write(fh, buf, n, t, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_moved(st);
    done();
    return rc;
}

int MPI_File_iwrite(MPI_File fh, const void *buf, int n, MPI_Datatype t, MPI_Request *req) {
    if (!LOGGING) return PMPI_File_iwrite(fh, buf, n, t, req);
    enter("File_iwrite", CALLER);
    putf(" fh=%d n=%d T=%d", file_id(fh), n, type_id(t));
    end_entry();
    int rc = PMPI_File_iwrite(fh, buf, n, t, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'i'));
    done();
    return rc;
}

int MPI_File_read_all(MPI_File fh, void *buf, int n, MPI_Datatype t, MPI_Status *status) {
    if (!LOGGING) return PMPI_File_read_all(fh, buf, n, t, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("File_read_all", CALLER);
    putf(" fh=%d n=%d T=%d", file_id(fh), n, type_id(t));
    end_entry();
    int rc = PMPI_File_read_all(fh, buf, n, t, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_moved(st);
    done();
    return rc;
}

int MPI_File_iread_all(MPI_File fh, void *buf, int n, MPI_Datatype t, MPI_Request *req) {
    if (!LOGGING) return PMPI_File_iread_all(fh, buf, n, t, req);
    enter("File_iread_all", CALLER);
    putf(" fh=%d n=%d T=%d", file_id(fh), n, type_id(t));
    end_entry();
    int rc = PMPI_File_iread_all(fh, buf, n, t, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'i'));
    done();
    return rc;
}

int MPI_File_write_all(MPI_File fh, const void *buf, int n, MPI_Datatype t,
                       MPI_Status *status) {
    if (!LOGGING) return PMPI_File_write_all(fh, buf, n, t, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("File_write_all", CALLER);
    putf(" fh=%d n=%d T=%d", file_id(fh), n, type_id(t));
    end_entry();
    int rc = PMPI_File_write_all(fh, buf, n, t, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_moved(st);
    done();
    return rc;
}

int MPI_File_iwrite_all(MPI_File fh, const void *buf, int n, MPI_Datatype t, MPI_Request *req) {
    if (!LOGGING) return PMPI_File_iwrite_all(fh, buf, n, t, req);
    enter("File_iwrite_all", CALLER);
    putf(" fh=%d n=%d T=%d", file_id(fh), n, type_id(t));
    end_entry();
    int rc = PMPI_File_iwrite_all(fh, buf, n, t, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'i'));
    done();
    return rc;
}

int MPI_File_read_shared(MPI_File fh, void *buf, int n, MPI_Datatype t, MPI_Status *status) {
    if (!LOGGING) return PMPI_File_read_shared(fh, buf, n, t, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("File_read_shared", CALLER);
    putf(" fh=%d n=%d T=%d", file_id(fh), n, type_id(t));
    end_entry();
    int rc = PMPI_File_read_shared(fh, buf, n, t, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_moved(st);
    done();
    return rc;
}

int MPI_File_iread_shared(MPI_File fh, void *buf, int n, MPI_Datatype t, MPI_Request *req) {
    if (!LOGGING) return PMPI_File_iread_shared(fh, buf, n, t, req);
    enter("File_iread_shared", CALLER);
    putf(" fh=%d n=%d T=%d", file_id(fh), n, type_id(t));
    end_entry();
    int rc = PMPI_File_iread_shared(fh, buf, n, t, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'i'));
    done();
    return rc;
}

int MPI_File_write_shared(MPI_File fh, const void *buf, int n, MPI_Datatype t,
                          MPI_Status *status) {
    if (!LOGGING) return PMPI_File_write_shared(fh, buf, n, t, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("File_write_shared", CALLER);
    putf(" fh=%d n=%d T=%d", file_id(fh), n, type_id(t));
    end_entry();
    int rc = PMPI_File_write_shared(fh, buf, n, t, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_moved(st);
    done();
    return rc;
}

int MPI_File_iwrite_shared(MPI_File fh, const void *buf, int n, MPI_Datatype t,
                           MPI_Request *req) {
    if (!LOGGING) return PMPI_File_iwrite_shared(fh, buf, n, t, req);
    enter("File_iwrite_shared", CALLER);
    putf(" fh=%d n=%d T=%d", file_id(fh), n, type_id(t));
    end_entry();
    int rc = PMPI_File_iwrite_shared(fh, buf, n, t, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'i'));
    done();
    return rc;
}

int MPI_File_read_ordered(MPI_File fh, void *buf, int n, MPI_Datatype t, MPI_Status *status) {
    if (!LOGGING) return PMPI_File_read_ordered(fh, buf, n, t, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("File_read_ordered", CALLER);
    putf(" fh=%d n=%d T=%d", file_id(fh), n, type_id(t));
    end_entry();
    int rc = PMPI_File_read_ordered(fh, buf, n, t, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_moved(st);
    done();
    return rc;
}

int MPI_File_write_ordered(MPI_File fh, const void *buf, int n, MPI_Datatype t,
                           MPI_Status *status) {
    if (!LOGGING) return PMPI_File_write_ordered(fh, buf, n, t, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("File_write_ordered", CALLER);
    putf(" fh=%d n=%d T=%d", file_id(fh), n, type_id(t));
    end_entry();
    int rc = PMPI_File_write_ordered(fh, buf, n, t, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_moved(st);
    done();
    return rc;
}

int MPI_File_read_at(MPI_File fh, MPI_Offset off, void *buf, int n, MPI_Datatype t,
                     MPI_Status *status) {
    if (!LOGGING) return PMPI_File_read_at(fh, off, buf, n, t, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("File_read_at", CALLER);
    putf(" fh=%d off=%lld n=%d T=%d", file_id(fh), (long long)off, n, type_id(t));
    end_entry();
    int rc = PMPI_File_read_at(fh, off, buf, n, t, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_moved(st);
    done();
    return rc;
}

int MPI_File_iread_at(MPI_File fh, MPI_Offset off, void *buf, int n, MPI_Datatype t,
                      MPI_Request *req) {
    if (!LOGGING) return PMPI_File_iread_at(fh, off, buf, n, t, req);
    enter("File_iread_at", CALLER);
    putf(" fh=%d off=%lld n=%d T=%d", file_id(fh), (long long)off, n, type_id(t));
    end_entry();
    int rc = PMPI_File_iread_at(fh, off, buf, n, t, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'i'));
    done();
    return rc;
}

int MPI_File_write_at(MPI_File fh, MPI_Offset off, const void *buf, int n, MPI_Datatype t,
                      MPI_Status *status) {
    if (!LOGGING) return PMPI_File_write_at(fh, off, buf, n, t, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("File_write_at", CALLER);
    putf(" fh=%d off=%lld n=%d T=%d", file_id(fh), (long long)off, n, type_id(t));
    end_entry();
    int rc = PMPI_File_write_at(fh, off, buf, n, t, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_moved(st);
    done();
    return rc;
}

int MPI_File_iwrite_at(MPI_File fh, MPI_Offset off, const void *buf, int n, MPI_Datatype t,
                       MPI_Request *req) {
    if (!LOGGING) return PMPI_File_iwrite_at(fh, off, buf, n, t, req);
    enter("File_iwrite_at", CALLER);
    putf(" fh=%d off=%lld n=%d T=%d", file_id(fh), (long long)off, n, type_id(t));
    end_entry();
    int rc = PMPI_File_iwrite_at(fh, off, buf, n, t, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'i'));
    done();
    return rc;
}

int MPI_File_read_at_all(MPI_File fh, MPI_Offset off, void *buf, int n, MPI_Datatype t,
                         MPI_Status *status) {
    if (!LOGGING) return PMPI_File_read_at_all(fh, off, buf, n, t, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("File_read_at_all", CALLER);
    putf(" fh=%d off=%lld n=%d T=%d", file_id(fh), (long long)off, n, type_id(t));
    end_entry();
    int rc = PMPI_File_read_at_all(fh, off, buf, n, t, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_moved(st);
    done();
    return rc;
}

int MPI_File_iread_at_all(MPI_File fh, MPI_Offset off, void *buf, int n, MPI_Datatype t,
                          MPI_Request *req) {
    if (!LOGGING) return PMPI_File_iread_at_all(fh, off, buf, n, t, req);
    enter("File_iread_at_all", CALLER);
    putf(" fh=%d off=%lld n=%d T=%d", file_id(fh), (long long)off, n, type_id(t));
    end_entry();
    int rc = PMPI_File_iread_at_all(fh, off, buf, n, t, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'i'));
    done();
    return rc;
}

int MPI_File_write_at_all(MPI_File fh, MPI_Offset off, const void *buf, int n, MPI_Datatype t,
                          MPI_Status *status) {
    if (!LOGGING) return PMPI_File_write_at_all(fh, off, buf, n, t, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("File_write_at_all", CALLER);
    putf(" fh=%d off=%lld n=%d T=%d", file_id(fh), (long long)off, n, type_id(t));
    end_entry();
    int rc = PMPI_File_write_at_all(fh, off, buf, n, t, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_moved(st);
    done();
    return rc;
}

int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset off, const void *buf, int n, MPI_Datatype t,
                           MPI_Request *req) {
    if (!LOGGING) return PMPI_File_iwrite_at_all(fh, off, buf, n, t, req);
    enter("File_iwrite_at_all", CALLER);
    putf(" fh=%d off=%lld n=%d T=%d", file_id(fh), (long long)off, n, type_id(t));
    end_entry();
    int rc = PMPI_File_iwrite_at_all(fh, off, buf, n, t, req);
    result(rc);
    if (rc == MPI_SUCCESS) putf(" r=%d", req_new(*req, 'i'));
    done();
    return rc;
}

int MPI_File_read_all_begin(MPI_File fh, void *buf, int n, MPI_Datatype t) {
    if (!LOGGING) return PMPI_File_read_all_begin(fh, buf, n, t);
    enter("File_read_all_begin", CALLER);
    putf(" fh=%d n=%d T=%d", file_id(fh), n, type_id(t));
    end_entry();
    int rc = PMPI_File_read_all_begin(fh, buf, n, t);
    result(rc);
    done();
    return rc;
}

int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status) {
    if (!LOGGING) return PMPI_File_read_all_end(fh, buf, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("File_read_all_end", CALLER);
    putf(" fh=%d", file_id(fh));
    end_entry();
    int rc = PMPI_File_read_all_end(fh, buf, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_moved(st);
    done();
    return rc;
}

int MPI_File_write_all_begin(MPI_File fh, const void *buf, int n, MPI_Datatype t) {
    if (!LOGGING) return PMPI_File_write_all_begin(fh, buf, n, t);
    enter("File_write_all_begin", CALLER);
    putf(" fh=%d n=%d T=%d", file_id(fh), n, type_id(t));
    end_entry();
    int rc = PMPI_File_write_all_begin(fh, buf, n, t);
    result(rc);
    done();
    return rc;
}

int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status) {
    if (!LOGGING) return PMPI_File_write_all_end(fh, buf, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("File_write_all_end", CALLER);
    putf(" fh=%d", file_id(fh));
    end_entry();
    int rc = PMPI_File_write_all_end(fh, buf, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_moved(st);
    done();
    return rc;
}

int MPI_File_read_ordered_begin(MPI_File fh, void *buf, int n, MPI_Datatype t) {
    if (!LOGGING) return PMPI_File_read_ordered_begin(fh, buf, n, t);
    enter("File_read_ordered_begin", CALLER);
    putf(" fh=%d n=%d T=%d", file_id(fh), n, type_id(t));
    end_entry();
    int rc = PMPI_File_read_ordered_begin(fh, buf, n, t);
    result(rc);
    done();
    return rc;
}

int MPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status) {
    if (!LOGGING) return PMPI_File_read_ordered_end(fh, buf, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("File_read_ordered_end", CALLER);
    putf(" fh=%d", file_id(fh));
    end_entry();
    int rc = PMPI_File_read_ordered_end(fh, buf, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_moved(st);
    done();
    return rc;
}

int MPI_File_write_ordered_begin(MPI_File fh, const void *buf, int n, MPI_Datatype t) {
    if (!LOGGING) return PMPI_File_write_ordered_begin(fh, buf, n, t);
    enter("File_write_ordered_begin", CALLER);
    putf(" fh=%d n=%d T=%d", file_id(fh), n, type_id(t));
    end_entry();
    int rc = PMPI_File_write_ordered_begin(fh, buf, n, t);
    result(rc);
    done();
    return rc;
}

int MPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status) {
    if (!LOGGING) return PMPI_File_write_ordered_end(fh, buf, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("File_write_ordered_end", CALLER);
    putf(" fh=%d", file_id(fh));
    end_entry();
    int rc = PMPI_File_write_ordered_end(fh, buf, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_moved(st);
    done();
    return rc;
}

int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset off, void *buf, int n, MPI_Datatype t) {
    if (!LOGGING) return PMPI_File_read_at_all_begin(fh, off, buf, n, t);
    enter("File_read_at_all_begin", CALLER);
    putf(" fh=%d off=%lld n=%d T=%d", file_id(fh), (long long)off, n, type_id(t));
    end_entry();
    int rc = PMPI_File_read_at_all_begin(fh, off, buf, n, t);
    result(rc);
    done();
    return rc;
}

int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status) {
    if (!LOGGING) return PMPI_File_read_at_all_end(fh, buf, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("File_read_at_all_end", CALLER);
    putf(" fh=%d", file_id(fh));
    end_entry();
    int rc = PMPI_File_read_at_all_end(fh, buf, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_moved(st);
    done();
    return rc;
}

int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset off, const void *buf, int n,
                                MPI_Datatype t) {
    if (!LOGGING) return PMPI_File_write_at_all_begin(fh, off, buf, n, t);
    enter("File_write_at_all_begin", CALLER);
    putf(" fh=%d off=%lld n=%d T=%d", file_id(fh), (long long)off, n, type_id(t));
    end_entry();
    int rc = PMPI_File_write_at_all_begin(fh, off, buf, n, t);
    result(rc);
    done();
    return rc;
}

int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status) {
    if (!LOGGING) return PMPI_File_write_at_all_end(fh, buf, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    enter("File_write_at_all_end", CALLER);
    putf(" fh=%d", file_id(fh));
    end_entry();
    int rc = PMPI_File_write_at_all_end(fh, buf, st);
    result(rc);
    if (rc == MPI_SUCCESS) put_moved(st);
    done();
    return rc;
}

/* ---- end of the generated C wrappers ---- */

/* ===== Fortran bindings ====================================================================
 * Open MPI's Fortran bindings (mpif.h and `use mpi`) call the PMPI_ entry points directly,
 * bypassing the C wrappers above; these definitions of the gfortran symbols (mpi_send_...)
 * take their place and go through the C wrappers. Covered: MPI_Init/Init_thread/Finalize,
 * the sends, receives and probes, Wait/Waitall/Test, the buffered-mode calls, every
 * collective and its nonblocking form (Fortran's MPI_IN_PLACE made C's), Comm_dup/split/free,
 * Cart_create/Cart_sub/Comm_create/Comm_split_type; and, generated from the table of
 * mpisim/recorded/record/fortran.py at the end of this section, the matched probes, the nonblocking
 * send-receives, persistent requests, Cancel, the one-sided calls, groups, Comm_idup,
 * Type_commit/free, Op_free, the persistent collectives and MPI-IO (Op_create and Startall
 * written by hand). Not covered
 * from Fortran (their time counts as time outside MPI): Waitany/Waitsome/Test*, sessions,
 * the neighbourhood collectives, the mpi_f08 module. Define MPISIM_NO_FORTRAN to leave them
 * out. */
#ifndef MPISIM_NO_FORTRAN
#ifndef MPI_F_STATUS_SIZE  /* an MPI 4.0 constant; before it, a status is its C size in ints */
#define MPI_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif
#define F_BEGIN fortran_caller = __builtin_return_address(0)
#define F_END(rc) do { *ierr = (MPI_Fint)(rc); fortran_caller = NULL; } while (0)

static MPI_Status *f_status(MPI_Fint *fst, MPI_Status *own) {
    return (fst == MPI_F_STATUS_IGNORE) ? MPI_STATUS_IGNORE : own;
}

static void f_status_out(MPI_Fint *fst, MPI_Status *own, int rc) {
    if (rc == MPI_SUCCESS && fst != MPI_F_STATUS_IGNORE) MPI_Status_c2f(own, fst);
}

void mpi_init_(MPI_Fint *ierr) { F_BEGIN; F_END(MPI_Init(NULL, NULL)); }
void mpi_init_thread_(MPI_Fint *req, MPI_Fint *prov, MPI_Fint *ierr) {
    int p = 0;
    F_BEGIN;
    int rc = MPI_Init_thread(NULL, NULL, (int)*req, &p);
    *prov = (MPI_Fint)p;
    F_END(rc);
}
void mpi_finalize_(MPI_Fint *ierr) { F_BEGIN; F_END(MPI_Finalize()); }

#define F_SEND(lower, NAME)                                                               \
    void lower(void *buf, MPI_Fint *count, MPI_Fint *dt, MPI_Fint *dest, MPI_Fint *tag,   \
               MPI_Fint *comm, MPI_Fint *ierr) {                                          \
        F_BEGIN;                                                                          \
        F_END(MPI_##NAME(buf, (int)*count, MPI_Type_f2c(*dt), (int)*dest, (int)*tag,      \
                         MPI_Comm_f2c(*comm)));                                           \
    }
F_SEND(mpi_send_, Send)
F_SEND(mpi_bsend_, Bsend)
F_SEND(mpi_ssend_, Ssend)
F_SEND(mpi_rsend_, Rsend)

#define F_ISEND(lower, NAME)                                                              \
    void lower(void *buf, MPI_Fint *count, MPI_Fint *dt, MPI_Fint *dest, MPI_Fint *tag,   \
               MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr) {                           \
        MPI_Request r;                                                                    \
        F_BEGIN;                                                                          \
        int rc = MPI_##NAME(buf, (int)*count, MPI_Type_f2c(*dt), (int)*dest, (int)*tag,   \
                            MPI_Comm_f2c(*comm), &r);                                     \
        if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(r);                                 \
        F_END(rc);                                                                        \
    }
F_ISEND(mpi_isend_, Isend)
F_ISEND(mpi_ibsend_, Ibsend)
F_ISEND(mpi_issend_, Issend)
F_ISEND(mpi_irsend_, Irsend)
F_ISEND(mpi_irecv_, Irecv)

void mpi_recv_(void *buf, MPI_Fint *count, MPI_Fint *dt, MPI_Fint *src, MPI_Fint *tag,
               MPI_Fint *comm, MPI_Fint *fst, MPI_Fint *ierr) {
    MPI_Status own;
    F_BEGIN;
    int rc = MPI_Recv(buf, (int)*count, MPI_Type_f2c(*dt), (int)*src, (int)*tag,
                      MPI_Comm_f2c(*comm), f_status(fst, &own));
    f_status_out(fst, &own, rc);
    F_END(rc);
}

void mpi_sendrecv_(void *sb, MPI_Fint *sc, MPI_Fint *st, MPI_Fint *dest, MPI_Fint *stag,
                   void *rb, MPI_Fint *rc_, MPI_Fint *rt, MPI_Fint *src, MPI_Fint *rtag,
                   MPI_Fint *comm, MPI_Fint *fst, MPI_Fint *ierr) {
    MPI_Status own;
    F_BEGIN;
    int rc = MPI_Sendrecv(sb, (int)*sc, MPI_Type_f2c(*st), (int)*dest, (int)*stag, rb,
                          (int)*rc_, MPI_Type_f2c(*rt), (int)*src, (int)*rtag,
                          MPI_Comm_f2c(*comm), f_status(fst, &own));
    f_status_out(fst, &own, rc);
    F_END(rc);
}

void mpi_probe_(MPI_Fint *src, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *fst, MPI_Fint *ierr) {
    MPI_Status own;
    F_BEGIN;
    int rc = MPI_Probe((int)*src, (int)*tag, MPI_Comm_f2c(*comm), f_status(fst, &own));
    f_status_out(fst, &own, rc);
    F_END(rc);
}

void mpi_iprobe_(MPI_Fint *src, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *flag, MPI_Fint *fst,
                 MPI_Fint *ierr) {
    MPI_Status own;
    int f = 0;
    F_BEGIN;
    int rc = MPI_Iprobe((int)*src, (int)*tag, MPI_Comm_f2c(*comm), &f, f_status(fst, &own));
    *flag = f ? 1 : 0;  /* .true. in gfortran */
    if (f) f_status_out(fst, &own, rc);
    F_END(rc);
}

void mpi_wait_(MPI_Fint *req, MPI_Fint *fst, MPI_Fint *ierr) {
    MPI_Status own;
    MPI_Request r = MPI_Request_f2c(*req);
    F_BEGIN;
    int rc = MPI_Wait(&r, f_status(fst, &own));
    *req = MPI_Request_c2f(r);
    f_status_out(fst, &own, rc);
    F_END(rc);
}

void mpi_test_(MPI_Fint *req, MPI_Fint *flag, MPI_Fint *fst, MPI_Fint *ierr) {
    MPI_Status own;
    MPI_Request r = MPI_Request_f2c(*req);
    int f = 0;
    F_BEGIN;
    int rc = MPI_Test(&r, &f, f_status(fst, &own));
    *req = MPI_Request_c2f(r);
    *flag = f ? 1 : 0;
    if (f) f_status_out(fst, &own, rc);
    F_END(rc);
}

void mpi_waitall_(MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *fsts, MPI_Fint *ierr) {
    int count = (int)*n;
    MPI_Request *r = malloc(sizeof(MPI_Request) * (size_t)(count > 0 ? count : 1));
    MPI_Status *own = malloc(sizeof(MPI_Status) * (size_t)(count > 0 ? count : 1));
    int ignore = fsts == MPI_F_STATUSES_IGNORE;
    for (int i = 0; i < count; i++) r[i] = MPI_Request_f2c(reqs[i]);
    F_BEGIN;
    int rc = MPI_Waitall(count, r, ignore ? MPI_STATUSES_IGNORE : own);
    for (int i = 0; i < count; i++) {
        reqs[i] = MPI_Request_c2f(r[i]);
        if (!ignore && rc == MPI_SUCCESS) MPI_Status_c2f(&own[i], fsts + i * MPI_F_STATUS_SIZE);
    }
    free(r);
    free(own);
    F_END(rc);
}

void mpi_buffer_attach_(void *buf, MPI_Fint *size, MPI_Fint *ierr) {
    F_BEGIN;
    F_END(MPI_Buffer_attach(buf, (int)*size));
}

void mpi_buffer_detach_(void *addr, MPI_Fint *size, MPI_Fint *ierr) {
    int s = 0;
    void *a = NULL;
    F_BEGIN;
    int rc = MPI_Buffer_detach(&a, &s);
    *size = (MPI_Fint)s;
    (void)addr;  /* Fortran gets the size; the address is the C one's business */
    F_END(rc);
}

void mpi_barrier_(MPI_Fint *comm, MPI_Fint *ierr) {
    F_BEGIN;
    F_END(MPI_Barrier(MPI_Comm_f2c(*comm)));
}

void mpi_bcast_(void *buf, MPI_Fint *count, MPI_Fint *dt, MPI_Fint *root, MPI_Fint *comm,
                MPI_Fint *ierr) {
    F_BEGIN;
    F_END(MPI_Bcast(buf, (int)*count, MPI_Type_f2c(*dt), (int)*root, MPI_Comm_f2c(*comm)));
}

/* The other collectives from Fortran (MPI 4.1 §6), blocking and nonblocking. Fortran's
 * MPI_IN_PLACE is the address of a variable of the library's Fortran bindings, not C's
 * MPI_IN_PLACE: Open MPI exports it as mpi_fortran_in_place_, MPICH keeps its address in
 * MPIR_F_MPI_IN_PLACE (both referenced weakly: a library without Fortran has neither). */
extern int mpi_fortran_in_place_ __attribute__((weak));
extern void *MPIR_F_MPI_IN_PLACE __attribute__((weak));

static void *f_buf(void *p) {
    if (&mpi_fortran_in_place_ != NULL && p == (void *)&mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    if (&MPIR_F_MPI_IN_PLACE != NULL && MPIR_F_MPI_IN_PLACE != NULL && p == MPIR_F_MPI_IN_PLACE)
        return MPI_IN_PLACE;
    return p;
}

/* Count and displacement arrays pass as they are: a Fortran INTEGER is a C int here. */
typedef char f_integer_is_int[sizeof(MPI_Fint) == sizeof(int) ? 1 : -1];
#define F_INTS(a) ((const int *)(a))
#define F_COMM MPI_Comm_f2c(*comm)
#define F_TYPE(t) MPI_Type_f2c(*(t))
#define F_OP MPI_Op_f2c(*op)
#define F_REQ(call)                                                                       \
    do {                                                                                  \
        MPI_Request r;                                                                    \
        F_BEGIN;                                                                          \
        int rc = (call);                                                                  \
        if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(r);                                 \
        F_END(rc);                                                                        \
    } while (0)

void mpi_ibarrier_(MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr) {
    F_REQ(MPI_Ibarrier(F_COMM, &r));
}

void mpi_ibcast_(void *buf, MPI_Fint *count, MPI_Fint *dt, MPI_Fint *root, MPI_Fint *comm,
                 MPI_Fint *req, MPI_Fint *ierr) {
    F_REQ(MPI_Ibcast(buf, (int)*count, F_TYPE(dt), (int)*root, F_COMM, &r));
}

void mpi_reduce_(void *s, void *rb, MPI_Fint *count, MPI_Fint *dt, MPI_Fint *op,
                 MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr) {
    F_BEGIN;
    F_END(MPI_Reduce(f_buf(s), rb, (int)*count, F_TYPE(dt), F_OP, (int)*root, F_COMM));
}

void mpi_ireduce_(void *s, void *rb, MPI_Fint *count, MPI_Fint *dt, MPI_Fint *op,
                  MPI_Fint *root, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr) {
    F_REQ(MPI_Ireduce(f_buf(s), rb, (int)*count, F_TYPE(dt), F_OP, (int)*root, F_COMM, &r));
}

#define F_REDUCE_ALL(lower, NAME, ilower, INAME)                                          \
    void lower(void *s, void *rb, MPI_Fint *count, MPI_Fint *dt, MPI_Fint *op,            \
               MPI_Fint *comm, MPI_Fint *ierr) {                                          \
        F_BEGIN;                                                                          \
        F_END(MPI_##NAME(f_buf(s), rb, (int)*count, F_TYPE(dt), F_OP, F_COMM));           \
    }                                                                                     \
    void ilower(void *s, void *rb, MPI_Fint *count, MPI_Fint *dt, MPI_Fint *op,           \
                MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr) {                          \
        F_REQ(MPI_##INAME(f_buf(s), rb, (int)*count, F_TYPE(dt), F_OP, F_COMM, &r));      \
    }
F_REDUCE_ALL(mpi_allreduce_, Allreduce, mpi_iallreduce_, Iallreduce)
F_REDUCE_ALL(mpi_scan_, Scan, mpi_iscan_, Iscan)
F_REDUCE_ALL(mpi_exscan_, Exscan, mpi_iexscan_, Iexscan)
F_REDUCE_ALL(mpi_reduce_scatter_block_, Reduce_scatter_block, mpi_ireduce_scatter_block_,
             Ireduce_scatter_block)

void mpi_reduce_scatter_(void *s, void *rb, MPI_Fint *rcs, MPI_Fint *dt, MPI_Fint *op,
                         MPI_Fint *comm, MPI_Fint *ierr) {
    F_BEGIN;
    F_END(MPI_Reduce_scatter(f_buf(s), rb, F_INTS(rcs), F_TYPE(dt), F_OP, F_COMM));
}

void mpi_ireduce_scatter_(void *s, void *rb, MPI_Fint *rcs, MPI_Fint *dt, MPI_Fint *op,
                          MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr) {
    F_REQ(MPI_Ireduce_scatter(f_buf(s), rb, F_INTS(rcs), F_TYPE(dt), F_OP, F_COMM, &r));
}

/* Gather, Scatter (rooted) and Allgather, Alltoall (not): count + type on both sides. */
#define F_ROOTED(lower, NAME, ilower, INAME, SEND, RECV)                                  \
    void lower(void *s, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc_, MPI_Fint *rt, \
               MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr) {                          \
        F_BEGIN;                                                                          \
        F_END(MPI_##NAME(SEND, (int)*sc, F_TYPE(st), RECV, (int)*rc_, F_TYPE(rt),         \
                         (int)*root, F_COMM));                                            \
    }                                                                                     \
    void ilower(void *s, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc_,             \
                MPI_Fint *rt, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *req,              \
                MPI_Fint *ierr) {                                                         \
        F_REQ(MPI_##INAME(SEND, (int)*sc, F_TYPE(st), RECV, (int)*rc_, F_TYPE(rt),        \
                          (int)*root, F_COMM, &r));                                       \
    }
F_ROOTED(mpi_gather_, Gather, mpi_igather_, Igather, f_buf(s), rb)
F_ROOTED(mpi_scatter_, Scatter, mpi_iscatter_, Iscatter, s, f_buf(rb))

#define F_ALL(lower, NAME, ilower, INAME)                                                 \
    void lower(void *s, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc_, MPI_Fint *rt, \
               MPI_Fint *comm, MPI_Fint *ierr) {                                          \
        F_BEGIN;                                                                          \
        F_END(MPI_##NAME(f_buf(s), (int)*sc, F_TYPE(st), rb, (int)*rc_, F_TYPE(rt), F_COMM)); \
    }                                                                                     \
    void ilower(void *s, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc_,             \
                MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr) {            \
        F_REQ(MPI_##INAME(f_buf(s), (int)*sc, F_TYPE(st), rb, (int)*rc_, F_TYPE(rt), F_COMM, \
                          &r));                                                           \
    }
F_ALL(mpi_allgather_, Allgather, mpi_iallgather_, Iallgather)
F_ALL(mpi_alltoall_, Alltoall, mpi_ialltoall_, Ialltoall)

void mpi_gatherv_(void *s, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rcs, MPI_Fint *ds,
                  MPI_Fint *rt, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr) {
    F_BEGIN;
    F_END(MPI_Gatherv(f_buf(s), (int)*sc, F_TYPE(st), rb, F_INTS(rcs), F_INTS(ds), F_TYPE(rt),
                      (int)*root, F_COMM));
}

void mpi_igatherv_(void *s, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rcs, MPI_Fint *ds,
                   MPI_Fint *rt, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *req,
                   MPI_Fint *ierr) {
    F_REQ(MPI_Igatherv(f_buf(s), (int)*sc, F_TYPE(st), rb, F_INTS(rcs), F_INTS(ds), F_TYPE(rt),
                       (int)*root, F_COMM, &r));
}

void mpi_allgatherv_(void *s, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rcs,
                     MPI_Fint *ds, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr) {
    F_BEGIN;
    F_END(MPI_Allgatherv(f_buf(s), (int)*sc, F_TYPE(st), rb, F_INTS(rcs), F_INTS(ds),
                         F_TYPE(rt), F_COMM));
}

void mpi_iallgatherv_(void *s, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rcs,
                      MPI_Fint *ds, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *req,
                      MPI_Fint *ierr) {
    F_REQ(MPI_Iallgatherv(f_buf(s), (int)*sc, F_TYPE(st), rb, F_INTS(rcs), F_INTS(ds),
                          F_TYPE(rt), F_COMM, &r));
}

void mpi_scatterv_(void *s, MPI_Fint *scs, MPI_Fint *ds, MPI_Fint *st, void *rb, MPI_Fint *rc_,
                   MPI_Fint *rt, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr) {
    F_BEGIN;
    F_END(MPI_Scatterv(s, F_INTS(scs), F_INTS(ds), F_TYPE(st), f_buf(rb), (int)*rc_,
                       F_TYPE(rt), (int)*root, F_COMM));
}

void mpi_iscatterv_(void *s, MPI_Fint *scs, MPI_Fint *ds, MPI_Fint *st, void *rb,
                    MPI_Fint *rc_, MPI_Fint *rt, MPI_Fint *root, MPI_Fint *comm,
                    MPI_Fint *req, MPI_Fint *ierr) {
    F_REQ(MPI_Iscatterv(s, F_INTS(scs), F_INTS(ds), F_TYPE(st), f_buf(rb), (int)*rc_,
                        F_TYPE(rt), (int)*root, F_COMM, &r));
}

void mpi_alltoallv_(void *s, MPI_Fint *scs, MPI_Fint *sd, MPI_Fint *st, void *rb,
                    MPI_Fint *rcs, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr) {
    F_BEGIN;
    F_END(MPI_Alltoallv(f_buf(s), F_INTS(scs), F_INTS(sd), F_TYPE(st), rb, F_INTS(rcs),
                        F_INTS(rd), F_TYPE(rt), F_COMM));
}

void mpi_ialltoallv_(void *s, MPI_Fint *scs, MPI_Fint *sd, MPI_Fint *st, void *rb,
                     MPI_Fint *rcs, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *req,
                     MPI_Fint *ierr) {
    F_REQ(MPI_Ialltoallv(f_buf(s), F_INTS(scs), F_INTS(sd), F_TYPE(st), rb, F_INTS(rcs),
                         F_INTS(rd), F_TYPE(rt), F_COMM, &r));
}

/* Alltoallw's datatypes per rank: Fortran handles made C's, in storage of the comm's size. */
static MPI_Datatype *f_types(const MPI_Fint *ts, MPI_Comm comm) {
    int size = 0;
    PMPI_Comm_size(comm, &size);
    MPI_Datatype *out = malloc(sizeof(MPI_Datatype) * (size_t)(size > 0 ? size : 1));
    for (int i = 0; i < size; i++) out[i] = MPI_Type_f2c(ts[i]);
    return out;
}

void mpi_alltoallw_(void *s, MPI_Fint *scs, MPI_Fint *sd, MPI_Fint *sts, void *rb,
                    MPI_Fint *rcs, MPI_Fint *rd, MPI_Fint *rts, MPI_Fint *comm, MPI_Fint *ierr) {
    MPI_Comm c = F_COMM;
    MPI_Datatype *st = f_types(sts, c), *rt = f_types(rts, c);
    F_BEGIN;
    int rc = MPI_Alltoallw(f_buf(s), F_INTS(scs), F_INTS(sd), st, rb, F_INTS(rcs), F_INTS(rd),
                           rt, c);
    free(st);
    free(rt);
    F_END(rc);
}

void mpi_ialltoallw_(void *s, MPI_Fint *scs, MPI_Fint *sd, MPI_Fint *sts, void *rb,
                     MPI_Fint *rcs, MPI_Fint *rd, MPI_Fint *rts, MPI_Fint *comm, MPI_Fint *req,
                     MPI_Fint *ierr) {
    MPI_Comm c = F_COMM;
    MPI_Request r;
    MPI_Datatype *st = f_types(sts, c), *rt = f_types(rts, c);  /* MPI keeps no reference */
    F_BEGIN;
    int rc = MPI_Ialltoallw(f_buf(s), F_INTS(scs), F_INTS(sd), st, rb, F_INTS(rcs), F_INTS(rd),
                            rt, c, &r);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(r);
    free(st);
    free(rt);
    F_END(rc);
}

void mpi_comm_dup_(MPI_Fint *comm, MPI_Fint *newcomm, MPI_Fint *ierr) {
    MPI_Comm c;
    F_BEGIN;
    int rc = MPI_Comm_dup(MPI_Comm_f2c(*comm), &c);
    if (rc == MPI_SUCCESS) *newcomm = MPI_Comm_c2f(c);
    F_END(rc);
}

void mpi_comm_split_(MPI_Fint *comm, MPI_Fint *color, MPI_Fint *key, MPI_Fint *newcomm,
                     MPI_Fint *ierr) {
    MPI_Comm c;
    F_BEGIN;
    int rc = MPI_Comm_split(MPI_Comm_f2c(*comm), (int)*color, (int)*key, &c);
    if (rc == MPI_SUCCESS) *newcomm = MPI_Comm_c2f(c);
    F_END(rc);
}

/* Fortran LOGICALs arrive as integers: nonzero is .TRUE. (gfortran's .TRUE. is 1). */
#define F_DIMS 32

void mpi_cart_create_(MPI_Fint *old, MPI_Fint *ndims, MPI_Fint *dims, MPI_Fint *periods,
                      MPI_Fint *reorder, MPI_Fint *cart, MPI_Fint *ierr) {
    int n = (int)*ndims, d[F_DIMS], p[F_DIMS];
    MPI_Comm c;
    F_BEGIN;
    if (n < 0 || n > F_DIMS) { F_END(MPI_ERR_DIMS); return; }
    for (int i = 0; i < n; i++) { d[i] = (int)dims[i]; p[i] = periods[i] != 0; }
    int rc = MPI_Cart_create(MPI_Comm_f2c(*old), n, d, p, *reorder != 0, &c);
    if (rc == MPI_SUCCESS) *cart = MPI_Comm_c2f(c);
    F_END(rc);
}

void mpi_cart_sub_(MPI_Fint *comm, MPI_Fint *remain, MPI_Fint *newcomm, MPI_Fint *ierr) {
    int n = 0, r[F_DIMS];
    MPI_Comm c, parent = MPI_Comm_f2c(*comm);
    F_BEGIN;
    int rc = PMPI_Cartdim_get(parent, &n);
    if (rc == MPI_SUCCESS && (n < 0 || n > F_DIMS)) rc = MPI_ERR_DIMS;
    if (rc == MPI_SUCCESS) {
        for (int i = 0; i < n; i++) r[i] = remain[i] != 0;
        rc = MPI_Cart_sub(parent, r, &c);
        if (rc == MPI_SUCCESS) *newcomm = MPI_Comm_c2f(c);
    }
    F_END(rc);
}

void mpi_comm_create_(MPI_Fint *comm, MPI_Fint *group, MPI_Fint *newcomm, MPI_Fint *ierr) {
    MPI_Comm c;
    F_BEGIN;
    int rc = MPI_Comm_create(MPI_Comm_f2c(*comm), MPI_Group_f2c(*group), &c);
    if (rc == MPI_SUCCESS) *newcomm = MPI_Comm_c2f(c);
    F_END(rc);
}

void mpi_comm_split_type_(MPI_Fint *comm, MPI_Fint *type, MPI_Fint *key, MPI_Fint *info,
                          MPI_Fint *newcomm, MPI_Fint *ierr) {
    MPI_Comm c;
    F_BEGIN;
    int rc = MPI_Comm_split_type(MPI_Comm_f2c(*comm), (int)*type, (int)*key,
                                 MPI_Info_f2c(*info), &c);
    if (rc == MPI_SUCCESS) *newcomm = MPI_Comm_c2f(c);
    F_END(rc);
}

void mpi_comm_free_(MPI_Fint *comm, MPI_Fint *ierr) {
    MPI_Comm c = MPI_Comm_f2c(*comm);
    F_BEGIN;
    int rc = MPI_Comm_free(&c);
    if (rc == MPI_SUCCESS) *comm = MPI_Comm_c2f(c);
    F_END(rc);
}

/* ---- the calls of the one-sided, group, object, persistent and MPI-IO chapters from
 * Fortran: generated from the table of mpisim/recorded/record/fortran.py (below), with these
 * helpers and the two bindings that are not argument conversions. */
typedef size_t f_len;  /* the hidden length of a CHARACTER argument (gfortran 8 and later) */
#define F_STRING 4096

/* A Fortran CHARACTER argument as a C string: its trailing blanks left out. */
static void f_string(const char *s, f_len len, char *out) {
    while (len > 0 && s[len - 1] == ' ') len--;
    if (len >= F_STRING) len = F_STRING - 1;
    memcpy(out, s, len);
    out[len] = '\0';
}

void mpi_startall_(MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *ierr) {
    int count = (int)*n;
    MPI_Request *r = malloc(sizeof(MPI_Request) * (size_t)(count > 0 ? count : 1));
    for (int i = 0; i < count; i++) r[i] = MPI_Request_f2c(reqs[i]);
    F_BEGIN;
    int rc = MPI_Startall(count, r);
    for (int i = 0; i < count; i++) reqs[i] = MPI_Request_c2f(r[i]);
    free(r);
    F_END(rc);
}

/* MPI_Op_create from Fortran: the user function takes its length and datatype as Fortran
 * INTEGERs, so each gets a C trampoline of its own (F_OPS of them; the same function made
 * an op again shares its trampoline). Beyond F_OPS functions, the library's own binding
 * makes the op, unlogged (a reduction names it op=user). */
typedef void f_user_fn(void *, void *, MPI_Fint *, MPI_Fint *);
#define F_OPS 16
static f_user_fn *f_ops[F_OPS];
static int f_op_count;
#define F_TRAMPOLINE(i)                                                                   \
    static void f_op_##i(void *in, void *inout, int *len, MPI_Datatype *t) {              \
        MPI_Fint n = (MPI_Fint)*len, ft = MPI_Type_c2f(*t);                               \
        f_ops[i](in, inout, &n, &ft);                                                     \
    }
F_TRAMPOLINE(0) F_TRAMPOLINE(1) F_TRAMPOLINE(2) F_TRAMPOLINE(3) F_TRAMPOLINE(4)
F_TRAMPOLINE(5) F_TRAMPOLINE(6) F_TRAMPOLINE(7) F_TRAMPOLINE(8) F_TRAMPOLINE(9)
F_TRAMPOLINE(10) F_TRAMPOLINE(11) F_TRAMPOLINE(12) F_TRAMPOLINE(13) F_TRAMPOLINE(14)
F_TRAMPOLINE(15)
static MPI_User_function *const f_trampolines[F_OPS] = {
    f_op_0, f_op_1, f_op_2, f_op_3, f_op_4, f_op_5, f_op_6, f_op_7, f_op_8, f_op_9, f_op_10,
    f_op_11, f_op_12, f_op_13, f_op_14, f_op_15};

void mpi_op_create_(f_user_fn *fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr) {
    int slot = 0;
    while (slot < f_op_count && f_ops[slot] != fn) slot++;
    if (slot == F_OPS) {
        void (*theirs)(f_user_fn *, MPI_Fint *, MPI_Fint *, MPI_Fint *) =
            (void (*)(f_user_fn *, MPI_Fint *, MPI_Fint *, MPI_Fint *))dlsym(RTLD_NEXT,
                                                                           "pmpi_op_create_");
        if (theirs) theirs(fn, commute, op, ierr);
        else *ierr = MPI_ERR_INTERN;
        return;
    }
    MPI_Op made;
    F_BEGIN;
    int rc = MPI_Op_create(f_trampolines[slot], *commute != 0, &made);
    if (rc == MPI_SUCCESS) {
        *op = MPI_Op_c2f(made);
        if (slot == f_op_count) f_ops[f_op_count++] = fn;
    }
    F_END(rc);
}

/* ---- generated by `python -m mpisim.recorded.record.fortran` from its table: do not edit ---- */

void mpi_mprobe_(MPI_Fint *src, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *msg, MPI_Fint *st,
    MPI_Fint *ierr) {
    MPI_Message msg_c;
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_Mprobe((int)*src, (int)*tag, MPI_Comm_f2c(*comm), &msg_c, f_status(st, &st_c));
    if (rc == MPI_SUCCESS) *msg = MPI_Message_c2f(msg_c);
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_improbe_(MPI_Fint *src, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *flag, MPI_Fint *msg,
    MPI_Fint *st, MPI_Fint *ierr) {
    int flag_c = 0;
    MPI_Message msg_c;
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_Improbe((int)*src, (int)*tag, MPI_Comm_f2c(*comm), &flag_c, &msg_c,
             f_status(st, &st_c));
    *flag = flag_c ? 1 : 0;
    if (rc == MPI_SUCCESS) *msg = MPI_Message_c2f(msg_c);
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_mrecv_(void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *msg, MPI_Fint *st,
    MPI_Fint *ierr) {
    MPI_Message msg_c = MPI_Message_f2c(*msg);
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_Mrecv(b, (int)*n, MPI_Type_f2c(*t), &msg_c, f_status(st, &st_c));
    if (rc == MPI_SUCCESS) *msg = MPI_Message_c2f(msg_c);
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_imrecv_(void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *msg, MPI_Fint *req,
    MPI_Fint *ierr) {
    MPI_Message msg_c = MPI_Message_f2c(*msg);
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Imrecv(b, (int)*n, MPI_Type_f2c(*t), &msg_c, &req_c);
    if (rc == MPI_SUCCESS) *msg = MPI_Message_c2f(msg_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_send_init_(void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *peer, MPI_Fint *tag,
    MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Send_init(b, (int)*n, MPI_Type_f2c(*t), (int)*peer, (int)*tag,
             MPI_Comm_f2c(*comm), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_bsend_init_(void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *peer, MPI_Fint *tag,
    MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Bsend_init(b, (int)*n, MPI_Type_f2c(*t), (int)*peer, (int)*tag,
             MPI_Comm_f2c(*comm), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_ssend_init_(void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *peer, MPI_Fint *tag,
    MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Ssend_init(b, (int)*n, MPI_Type_f2c(*t), (int)*peer, (int)*tag,
             MPI_Comm_f2c(*comm), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_rsend_init_(void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *peer, MPI_Fint *tag,
    MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Rsend_init(b, (int)*n, MPI_Type_f2c(*t), (int)*peer, (int)*tag,
             MPI_Comm_f2c(*comm), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_recv_init_(void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *peer, MPI_Fint *tag,
    MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Recv_init(b, (int)*n, MPI_Type_f2c(*t), (int)*peer, (int)*tag,
             MPI_Comm_f2c(*comm), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

#if MPI_VERSION >= 4
void mpi_isendrecv_(void *sb, MPI_Fint *sn, MPI_Fint *st, MPI_Fint *dest, MPI_Fint *stag,
    void *rb, MPI_Fint *rn, MPI_Fint *rt, MPI_Fint *src, MPI_Fint *rtag, MPI_Fint *comm,
    MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Isendrecv(sb, (int)*sn, MPI_Type_f2c(*st), (int)*dest, (int)*stag, rb,
             (int)*rn, MPI_Type_f2c(*rt), (int)*src, (int)*rtag, MPI_Comm_f2c(*comm), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}
#endif

#if MPI_VERSION >= 4
void mpi_isendrecv_replace_(void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *dest, MPI_Fint *stag,
    MPI_Fint *src, MPI_Fint *rtag, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Isendrecv_replace(b, (int)*n, MPI_Type_f2c(*t), (int)*dest, (int)*stag,
             (int)*src, (int)*rtag, MPI_Comm_f2c(*comm), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}
#endif

void mpi_start_(MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c = MPI_Request_f2c(*req);
    F_BEGIN;
    int rc = MPI_Start(&req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_request_free_(MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c = MPI_Request_f2c(*req);
    F_BEGIN;
    int rc = MPI_Request_free(&req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_cancel_(MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c = MPI_Request_f2c(*req);
    F_BEGIN;
    int rc = MPI_Cancel(&req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_win_create_(void *base, MPI_Aint *size, MPI_Fint *du, MPI_Fint *info, MPI_Fint *comm,
    MPI_Fint *win, MPI_Fint *ierr) {
    MPI_Win win_c;
    F_BEGIN;
    int rc = MPI_Win_create(base, *size, (int)*du, MPI_Info_f2c(*info), MPI_Comm_f2c(*comm),
             &win_c);
    if (rc == MPI_SUCCESS) *win = MPI_Win_c2f(win_c);
    F_END(rc);
}

void mpi_win_allocate_(MPI_Aint *size, MPI_Fint *du, MPI_Fint *info, MPI_Fint *comm, void *base,
    MPI_Fint *win, MPI_Fint *ierr) {
    MPI_Win win_c;
    F_BEGIN;
    int rc = MPI_Win_allocate(*size, (int)*du, MPI_Info_f2c(*info), MPI_Comm_f2c(*comm), base,
             &win_c);
    if (rc == MPI_SUCCESS) *win = MPI_Win_c2f(win_c);
    F_END(rc);
}

void mpi_win_free_(MPI_Fint *win, MPI_Fint *ierr) {
    MPI_Win win_c = MPI_Win_f2c(*win);
    F_BEGIN;
    int rc = MPI_Win_free(&win_c);
    if (rc == MPI_SUCCESS) *win = MPI_Win_c2f(win_c);
    F_END(rc);
}

void mpi_put_(void *o, MPI_Fint *n, MPI_Fint *t, MPI_Fint *tgt, MPI_Aint *disp, MPI_Fint *tn,
    MPI_Fint *tt, MPI_Fint *win, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Put(o, (int)*n, MPI_Type_f2c(*t), (int)*tgt, *disp, (int)*tn,
             MPI_Type_f2c(*tt), MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_get_(void *o, MPI_Fint *n, MPI_Fint *t, MPI_Fint *tgt, MPI_Aint *disp, MPI_Fint *tn,
    MPI_Fint *tt, MPI_Fint *win, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Get(o, (int)*n, MPI_Type_f2c(*t), (int)*tgt, *disp, (int)*tn,
             MPI_Type_f2c(*tt), MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_accumulate_(void *o, MPI_Fint *n, MPI_Fint *t, MPI_Fint *tgt, MPI_Aint *disp,
    MPI_Fint *tn, MPI_Fint *tt, MPI_Fint *op, MPI_Fint *win, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Accumulate(o, (int)*n, MPI_Type_f2c(*t), (int)*tgt, *disp, (int)*tn,
             MPI_Type_f2c(*tt), MPI_Op_f2c(*op), MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_get_accumulate_(void *o, MPI_Fint *n, MPI_Fint *t, void *r, MPI_Fint *rn, MPI_Fint *rt,
    MPI_Fint *tgt, MPI_Aint *disp, MPI_Fint *tn, MPI_Fint *tt, MPI_Fint *op, MPI_Fint *win,
    MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Get_accumulate(o, (int)*n, MPI_Type_f2c(*t), r, (int)*rn, MPI_Type_f2c(*rt),
             (int)*tgt, *disp, (int)*tn, MPI_Type_f2c(*tt), MPI_Op_f2c(*op),
             MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_fetch_and_op_(void *o, void *r, MPI_Fint *t, MPI_Fint *tgt, MPI_Aint *disp,
    MPI_Fint *op, MPI_Fint *win, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Fetch_and_op(o, r, MPI_Type_f2c(*t), (int)*tgt, *disp, MPI_Op_f2c(*op),
             MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_compare_and_swap_(void *o, void *c, void *r, MPI_Fint *t, MPI_Fint *tgt,
    MPI_Aint *disp, MPI_Fint *win, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Compare_and_swap(o, c, r, MPI_Type_f2c(*t), (int)*tgt, *disp,
             MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_rput_(void *o, MPI_Fint *n, MPI_Fint *t, MPI_Fint *tgt, MPI_Aint *disp, MPI_Fint *tn,
    MPI_Fint *tt, MPI_Fint *win, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Rput(o, (int)*n, MPI_Type_f2c(*t), (int)*tgt, *disp, (int)*tn,
             MPI_Type_f2c(*tt), MPI_Win_f2c(*win), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_rget_(void *o, MPI_Fint *n, MPI_Fint *t, MPI_Fint *tgt, MPI_Aint *disp, MPI_Fint *tn,
    MPI_Fint *tt, MPI_Fint *win, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Rget(o, (int)*n, MPI_Type_f2c(*t), (int)*tgt, *disp, (int)*tn,
             MPI_Type_f2c(*tt), MPI_Win_f2c(*win), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_raccumulate_(void *o, MPI_Fint *n, MPI_Fint *t, MPI_Fint *tgt, MPI_Aint *disp,
    MPI_Fint *tn, MPI_Fint *tt, MPI_Fint *op, MPI_Fint *win, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Raccumulate(o, (int)*n, MPI_Type_f2c(*t), (int)*tgt, *disp, (int)*tn,
             MPI_Type_f2c(*tt), MPI_Op_f2c(*op), MPI_Win_f2c(*win), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_rget_accumulate_(void *o, MPI_Fint *n, MPI_Fint *t, void *r, MPI_Fint *rn,
    MPI_Fint *rt, MPI_Fint *tgt, MPI_Aint *disp, MPI_Fint *tn, MPI_Fint *tt, MPI_Fint *op,
    MPI_Fint *win, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Rget_accumulate(o, (int)*n, MPI_Type_f2c(*t), r, (int)*rn, MPI_Type_f2c(*rt),
             (int)*tgt, *disp, (int)*tn, MPI_Type_f2c(*tt), MPI_Op_f2c(*op), MPI_Win_f2c(*win),
             &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_win_fence_(MPI_Fint *a, MPI_Fint *win, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Win_fence((int)*a, MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_win_lock_(MPI_Fint *lt, MPI_Fint *tgt, MPI_Fint *a, MPI_Fint *win, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Win_lock((int)*lt, (int)*tgt, (int)*a, MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_win_unlock_(MPI_Fint *tgt, MPI_Fint *win, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Win_unlock((int)*tgt, MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_win_lock_all_(MPI_Fint *a, MPI_Fint *win, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Win_lock_all((int)*a, MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_win_unlock_all_(MPI_Fint *win, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Win_unlock_all(MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_win_flush_(MPI_Fint *tgt, MPI_Fint *win, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Win_flush((int)*tgt, MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_win_flush_all_(MPI_Fint *win, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Win_flush_all(MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_win_flush_local_(MPI_Fint *tgt, MPI_Fint *win, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Win_flush_local((int)*tgt, MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_win_flush_local_all_(MPI_Fint *win, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Win_flush_local_all(MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_win_sync_(MPI_Fint *win, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Win_sync(MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_win_post_(MPI_Fint *g, MPI_Fint *a, MPI_Fint *win, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Win_post(MPI_Group_f2c(*g), (int)*a, MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_win_start_(MPI_Fint *g, MPI_Fint *a, MPI_Fint *win, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Win_start(MPI_Group_f2c(*g), (int)*a, MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_win_complete_(MPI_Fint *win, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Win_complete(MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_win_wait_(MPI_Fint *win, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_Win_wait(MPI_Win_f2c(*win));
    F_END(rc);
}

void mpi_win_test_(MPI_Fint *win, MPI_Fint *flag, MPI_Fint *ierr) {
    int flag_c = 0;
    F_BEGIN;
    int rc = MPI_Win_test(MPI_Win_f2c(*win), &flag_c);
    *flag = flag_c ? 1 : 0;
    F_END(rc);
}

void mpi_comm_group_(MPI_Fint *comm, MPI_Fint *g, MPI_Fint *ierr) {
    MPI_Group g_c;
    F_BEGIN;
    int rc = MPI_Comm_group(MPI_Comm_f2c(*comm), &g_c);
    if (rc == MPI_SUCCESS) *g = MPI_Group_c2f(g_c);
    F_END(rc);
}

void mpi_group_incl_(MPI_Fint *g, MPI_Fint *n, MPI_Fint *ranks, MPI_Fint *out, MPI_Fint *ierr) {
    MPI_Group out_c;
    F_BEGIN;
    int rc = MPI_Group_incl(MPI_Group_f2c(*g), (int)*n, F_INTS(ranks), &out_c);
    if (rc == MPI_SUCCESS) *out = MPI_Group_c2f(out_c);
    F_END(rc);
}

void mpi_group_excl_(MPI_Fint *g, MPI_Fint *n, MPI_Fint *ranks, MPI_Fint *out, MPI_Fint *ierr) {
    MPI_Group out_c;
    F_BEGIN;
    int rc = MPI_Group_excl(MPI_Group_f2c(*g), (int)*n, F_INTS(ranks), &out_c);
    if (rc == MPI_SUCCESS) *out = MPI_Group_c2f(out_c);
    F_END(rc);
}

void mpi_group_free_(MPI_Fint *g, MPI_Fint *ierr) {
    MPI_Group g_c = MPI_Group_f2c(*g);
    F_BEGIN;
    int rc = MPI_Group_free(&g_c);
    if (rc == MPI_SUCCESS) *g = MPI_Group_c2f(g_c);
    F_END(rc);
}

void mpi_comm_idup_(MPI_Fint *comm, MPI_Fint *made, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Comm made_c;
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Comm_idup(MPI_Comm_f2c(*comm), &made_c, &req_c);
    if (rc == MPI_SUCCESS) *made = MPI_Comm_c2f(made_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_type_commit_(MPI_Fint *t, MPI_Fint *ierr) {
    MPI_Datatype t_c = MPI_Type_f2c(*t);
    F_BEGIN;
    int rc = MPI_Type_commit(&t_c);
    if (rc == MPI_SUCCESS) *t = MPI_Type_c2f(t_c);
    F_END(rc);
}

void mpi_type_free_(MPI_Fint *t, MPI_Fint *ierr) {
    MPI_Datatype t_c = MPI_Type_f2c(*t);
    F_BEGIN;
    int rc = MPI_Type_free(&t_c);
    if (rc == MPI_SUCCESS) *t = MPI_Type_c2f(t_c);
    F_END(rc);
}

void mpi_op_free_(MPI_Fint *op, MPI_Fint *ierr) {
    MPI_Op op_c = MPI_Op_f2c(*op);
    F_BEGIN;
    int rc = MPI_Op_free(&op_c);
    if (rc == MPI_SUCCESS) *op = MPI_Op_c2f(op_c);
    F_END(rc);
}

#if MPI_VERSION >= 4
void mpi_barrier_init_(MPI_Fint *comm, MPI_Fint *info, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Barrier_init(MPI_Comm_f2c(*comm), MPI_Info_f2c(*info), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}
#endif

#if MPI_VERSION >= 4
void mpi_bcast_init_(void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *root, MPI_Fint *comm,
    MPI_Fint *info, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Bcast_init(b, (int)*n, MPI_Type_f2c(*t), (int)*root, MPI_Comm_f2c(*comm),
             MPI_Info_f2c(*info), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}
#endif

#if MPI_VERSION >= 4
void mpi_reduce_init_(void *s, void *r, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op, MPI_Fint *root,
    MPI_Fint *comm, MPI_Fint *info, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Reduce_init(f_buf(s), r, (int)*n, MPI_Type_f2c(*t), MPI_Op_f2c(*op),
             (int)*root, MPI_Comm_f2c(*comm), MPI_Info_f2c(*info), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}
#endif

#if MPI_VERSION >= 4
void mpi_allreduce_init_(void *s, void *r, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op,
    MPI_Fint *comm, MPI_Fint *info, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Allreduce_init(f_buf(s), r, (int)*n, MPI_Type_f2c(*t), MPI_Op_f2c(*op),
             MPI_Comm_f2c(*comm), MPI_Info_f2c(*info), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}
#endif

#if MPI_VERSION >= 4
void mpi_scan_init_(void *s, void *r, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op, MPI_Fint *comm,
    MPI_Fint *info, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Scan_init(f_buf(s), r, (int)*n, MPI_Type_f2c(*t), MPI_Op_f2c(*op),
             MPI_Comm_f2c(*comm), MPI_Info_f2c(*info), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}
#endif

#if MPI_VERSION >= 4
void mpi_exscan_init_(void *s, void *r, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op, MPI_Fint *comm,
    MPI_Fint *info, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Exscan_init(f_buf(s), r, (int)*n, MPI_Type_f2c(*t), MPI_Op_f2c(*op),
             MPI_Comm_f2c(*comm), MPI_Info_f2c(*info), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}
#endif

#if MPI_VERSION >= 4
void mpi_reduce_scatter_block_init_(void *s, void *r, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op,
    MPI_Fint *comm, MPI_Fint *info, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Reduce_scatter_block_init(f_buf(s), r, (int)*n, MPI_Type_f2c(*t),
             MPI_Op_f2c(*op), MPI_Comm_f2c(*comm), MPI_Info_f2c(*info), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}
#endif

#if MPI_VERSION >= 4
void mpi_reduce_scatter_init_(void *s, void *r, MPI_Fint *rcs, MPI_Fint *t, MPI_Fint *op,
    MPI_Fint *comm, MPI_Fint *info, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Reduce_scatter_init(f_buf(s), r, F_INTS(rcs), MPI_Type_f2c(*t),
             MPI_Op_f2c(*op), MPI_Comm_f2c(*comm), MPI_Info_f2c(*info), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}
#endif

#if MPI_VERSION >= 4
void mpi_gather_init_(void *s, MPI_Fint *sc, MPI_Fint *st, void *r, MPI_Fint *rc_, MPI_Fint *rt,
    MPI_Fint *root, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Gather_init(f_buf(s), (int)*sc, MPI_Type_f2c(*st), r, (int)*rc_,
             MPI_Type_f2c(*rt), (int)*root, MPI_Comm_f2c(*comm), MPI_Info_f2c(*info), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}
#endif

#if MPI_VERSION >= 4
void mpi_scatter_init_(void *s, MPI_Fint *sc, MPI_Fint *st, void *r, MPI_Fint *rc_,
    MPI_Fint *rt, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *req,
    MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Scatter_init(s, (int)*sc, MPI_Type_f2c(*st), f_buf(r), (int)*rc_,
             MPI_Type_f2c(*rt), (int)*root, MPI_Comm_f2c(*comm), MPI_Info_f2c(*info), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}
#endif

#if MPI_VERSION >= 4
void mpi_allgather_init_(void *s, MPI_Fint *sc, MPI_Fint *st, void *r, MPI_Fint *rc_,
    MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Allgather_init(f_buf(s), (int)*sc, MPI_Type_f2c(*st), r, (int)*rc_,
             MPI_Type_f2c(*rt), MPI_Comm_f2c(*comm), MPI_Info_f2c(*info), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}
#endif

#if MPI_VERSION >= 4
void mpi_alltoall_init_(void *s, MPI_Fint *sc, MPI_Fint *st, void *r, MPI_Fint *rc_,
    MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Alltoall_init(f_buf(s), (int)*sc, MPI_Type_f2c(*st), r, (int)*rc_,
             MPI_Type_f2c(*rt), MPI_Comm_f2c(*comm), MPI_Info_f2c(*info), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}
#endif

#if MPI_VERSION >= 4
void mpi_gatherv_init_(void *s, MPI_Fint *sc, MPI_Fint *st, void *r, MPI_Fint *rcs,
    MPI_Fint *ds, MPI_Fint *rt, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *req,
    MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Gatherv_init(f_buf(s), (int)*sc, MPI_Type_f2c(*st), r, F_INTS(rcs), F_INTS(ds),
             MPI_Type_f2c(*rt), (int)*root, MPI_Comm_f2c(*comm), MPI_Info_f2c(*info), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}
#endif

#if MPI_VERSION >= 4
void mpi_scatterv_init_(void *s, MPI_Fint *scs, MPI_Fint *ds, MPI_Fint *st, void *r,
    MPI_Fint *rc_, MPI_Fint *rt, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *req,
    MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Scatterv_init(s, F_INTS(scs), F_INTS(ds), MPI_Type_f2c(*st), f_buf(r),
             (int)*rc_, MPI_Type_f2c(*rt), (int)*root, MPI_Comm_f2c(*comm), MPI_Info_f2c(*info),
             &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}
#endif

#if MPI_VERSION >= 4
void mpi_allgatherv_init_(void *s, MPI_Fint *sc, MPI_Fint *st, void *r, MPI_Fint *rcs,
    MPI_Fint *ds, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *req,
    MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Allgatherv_init(f_buf(s), (int)*sc, MPI_Type_f2c(*st), r, F_INTS(rcs),
             F_INTS(ds), MPI_Type_f2c(*rt), MPI_Comm_f2c(*comm), MPI_Info_f2c(*info), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}
#endif

#if MPI_VERSION >= 4
void mpi_alltoallv_init_(void *s, MPI_Fint *scs, MPI_Fint *sd, MPI_Fint *st, void *r,
    MPI_Fint *rcs, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *req,
    MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_Alltoallv_init(f_buf(s), F_INTS(scs), F_INTS(sd), MPI_Type_f2c(*st), r,
             F_INTS(rcs), F_INTS(rd), MPI_Type_f2c(*rt), MPI_Comm_f2c(*comm),
             MPI_Info_f2c(*info), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}
#endif

void mpi_file_open_(MPI_Fint *comm, char *name, MPI_Fint *amode, MPI_Fint *info, MPI_Fint *fh,
    MPI_Fint *ierr, f_len name_len) {
    char name_c[F_STRING];
    f_string(name, name_len, name_c);
    MPI_File fh_c;
    F_BEGIN;
    int rc = MPI_File_open(MPI_Comm_f2c(*comm), name_c, (int)*amode, MPI_Info_f2c(*info),
             &fh_c);
    if (rc == MPI_SUCCESS) *fh = MPI_File_c2f(fh_c);
    F_END(rc);
}

void mpi_file_close_(MPI_Fint *fh, MPI_Fint *ierr) {
    MPI_File fh_c = MPI_File_f2c(*fh);
    F_BEGIN;
    int rc = MPI_File_close(&fh_c);
    if (rc == MPI_SUCCESS) *fh = MPI_File_c2f(fh_c);
    F_END(rc);
}

void mpi_file_delete_(char *name, MPI_Fint *info, MPI_Fint *ierr, f_len name_len) {
    char name_c[F_STRING];
    f_string(name, name_len, name_c);
    F_BEGIN;
    int rc = MPI_File_delete(name_c, MPI_Info_f2c(*info));
    F_END(rc);
}

void mpi_file_set_view_(MPI_Fint *fh, MPI_Offset *disp, MPI_Fint *et, MPI_Fint *ft, char *rep,
    MPI_Fint *info, MPI_Fint *ierr, f_len rep_len) {
    char rep_c[F_STRING];
    f_string(rep, rep_len, rep_c);
    F_BEGIN;
    int rc = MPI_File_set_view(MPI_File_f2c(*fh), *disp, MPI_Type_f2c(*et), MPI_Type_f2c(*ft),
             rep_c, MPI_Info_f2c(*info));
    F_END(rc);
}

void mpi_file_get_size_(MPI_Fint *fh, MPI_Offset *size, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_File_get_size(MPI_File_f2c(*fh), size);
    F_END(rc);
}

void mpi_file_set_size_(MPI_Fint *fh, MPI_Offset *size, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_File_set_size(MPI_File_f2c(*fh), *size);
    F_END(rc);
}

void mpi_file_preallocate_(MPI_Fint *fh, MPI_Offset *size, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_File_preallocate(MPI_File_f2c(*fh), *size);
    F_END(rc);
}

void mpi_file_seek_(MPI_Fint *fh, MPI_Offset *off, MPI_Fint *whence, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_File_seek(MPI_File_f2c(*fh), *off, (int)*whence);
    F_END(rc);
}

void mpi_file_seek_shared_(MPI_Fint *fh, MPI_Offset *off, MPI_Fint *whence, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_File_seek_shared(MPI_File_f2c(*fh), *off, (int)*whence);
    F_END(rc);
}

void mpi_file_get_position_(MPI_Fint *fh, MPI_Offset *pos, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_File_get_position(MPI_File_f2c(*fh), pos);
    F_END(rc);
}

void mpi_file_get_position_shared_(MPI_Fint *fh, MPI_Offset *pos, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_File_get_position_shared(MPI_File_f2c(*fh), pos);
    F_END(rc);
}

void mpi_file_sync_(MPI_Fint *fh, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_File_sync(MPI_File_f2c(*fh));
    F_END(rc);
}

void mpi_file_read_(MPI_Fint *fh, void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *st,
    MPI_Fint *ierr) {
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_File_read(MPI_File_f2c(*fh), b, (int)*n, MPI_Type_f2c(*t), f_status(st,
             &st_c));
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_file_iread_(MPI_Fint *fh, void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *req,
    MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_File_iread(MPI_File_f2c(*fh), b, (int)*n, MPI_Type_f2c(*t), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_file_read_all_(MPI_Fint *fh, void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *st,
    MPI_Fint *ierr) {
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_File_read_all(MPI_File_f2c(*fh), b, (int)*n, MPI_Type_f2c(*t), f_status(st,
             &st_c));
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_file_iread_all_(MPI_Fint *fh, void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *req,
    MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_File_iread_all(MPI_File_f2c(*fh), b, (int)*n, MPI_Type_f2c(*t), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_file_read_all_begin_(MPI_Fint *fh, void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_File_read_all_begin(MPI_File_f2c(*fh), b, (int)*n, MPI_Type_f2c(*t));
    F_END(rc);
}

void mpi_file_read_all_end_(MPI_Fint *fh, void *b, MPI_Fint *st, MPI_Fint *ierr) {
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_File_read_all_end(MPI_File_f2c(*fh), b, f_status(st, &st_c));
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_file_read_shared_(MPI_Fint *fh, void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *st,
    MPI_Fint *ierr) {
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_File_read_shared(MPI_File_f2c(*fh), b, (int)*n, MPI_Type_f2c(*t), f_status(st,
             &st_c));
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_file_iread_shared_(MPI_Fint *fh, void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *req,
    MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_File_iread_shared(MPI_File_f2c(*fh), b, (int)*n, MPI_Type_f2c(*t), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_file_read_ordered_(MPI_Fint *fh, void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *st,
    MPI_Fint *ierr) {
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_File_read_ordered(MPI_File_f2c(*fh), b, (int)*n, MPI_Type_f2c(*t), f_status(st,
             &st_c));
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_file_read_ordered_begin_(MPI_Fint *fh, void *b, MPI_Fint *n, MPI_Fint *t,
    MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_File_read_ordered_begin(MPI_File_f2c(*fh), b, (int)*n, MPI_Type_f2c(*t));
    F_END(rc);
}

void mpi_file_read_ordered_end_(MPI_Fint *fh, void *b, MPI_Fint *st, MPI_Fint *ierr) {
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_File_read_ordered_end(MPI_File_f2c(*fh), b, f_status(st, &st_c));
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_file_read_at_(MPI_Fint *fh, MPI_Offset *off, void *b, MPI_Fint *n, MPI_Fint *t,
    MPI_Fint *st, MPI_Fint *ierr) {
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_File_read_at(MPI_File_f2c(*fh), *off, b, (int)*n, MPI_Type_f2c(*t),
             f_status(st, &st_c));
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_file_iread_at_(MPI_Fint *fh, MPI_Offset *off, void *b, MPI_Fint *n, MPI_Fint *t,
    MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_File_iread_at(MPI_File_f2c(*fh), *off, b, (int)*n, MPI_Type_f2c(*t), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_file_read_at_all_(MPI_Fint *fh, MPI_Offset *off, void *b, MPI_Fint *n, MPI_Fint *t,
    MPI_Fint *st, MPI_Fint *ierr) {
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_File_read_at_all(MPI_File_f2c(*fh), *off, b, (int)*n, MPI_Type_f2c(*t),
             f_status(st, &st_c));
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_file_iread_at_all_(MPI_Fint *fh, MPI_Offset *off, void *b, MPI_Fint *n, MPI_Fint *t,
    MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_File_iread_at_all(MPI_File_f2c(*fh), *off, b, (int)*n, MPI_Type_f2c(*t),
             &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_file_read_at_all_begin_(MPI_Fint *fh, MPI_Offset *off, void *b, MPI_Fint *n,
    MPI_Fint *t, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_File_read_at_all_begin(MPI_File_f2c(*fh), *off, b, (int)*n, MPI_Type_f2c(*t));
    F_END(rc);
}

void mpi_file_read_at_all_end_(MPI_Fint *fh, void *b, MPI_Fint *st, MPI_Fint *ierr) {
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_File_read_at_all_end(MPI_File_f2c(*fh), b, f_status(st, &st_c));
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_file_write_(MPI_Fint *fh, void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *st,
    MPI_Fint *ierr) {
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_File_write(MPI_File_f2c(*fh), b, (int)*n, MPI_Type_f2c(*t), f_status(st,
             &st_c));
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_file_iwrite_(MPI_Fint *fh, void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *req,
    MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_File_iwrite(MPI_File_f2c(*fh), b, (int)*n, MPI_Type_f2c(*t), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_file_write_all_(MPI_Fint *fh, void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *st,
    MPI_Fint *ierr) {
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_File_write_all(MPI_File_f2c(*fh), b, (int)*n, MPI_Type_f2c(*t), f_status(st,
             &st_c));
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_file_iwrite_all_(MPI_Fint *fh, void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *req,
    MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_File_iwrite_all(MPI_File_f2c(*fh), b, (int)*n, MPI_Type_f2c(*t), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_file_write_all_begin_(MPI_Fint *fh, void *b, MPI_Fint *n, MPI_Fint *t,
    MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_File_write_all_begin(MPI_File_f2c(*fh), b, (int)*n, MPI_Type_f2c(*t));
    F_END(rc);
}

void mpi_file_write_all_end_(MPI_Fint *fh, void *b, MPI_Fint *st, MPI_Fint *ierr) {
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_File_write_all_end(MPI_File_f2c(*fh), b, f_status(st, &st_c));
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_file_write_shared_(MPI_Fint *fh, void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *st,
    MPI_Fint *ierr) {
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_File_write_shared(MPI_File_f2c(*fh), b, (int)*n, MPI_Type_f2c(*t), f_status(st,
             &st_c));
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_file_iwrite_shared_(MPI_Fint *fh, void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *req,
    MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_File_iwrite_shared(MPI_File_f2c(*fh), b, (int)*n, MPI_Type_f2c(*t), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_file_write_ordered_(MPI_Fint *fh, void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *st,
    MPI_Fint *ierr) {
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_File_write_ordered(MPI_File_f2c(*fh), b, (int)*n, MPI_Type_f2c(*t),
             f_status(st, &st_c));
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_file_write_ordered_begin_(MPI_Fint *fh, void *b, MPI_Fint *n, MPI_Fint *t,
    MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_File_write_ordered_begin(MPI_File_f2c(*fh), b, (int)*n, MPI_Type_f2c(*t));
    F_END(rc);
}

void mpi_file_write_ordered_end_(MPI_Fint *fh, void *b, MPI_Fint *st, MPI_Fint *ierr) {
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_File_write_ordered_end(MPI_File_f2c(*fh), b, f_status(st, &st_c));
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_file_write_at_(MPI_Fint *fh, MPI_Offset *off, void *b, MPI_Fint *n, MPI_Fint *t,
    MPI_Fint *st, MPI_Fint *ierr) {
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_File_write_at(MPI_File_f2c(*fh), *off, b, (int)*n, MPI_Type_f2c(*t),
             f_status(st, &st_c));
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_file_iwrite_at_(MPI_Fint *fh, MPI_Offset *off, void *b, MPI_Fint *n, MPI_Fint *t,
    MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_File_iwrite_at(MPI_File_f2c(*fh), *off, b, (int)*n, MPI_Type_f2c(*t), &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_file_write_at_all_(MPI_Fint *fh, MPI_Offset *off, void *b, MPI_Fint *n, MPI_Fint *t,
    MPI_Fint *st, MPI_Fint *ierr) {
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_File_write_at_all(MPI_File_f2c(*fh), *off, b, (int)*n, MPI_Type_f2c(*t),
             f_status(st, &st_c));
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

void mpi_file_iwrite_at_all_(MPI_Fint *fh, MPI_Offset *off, void *b, MPI_Fint *n, MPI_Fint *t,
    MPI_Fint *req, MPI_Fint *ierr) {
    MPI_Request req_c;
    F_BEGIN;
    int rc = MPI_File_iwrite_at_all(MPI_File_f2c(*fh), *off, b, (int)*n, MPI_Type_f2c(*t),
             &req_c);
    if (rc == MPI_SUCCESS) *req = MPI_Request_c2f(req_c);
    F_END(rc);
}

void mpi_file_write_at_all_begin_(MPI_Fint *fh, MPI_Offset *off, void *b, MPI_Fint *n,
    MPI_Fint *t, MPI_Fint *ierr) {
    F_BEGIN;
    int rc = MPI_File_write_at_all_begin(MPI_File_f2c(*fh), *off, b, (int)*n, MPI_Type_f2c(*t));
    F_END(rc);
}

void mpi_file_write_at_all_end_(MPI_Fint *fh, void *b, MPI_Fint *st, MPI_Fint *ierr) {
    MPI_Status st_c;
    F_BEGIN;
    int rc = MPI_File_write_at_all_end(MPI_File_f2c(*fh), b, f_status(st, &st_c));
    f_status_out(st, &st_c, rc);
    F_END(rc);
}

/* ---- end of the generated Fortran bindings ---- */
#endif
