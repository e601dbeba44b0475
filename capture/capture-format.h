/* The pticapture trace format (capture/FORMAT.md): the constants shared by
 * the capture library (plain C, inside the user's MPI program) and the
 * reader (in pti).  One definition: both sides and the spec's tables come
 * from here. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define PTI_CAPTURE_MAGIC         "\x89PTICAP\n"
#define PTI_CAPTURE_MAGIC_LEN     8
#define PTI_CAPTURE_MAJOR         1
#define PTI_CAPTURE_MINOR         4
#define PTI_CAPTURE_BLOCK_FILL    (32 * 1024)          /* the writer's block size */
#define PTI_CAPTURE_BLOCK_MAX     (16 * 1024 * 1024)   /* the largest a reader accepts */
#define PTI_CAPTURE_STRING_MAX    65536
#define PTI_CAPTURE_REPEAT_MAX    64                   /* longest args that R may repeat */
#define PTI_CAPTURE_FILE_NAME_MAX 1024                 /* the name of MPI_File_open (1.2), open (1.3), cut there */

/* Non-call record codes (section 6). */
enum {
  PTI_REC_HEADER = 1,
  PTI_REC_NAME = 2,
  PTI_REC_END = 3,
  PTI_REC_COMM = 4,
  PTI_REC_ERROR = 5,
  PTI_REC_REPEAT = 6,
  /* 1.1: regions (region-hooks.h, pti/region.h) */
  PTI_REC_DEFINE = 7,
  PTI_REC_REGION = 8,
  PTI_REC_COUNT = 9,
  PTI_REC_CHECK = 10,
  PTI_REC_PARAM = 11,
  PTI_REC_FIRST_CALL = 16,
};

/* END's "how". */
enum {
  PTI_END_FINALIZE = 0,
  PTI_END_SIGNAL = 1,
  PTI_END_EXIT = 2,
  PTI_END_ABORT = 3,
};

enum { PTI_CPU_NONE = 0, PTI_CPU_EXACT = 1, PTI_CPU_SWITCH = 2 };

/* Special values of peer/root, tag, comm and request refs (section 4.2). */
enum {
  PTI_PEER_ANY = -1,
  PTI_PEER_NULL = -2,
  PTI_PEER_ROOT = -3,
  PTI_TAG_ANY = -1,
  PTI_COMM_NULL_ID = 0,
  PTI_COMM_WORLD_ID = 1,
  PTI_COMM_SELF_ID = 2,
  PTI_REQ_REF_NULL = 0,
  PTI_REQ_REF_UNTRACKED = 1,
  PTI_OP_USER_FIRST = 64,
};
#define PTI_COMM_WORLD_KEY 1u
#define PTI_COMM_SELF_KEY  2u

/* status flags */
enum {
  PTI_ST_SOURCE = 1,
  PTI_ST_TAG = 2,
  PTI_ST_BYTES = 4,
  PTI_ST_CANCELLED = 8,
  PTI_ST_EMPTY = 16,
};

typedef enum {
  PTI_L_GENERIC, PTI_L_NONE, PTI_L_INIT_THREAD, PTI_L_ABORT,
  PTI_L_SEND, PTI_L_RECV, PTI_L_POST_RECV, PTI_L_SENDRECV, PTI_L_PROBE, PTI_L_IPROBE,
  PTI_L_MRECV, PTI_L_MPOST,
  PTI_L_WAIT, PTI_L_WAITALL, PTI_L_WAITANY, PTI_L_WAITSOME, PTI_L_TEST, PTI_L_TESTALL,
  PTI_L_TESTANY, PTI_L_START, PTI_L_STARTALL, PTI_L_REQUEST,
  PTI_L_BARRIER, PTI_L_BCAST, PTI_L_REDUCE, PTI_L_ALLREDUCE, PTI_L_REDUCE_LOCAL,
  PTI_L_GATHER, PTI_L_ALLGATHER, PTI_L_GATHERV, PTI_L_SCATTERV, PTI_L_ALLGATHERV,
  PTI_L_ALLTOALLV, PTI_L_REDUCE_SCATTER, PTI_L_REDUCE_SCATTER_BLOCK,
  PTI_L_COMM_NEW, PTI_L_COMM_SPLIT, PTI_L_COMM_CREATE_GROUP, PTI_L_CART_CREATE,
  PTI_L_INTERCOMM_CREATE, PTI_L_INTERCOMM_MERGE, PTI_L_COMM, PTI_L_OP_CREATE, PTI_L_OP,
  PTI_L_FILE_OPEN, PTI_L_FILE, PTI_L_FILE_ACCESS,   /* 1.2 */
  PTI_L_POSIX_OPEN, PTI_L_POSIX_ACCESS,             /* 1.3 (and FILE for close) */
} PtiCaptureLayout;

/* POSIX_OPEN's flags (1.3): how the program opened the file. */
enum {
  PTI_OPEN_READ = 1,       /* O_RDONLY or O_RDWR; stdio "r", "+" */
  PTI_OPEN_WRITE = 2,      /* O_WRONLY or O_RDWR; stdio "w", "a", "+" */
  PTI_OPEN_CREATE = 4,     /* O_CREAT (creat, stdio "w", "a") */
  PTI_OPEN_TRUNC = 8,      /* O_TRUNC (creat, stdio "w") */
  PTI_OPEN_APPEND = 16,    /* O_APPEND (stdio "a") */
  PTI_OPEN_STDIO = 32,     /* by fopen: its accesses are fwrite and fread */
  PTI_OPEN_FLAGS_ALL = 63,
};

/* Call flags: what else a call does (section 5.1). */
enum {
  PTI_CF_REQ = 1,          /* creates a request */
  PTI_CF_PERSISTENT = 2,   /* ... a persistent one */
  PTI_CF_RECV = 4,         /* ... that receives (its completion has bytes) */
};

/* The calls recorded in detail: X (code, NAME, layout, flags) for MPI_NAME
 * (code 16: any other function, by name).  The table of FORMAT.md section 7. */
#define PTI_CAPTURE_CALLS(X) \
  X (16, generic, GENERIC, 0) \
  X (17, Send, SEND, 0) \
  X (18, Recv, RECV, 0) \
  X (19, Isend, SEND, PTI_CF_REQ) \
  X (20, Irecv, POST_RECV, PTI_CF_REQ | PTI_CF_RECV) \
  X (21, Wait, WAIT, 0) \
  X (22, Waitall, WAITALL, 0) \
  X (23, Waitany, WAITANY, 0) \
  X (24, Waitsome, WAITSOME, 0) \
  X (25, Test, TEST, 0) \
  X (26, Testall, TESTALL, 0) \
  X (27, Testany, TESTANY, 0) \
  X (28, Testsome, WAITSOME, 0) \
  X (29, Sendrecv, SENDRECV, 0) \
  X (30, Sendrecv_replace, SENDRECV, 0) \
  X (31, Probe, PROBE, 0) \
  X (32, Iprobe, IPROBE, 0) \
  X (33, Ssend, SEND, 0) \
  X (34, Bsend, SEND, 0) \
  X (35, Rsend, SEND, 0) \
  X (36, Issend, SEND, PTI_CF_REQ) \
  X (37, Ibsend, SEND, PTI_CF_REQ) \
  X (38, Irsend, SEND, PTI_CF_REQ) \
  X (39, Send_init, SEND, PTI_CF_REQ | PTI_CF_PERSISTENT) \
  X (40, Ssend_init, SEND, PTI_CF_REQ | PTI_CF_PERSISTENT) \
  X (41, Bsend_init, SEND, PTI_CF_REQ | PTI_CF_PERSISTENT) \
  X (42, Rsend_init, SEND, PTI_CF_REQ | PTI_CF_PERSISTENT) \
  X (43, Recv_init, POST_RECV, PTI_CF_REQ | PTI_CF_PERSISTENT | PTI_CF_RECV) \
  X (44, Start, START, 0) \
  X (45, Startall, STARTALL, 0) \
  X (46, Request_free, REQUEST, 0) \
  X (47, Cancel, REQUEST, 0) \
  X (48, Request_get_status, TEST, 0) \
  X (49, Mprobe, PROBE, 0) \
  X (50, Improbe, IPROBE, 0) \
  X (51, Mrecv, MRECV, 0) \
  X (52, Imrecv, MPOST, PTI_CF_REQ | PTI_CF_RECV) \
  X (53, Barrier, BARRIER, 0) \
  X (54, Bcast, BCAST, 0) \
  X (55, Reduce, REDUCE, 0) \
  X (56, Allreduce, ALLREDUCE, 0) \
  X (57, Gather, GATHER, 0) \
  X (58, Gatherv, GATHERV, 0) \
  X (59, Scatter, GATHER, 0) \
  X (60, Scatterv, SCATTERV, 0) \
  X (61, Allgather, ALLGATHER, 0) \
  X (62, Allgatherv, ALLGATHERV, 0) \
  X (63, Alltoall, ALLGATHER, 0) \
  X (64, Alltoallv, ALLTOALLV, 0) \
  X (65, Alltoallw, ALLTOALLV, 0) \
  X (66, Reduce_scatter, REDUCE_SCATTER, 0) \
  X (67, Reduce_scatter_block, REDUCE_SCATTER_BLOCK, 0) \
  X (68, Scan, ALLREDUCE, 0) \
  X (69, Exscan, ALLREDUCE, 0) \
  X (70, Reduce_local, REDUCE_LOCAL, 0) \
  X (71, Ibarrier, BARRIER, PTI_CF_REQ) \
  X (72, Ibcast, BCAST, PTI_CF_REQ) \
  X (73, Ireduce, REDUCE, PTI_CF_REQ) \
  X (74, Iallreduce, ALLREDUCE, PTI_CF_REQ) \
  X (75, Igather, GATHER, PTI_CF_REQ) \
  X (76, Igatherv, GATHERV, PTI_CF_REQ) \
  X (77, Iscatter, GATHER, PTI_CF_REQ) \
  X (78, Iscatterv, SCATTERV, PTI_CF_REQ) \
  X (79, Iallgather, ALLGATHER, PTI_CF_REQ) \
  X (80, Iallgatherv, ALLGATHERV, PTI_CF_REQ) \
  X (81, Ialltoall, ALLGATHER, PTI_CF_REQ) \
  X (82, Ialltoallv, ALLTOALLV, PTI_CF_REQ) \
  X (83, Ialltoallw, ALLTOALLV, PTI_CF_REQ) \
  X (84, Ireduce_scatter, REDUCE_SCATTER, PTI_CF_REQ) \
  X (85, Ireduce_scatter_block, REDUCE_SCATTER_BLOCK, PTI_CF_REQ) \
  X (86, Iscan, ALLREDUCE, PTI_CF_REQ) \
  X (87, Iexscan, ALLREDUCE, PTI_CF_REQ) \
  X (88, File_open, FILE_OPEN, 0) \
  X (89, File_close, FILE, 0) \
  X (90, File_write_at, FILE_ACCESS, 0) \
  X (91, File_read_at, FILE_ACCESS, 0) \
  X (92, File_write_at_all, FILE_ACCESS, 0) \
  X (93, File_read_at_all, FILE_ACCESS, 0) \
  X (94, File_write, FILE_ACCESS, 0) \
  X (95, File_read, FILE_ACCESS, 0) \
  X (96, Comm_dup, COMM_NEW, 0) \
  X (97, Comm_dup_with_info, COMM_NEW, 0) \
  X (98, Comm_idup, COMM_NEW, PTI_CF_REQ) \
  X (99, Comm_split, COMM_SPLIT, 0) \
  X (100, Comm_split_type, COMM_SPLIT, 0) \
  X (101, Comm_create, COMM_NEW, 0) \
  X (102, Comm_create_group, COMM_CREATE_GROUP, 0) \
  X (103, Cart_create, CART_CREATE, 0) \
  X (104, Cart_sub, COMM_NEW, 0) \
  X (105, Graph_create, COMM_NEW, 0) \
  X (106, Dist_graph_create, COMM_NEW, 0) \
  X (107, Dist_graph_create_adjacent, COMM_NEW, 0) \
  X (108, Intercomm_create, INTERCOMM_CREATE, 0) \
  X (109, Intercomm_merge, INTERCOMM_MERGE, 0) \
  X (110, Comm_free, COMM, 0) \
  X (111, Comm_disconnect, COMM, 0) \
  X (112, Op_create, OP_CREATE, 0) \
  X (113, Op_free, OP, 0) \
  X (120, Init, NONE, 0) \
  X (121, Init_thread, INIT_THREAD, 0) \
  X (122, Finalize, NONE, 0) \
  X (123, Abort, ABORT, 0) \
  X (124, File_write_all, FILE_ACCESS, 0) \
  X (125, File_read_all, FILE_ACCESS, 0)

/* The POSIX file calls (1.3), recorded for regular files only: X (code,
 * name, layout, flags) with the C library's name.  open stands for open,
 * open64, openat, creat and fopen; write and read for fwrite and fread
 * too; pwrite and pread for their 64 forms (FORMAT.md 6.9). */
#define PTI_CAPTURE_POSIX_CALLS(X) \
  X (114, open, POSIX_OPEN, 0) \
  X (115, close, FILE, 0) \
  X (116, write, POSIX_ACCESS, 0) \
  X (117, read, POSIX_ACCESS, 0) \
  X (118, pwrite, POSIX_ACCESS, 0) \
  X (119, pread, POSIX_ACCESS, 0)

#define PTI_CAPTURE_CODE_MAX 128   /* codes are below this */

/* Named codes: PTI_C_Send = 17 ... */
#define PTI_CAPTURE_ENUM(code, name, layout, flags) PTI_C_##name = code,
enum { PTI_CAPTURE_CALLS (PTI_CAPTURE_ENUM) };
#undef PTI_CAPTURE_ENUM
/* ... and PTI_C_posix_open = 114 ... */
#define PTI_CAPTURE_ENUM(code, name, layout, flags) PTI_C_posix_##name = code,
enum { PTI_CAPTURE_POSIX_CALLS (PTI_CAPTURE_ENUM) };
#undef PTI_CAPTURE_ENUM
/* Whether call code @code is a POSIX file call's (their codes are 114 to
 * 119, in a row). */
#define PTI_CAPTURE_IS_POSIX(code) \
  ((unsigned) (code) - PTI_C_posix_open <= (unsigned) (PTI_C_posix_pread - PTI_C_posix_open))

/* CRC-32C (Castagnoli), bytewise with a table: the reader's, and the
 * writer's where SSE4.2 is missing.  Static inline because the capture
 * library must not depend on anything. */
static inline uint32_t
pti_capture_crc32c_update (uint32_t crc, const uint8_t *p, size_t n, const uint32_t table[256])
{
  crc = ~crc;
  while (n--)
    crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return ~crc;
}

#if defined(__x86_64__)
/* The same with SSE4.2's crc32 instruction, 8 bytes at a time (about 20
 * times the bytewise rate): the writer's blocks, and the reader's, which
 * pticapture checks after every capture.  Call it only where
 * __builtin_cpu_supports ("sse4.2") says so. */
__attribute__ ((target ("sse4.2"), unused)) static uint32_t
pti_capture_crc32c_update_sse42 (uint32_t crc, const uint8_t *p, size_t n)
{
  uint64_t c = (uint32_t) ~crc;
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t w;
    __builtin_memcpy (&w, p, 8);
    c = __builtin_ia32_crc32di (c, w);
  }
  uint32_t c32 = (uint32_t) c;
  for (; n > 0; n--)
    c32 = __builtin_ia32_crc32qi (c32, *p++);
  return ~c32;
}
#endif

/* CRC-32C update with SSE4.2 when @hw (the caller asked the CPU once),
 * else bytewise with @table. */
static inline uint32_t
pti_capture_crc32c (uint32_t crc, const uint8_t *p, size_t n, const uint32_t table[256], int hw)
{
#if defined(__x86_64__)
  if (hw)
    return pti_capture_crc32c_update_sse42 (crc, p, n);
#else
  (void) hw;
#endif
  return pti_capture_crc32c_update (crc, p, n, table);
}

static inline void
pti_capture_crc32c_table (uint32_t table[256])
{
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++)
      c = (c & 1) ? 0x82F63B78u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
}

static inline uint64_t
pti_capture_zigzag (int64_t v)
{
  return ((uint64_t) v << 1) ^ (uint64_t) (v >> 63);
}

static inline int64_t
pti_capture_unzigzag (uint64_t v)
{
  return (int64_t) (v >> 1) ^ -(int64_t) (v & 1);
}
