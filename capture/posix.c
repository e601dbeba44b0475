/* POSIX file calls (FORMAT.md 1.3): the C library's open, close, read,
 * write, pread and pwrite (with creat, openat, their 64 and fortified
 * forms) and stdio's fopen, fclose, fwrite and fread, interposed from the
 * preloaded library and found in the C library with dlsym (RTLD_NEXT).
 *
 * Recorded: regular files only (fstat after the open), not under /dev,
 * /proc or /sys, not the capture's own directory, opened and used by the
 * program between MPI_Init and MPI_Finalize on the thread that called
 * MPI_Init (any thread under MPI_THREAD_MULTIPLE, whose recording is
 * serialised), and never inside an MPI call: the depth counter keeps out
 * what ROMIO or OMPIO do with the file of an MPI_File_* call, and the
 * sockets, pipes and shared memory the MPI library uses are not regular
 * files or are opened inside MPI_Init.  Why stdio separately: glibc's
 * fopen and fwrite reach the kernel through internal aliases, never
 * through the exported open and write a preloaded library can replace.
 *
 * Hot path (a read or write of any descriptor): one load from a table
 * indexed by the descriptor says whether it is a tracked file; nothing is
 * allocated per call. */

/* The C names of the functions replaced here, not the LFS redirections
 * (meson builds with _FILE_OFFSET_BITS=64; off_t is 64 bits on x86-64
 * anyway, so open and open64 are the same function), and no fortified
 * inline definitions of open or read. */
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE

#include "capture-private.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Tracked descriptors: the file id (1, 2, ... in this rank's order of
 * opens; 0 untracked) of each descriptor below this; a file opened as a
 * higher descriptor is not recorded, and the library says so once. */
#define PTI_PX_FDS 65536
static uint32_t pti_px_fd[PTI_PX_FDS];
static uint32_t pti_px_files;   /* opens recorded */
/* This thread records POSIX calls: the one that called MPI_Init (a forked
 * child's copy is cleared: its calls are not the rank's). */
static __thread int pti_px_main __attribute__ ((tls_model ("initial-exec")));
static char pti_px_capture_dir[PATH_MAX + 1];
static size_t pti_px_capture_dir_len;

/* Declared by glibc's headers only under _FORTIFY_SOURCE, which programs
 * built with it call instead of open, read, pread and fread. */
int __open_2 (const char *path, int flags);
int __open64_2 (const char *path, int flags);
int __openat_2 (int dirfd, const char *path, int flags);
int __openat64_2 (int dirfd, const char *path, int flags);
ssize_t __read_chk (int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk (int fd, void *buf, size_t n, off_t offset, size_t buflen);
ssize_t __pread64_chk (int fd, void *buf, size_t n, off_t offset, size_t buflen);
size_t __fread_chk (void *buf, size_t buflen, size_t size, size_t n, FILE *f);

/* The C library's function behind a wrapper, looked up at its first use:
 * a library loaded before this one may call it before our constructor. */
#define PTI_PX_REAL_DECL(name) \
  static __typeof__ (&name) pti_px_real_##name; \
  static inline __typeof__ (&name) pti_px_real_get_##name (void) \
  { \
    if (PTI_CAP_UNLIKELY (pti_px_real_##name == NULL)) \
      pti_px_real_##name = (__typeof__ (&name)) pti_cap_resolve_libc (#name); \
    return pti_px_real_##name; \
  }
#define PTI_PX_REAL(name) (pti_px_real_get_##name ())

PTI_PX_REAL_DECL (open)
PTI_PX_REAL_DECL (__open_2)
PTI_PX_REAL_DECL (__open64_2)
PTI_PX_REAL_DECL (openat)
PTI_PX_REAL_DECL (__openat_2)
PTI_PX_REAL_DECL (__openat64_2)
PTI_PX_REAL_DECL (creat)
PTI_PX_REAL_DECL (close)
PTI_PX_REAL_DECL (read)
PTI_PX_REAL_DECL (__read_chk)
PTI_PX_REAL_DECL (write)
PTI_PX_REAL_DECL (pread)
PTI_PX_REAL_DECL (__pread_chk)
PTI_PX_REAL_DECL (__pread64_chk)
PTI_PX_REAL_DECL (pwrite)
PTI_PX_REAL_DECL (dup2)
PTI_PX_REAL_DECL (dup3)
PTI_PX_REAL_DECL (fopen)
PTI_PX_REAL_DECL (fclose)
PTI_PX_REAL_DECL (freopen)
PTI_PX_REAL_DECL (freopen64)
PTI_PX_REAL_DECL (fwrite)
PTI_PX_REAL_DECL (fread)
PTI_PX_REAL_DECL (__fread_chk)

static void
pti_px_forked (void)
{
  pti_px_main = 0;
}

void
pti_cap_posix_start (const char *capture_dir)
{
  pti_px_main = 1;
  if (realpath (capture_dir, pti_px_capture_dir) != NULL) {
    pti_px_capture_dir_len = strlen (pti_px_capture_dir);
    if (pti_px_capture_dir_len < PATH_MAX)
      pti_px_capture_dir[pti_px_capture_dir_len++] = '/';
  }
  pthread_atfork (NULL, NULL, pti_px_forked);
}

static inline bool
pti_px_tracked (int fd)
{
  return (unsigned) fd < PTI_PX_FDS && pti_px_fd[fd] != 0;
}

/* A descriptor that stops meaning its file whatever this thread records:
 * closed, or replaced by dup2. */
static inline void
pti_px_forget (int fd)
{
  if ((unsigned) fd < PTI_PX_FDS)
    pti_px_fd[fd] = 0;
}

/* Begin a call record if this call is to be recorded (section 5.4: only
 * between MPI_Init and MPI_Finalize; pti_cap_begin: not inside an MPI
 * call). */
static inline bool
pti_px_begin (PtiCall *c, int code)
{
  if (pti_cap.phase != PTI_CAP_ON || !(pti_px_main || pti_cap.thread_multiple))
    return false;
  return pti_cap_begin (c, code);
}

/* ---- opens ---- */

static uint64_t
pti_px_open_flags (int flags)
{
  int acc = flags & O_ACCMODE;
  return (acc == O_RDONLY || acc == O_RDWR ? PTI_OPEN_READ : 0)
         | (acc == O_WRONLY || acc == O_RDWR ? PTI_OPEN_WRITE : 0)
         | (flags & O_CREAT ? PTI_OPEN_CREATE : 0) | (flags & O_TRUNC ? PTI_OPEN_TRUNC : 0)
         | (flags & O_APPEND ? PTI_OPEN_APPEND : 0);
}

/* fopen's mode ("r", "w+", "ab", "rbe" ...) as the open flags it means. */
static uint64_t
pti_px_stdio_flags (const char *mode)
{
  uint64_t f = PTI_OPEN_STDIO;
  if (mode == NULL)
    return f;
  if (mode[0] == 'r')
    f |= PTI_OPEN_READ;
  else if (mode[0] == 'w')
    f |= PTI_OPEN_WRITE | PTI_OPEN_CREATE | PTI_OPEN_TRUNC;
  else if (mode[0] == 'a')
    f |= PTI_OPEN_WRITE | PTI_OPEN_CREATE | PTI_OPEN_APPEND;
  if (mode[0] != '\0' && strchr (mode + 1, '+') != NULL)
    f |= PTI_OPEN_READ | PTI_OPEN_WRITE;
  return f;
}

static bool
pti_px_excluded (const char *path)
{
  static const char *const prefixes[] = { "/dev/", "/proc/", "/sys/" };
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
    if (strncmp (path, prefixes[i], strlen (prefixes[i])) == 0)
      return true;
  return pti_px_capture_dir_len > 0
         && strncmp (path, pti_px_capture_dir, pti_px_capture_dir_len) == 0;
}

/* After the C library's open returned @fd (-1: failed with @err) for
 * @path (relative to @dirfd): record it if the call is recorded (@c) and
 * opened a regular file the program owns; such a failure is recorded
 * too, unless its path names a place left out. */
static void
pti_px_opened (PtiCall *c, int dirfd, const char *path, uint64_t flags, int fd, int err)
{
  pti_px_forget (fd);   /* whatever the number meant before is gone */
  if (c == NULL)
    return;
  /* Where the file really is (a relative name, links): what the filter
   * looks at, and the name recorded for openat on a directory. */
  char real[PATH_MAX + 1] = "";
  struct stat st;
  if (fd >= 0) {
    char link[32];
    snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink (link, real, PATH_MAX);
    real[n > 0 ? n : 0] = '\0';
    if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || pti_px_excluded (real)) {
      pti_cap_cancel (c);
      return;
    }
    if (fd >= PTI_PX_FDS) {
      static bool said;
      if (!said)
        pti_cap_say ("a file opened as a descriptor above 65535 is not recorded: ", real, "");
      said = true;
      pti_cap_cancel (c);
      return;
    }
  } else if (path == NULL || pti_px_excluded (path)) {
    pti_cap_cancel (c);
    return;
  }
  const char *name = path != NULL ? path : "";
  if (fd >= 0 && name[0] != '/' && dirfd != AT_FDCWD && real[0] != '\0')
    name = real;
  size_t n = strnlen (name, PTI_CAPTURE_FILE_NAME_MAX);
  PtiRec r;
  pti_cap_record (c, &r, fd >= 0 ? 0 : (err != 0 ? err : EIO), 48 + n);
  uint32_t id = 0;
  if (fd >= 0) {
    id = ++pti_px_files;
    pti_px_fd[fd] = id;
  }
  pti_put_u (&r, id);
  pti_put_u (&r, flags);
  pti_put_bytes_string (&r, name, n);
  pti_cap_args_end (&r);
  pti_cap_commit (c, &r);
}

/* The wrappers of the open family: the real call between the record's
 * begin and end, errno as the C library left it. */
#define PTI_PX_OPEN_BODY(dirfd, path, pflags, call) \
  PtiCall c; \
  bool rec = pti_px_begin (&c, PTI_C_posix_open); \
  int fd = call; \
  int err = errno; \
  pti_px_opened (rec ? &c : NULL, dirfd, path, pflags, fd, err); \
  errno = err; \
  return fd;

static mode_t
pti_px_mode (int flags, va_list ap)
{
  return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg (ap, mode_t) : 0;
}

PTI_CAP_EXPORT int
open (const char *path, int flags, ...)
{
  va_list ap;
  va_start (ap, flags);
  mode_t mode = pti_px_mode (flags, ap);
  va_end (ap);
  PTI_PX_OPEN_BODY (AT_FDCWD, path, pti_px_open_flags (flags), PTI_PX_REAL (open) (path, flags, mode))
}

PTI_CAP_EXPORT int
openat (int dirfd, const char *path, int flags, ...)
{
  va_list ap;
  va_start (ap, flags);
  mode_t mode = pti_px_mode (flags, ap);
  va_end (ap);
  PTI_PX_OPEN_BODY (dirfd, path, pti_px_open_flags (flags),
                    PTI_PX_REAL (openat) (dirfd, path, flags, mode))
}

PTI_CAP_EXPORT int
creat (const char *path, mode_t mode)
{
  PTI_PX_OPEN_BODY (AT_FDCWD, path, pti_px_open_flags (O_WRONLY | O_CREAT | O_TRUNC),
                    PTI_PX_REAL (creat) (path, mode))
}

PTI_CAP_EXPORT int
__open_2 (const char *path, int flags)
{
  PTI_PX_OPEN_BODY (AT_FDCWD, path, pti_px_open_flags (flags), PTI_PX_REAL (__open_2) (path, flags))
}

PTI_CAP_EXPORT int
__open64_2 (const char *path, int flags)
{
  PTI_PX_OPEN_BODY (AT_FDCWD, path, pti_px_open_flags (flags),
                    PTI_PX_REAL (__open64_2) (path, flags))
}

PTI_CAP_EXPORT int
__openat_2 (int dirfd, const char *path, int flags)
{
  PTI_PX_OPEN_BODY (dirfd, path, pti_px_open_flags (flags),
                    PTI_PX_REAL (__openat_2) (dirfd, path, flags))
}

PTI_CAP_EXPORT int
__openat64_2 (int dirfd, const char *path, int flags)
{
  PTI_PX_OPEN_BODY (dirfd, path, pti_px_open_flags (flags),
                    PTI_PX_REAL (__openat64_2) (dirfd, path, flags))
}

PTI_CAP_EXPORT FILE *
fopen (const char *path, const char *mode)
{
  PtiCall c;
  bool rec = pti_px_begin (&c, PTI_C_posix_open);
  FILE *f = PTI_PX_REAL (fopen) (path, mode);
  int err = errno;
  pti_px_opened (rec ? &c : NULL, AT_FDCWD, path, pti_px_stdio_flags (mode),
                 f != NULL ? fileno (f) : -1, err);
  errno = err;
  return f;
}

/* glibc's 64 forms are the same functions as the plain ones on x86-64 (the
 * same addresses in libc.so.6): one wrapper, two names. */
PTI_CAP_EXPORT int open64 (const char *path, int flags, ...) __attribute__ ((alias ("open")));
PTI_CAP_EXPORT int openat64 (int dirfd, const char *path, int flags, ...)
  __attribute__ ((alias ("openat")));
PTI_CAP_EXPORT int creat64 (const char *path, mode_t mode) __attribute__ ((alias ("creat")));
PTI_CAP_EXPORT FILE *fopen64 (const char *path, const char *mode) __attribute__ ((alias ("fopen")));

/* ---- closes ---- */

/* The close of tracked @fd (file @id) returned @rc: Linux releases the
 * descriptor even when close fails, so it is forgotten either way. */
static void
pti_px_closed (PtiCall *c, int fd, uint32_t id, int rc, int err)
{
  pti_px_forget (fd);
  PtiRec r;
  pti_cap_record (c, &r, rc == 0 ? 0 : (err != 0 ? err : EIO), 16);
  pti_put_u (&r, id);
  pti_cap_args_end (&r);
  pti_cap_commit (c, &r);
}

/* close and fclose of descriptor fd: a tracked one is forgotten whether
 * or not the call is recorded. */
#define PTI_PX_CLOSE_BODY(call) \
  PtiCall c; \
  if (PTI_CAP_LIKELY (!pti_px_tracked (fd))) \
    return call; \
  uint32_t id = pti_px_fd[fd]; \
  if (!pti_px_begin (&c, PTI_C_posix_close)) { \
    pti_px_forget (fd); \
    return call; \
  } \
  int rc = call; \
  int err = errno; \
  pti_px_closed (&c, fd, id, rc, err); \
  errno = err; \
  return rc;

PTI_CAP_EXPORT int
close (int fd)
{
  PTI_PX_CLOSE_BODY (PTI_PX_REAL (close) (fd))
}

/* fileno without touching errno (it sets EBADF for a stream without a
 * descriptor: fmemopen, open_memstream). */
static inline int
pti_px_fileno (FILE *f)
{
  int saved = errno;
  int fd = f != NULL ? fileno (f) : -1;
  errno = saved;
  return fd;
}

PTI_CAP_EXPORT int
fclose (FILE *f)
{
  int fd = pti_px_fileno (f);
  PTI_PX_CLOSE_BODY (PTI_PX_REAL (fclose) (f))
}

/* freopen closes the stream's file inside the C library: the stream's
 * new file is not recorded (FORMAT.md 6.9), nor taken for the old one. */
PTI_CAP_EXPORT FILE *
freopen (const char *path, const char *mode, FILE *f)
{
  pti_px_forget (pti_px_fileno (f));
  return PTI_PX_REAL (freopen) (path, mode, f);
}

PTI_CAP_EXPORT FILE *
freopen64 (const char *path, const char *mode, FILE *f)
{
  pti_px_forget (pti_px_fileno (f));
  return PTI_PX_REAL (freopen64) (path, mode, f);
}

/* dup2 and dup3 onto a tracked descriptor close its file silently: the
 * table forgets it (the file's accesses through the new one are not its). */
PTI_CAP_EXPORT int
dup2 (int fd, int fd2)
{
  int rc = PTI_PX_REAL (dup2) (fd, fd2);
  if (rc >= 0 && fd2 != fd)
    pti_px_forget (fd2);
  return rc;
}

PTI_CAP_EXPORT int
dup3 (int fd, int fd2, int flags)
{
  int rc = PTI_PX_REAL (dup3) (fd, fd2, flags);
  if (rc >= 0)
    pti_px_forget (fd2);
  return rc;
}

/* ---- accesses ---- */

/* The record of an access to tracked @fd: @offset where it started,
 * @count bytes asked for, @got what the call returned (-1: failed with
 * @err; then no result, FORMAT.md 6.5). */
static void
pti_px_access (PtiCall *c, int fd, uint64_t offset, uint64_t count, int64_t got, int err)
{
  PtiRec r;
  pti_cap_record (c, &r, got >= 0 ? 0 : (err != 0 ? err : EIO), 48);
  pti_put_u (&r, pti_px_fd[fd]);
  pti_put_u (&r, offset);
  pti_put_u (&r, count);
  pti_cap_args_end (&r);
  if (got >= 0)
    pti_put_u (&r, (uint64_t) got);
  pti_cap_commit (c, &r);
}

/* Where a read or write through the descriptor's position started: the
 * position after it, less what it moved.  Asking the kernel after the call
 * (one lseek) rather than keeping positions here is right for O_APPEND
 * (the write went to the end, wherever the position was), for descriptors
 * shared by dup or fork, and for lseek calls inside the C library (fseek)
 * that a preloaded library never sees. */
static inline uint64_t
pti_px_start (int fd, int64_t got)
{
  off_t at = lseek (fd, 0, SEEK_CUR);
  if (at < 0)
    return 0;
  return got > 0 && (uint64_t) got <= (uint64_t) at ? (uint64_t) at - (uint64_t) got
                                                     : (uint64_t) at;
}

/* An access of n bytes to descriptor fd by @call, which started at
 * @start (an expression of what the call returned, got). */
#define PTI_PX_ACCESS_BODY(code, call, start) \
  PtiCall c; \
  if (PTI_CAP_LIKELY (!pti_px_tracked (fd)) || !pti_px_begin (&c, code)) \
    return call; \
  ssize_t got = call; \
  int err = errno; \
  pti_px_access (&c, fd, start, n, got, err); \
  errno = err; \
  return got;
/* read and write through the position; pread and pwrite at an offset */
#define PTI_PX_POS_BODY(code, call) PTI_PX_ACCESS_BODY (code, call, pti_px_start (fd, got))
#define PTI_PX_AT_BODY(code, call) \
  PTI_PX_ACCESS_BODY (code, call, offset >= 0 ? (uint64_t) offset : 0)

PTI_CAP_EXPORT ssize_t
write (int fd, const void *buf, size_t n)
{
  PTI_PX_POS_BODY (PTI_C_posix_write, PTI_PX_REAL (write) (fd, buf, n))
}

PTI_CAP_EXPORT ssize_t
read (int fd, void *buf, size_t n)
{
  PTI_PX_POS_BODY (PTI_C_posix_read, PTI_PX_REAL (read) (fd, buf, n))
}

PTI_CAP_EXPORT ssize_t
__read_chk (int fd, void *buf, size_t n, size_t buflen)
{
  PTI_PX_POS_BODY (PTI_C_posix_read, PTI_PX_REAL (__read_chk) (fd, buf, n, buflen))
}

PTI_CAP_EXPORT ssize_t
pwrite (int fd, const void *buf, size_t n, off_t offset)
{
  PTI_PX_AT_BODY (PTI_C_posix_pwrite, PTI_PX_REAL (pwrite) (fd, buf, n, offset))
}

PTI_CAP_EXPORT ssize_t
pread (int fd, void *buf, size_t n, off_t offset)
{
  PTI_PX_AT_BODY (PTI_C_posix_pread, PTI_PX_REAL (pread) (fd, buf, n, offset))
}

PTI_CAP_EXPORT ssize_t
__pread_chk (int fd, void *buf, size_t n, off_t offset, size_t buflen)
{
  PTI_PX_AT_BODY (PTI_C_posix_pread, PTI_PX_REAL (__pread_chk) (fd, buf, n, offset, buflen))
}

PTI_CAP_EXPORT ssize_t
__pread64_chk (int fd, void *buf, size_t n, off_t offset, size_t buflen)
{
  PTI_PX_AT_BODY (PTI_C_posix_pread, PTI_PX_REAL (__pread64_chk) (fd, buf, n, offset, buflen))
}

PTI_CAP_EXPORT ssize_t pwrite64 (int fd, const void *buf, size_t n, off_t offset)
  __attribute__ ((alias ("pwrite")));
PTI_CAP_EXPORT ssize_t pread64 (int fd, void *buf, size_t n, off_t offset)
  __attribute__ ((alias ("pread")));

/* stdio: an fwrite or fread is the write or read of the bytes it took or
 * gave, at the stream's position (ftello: what it will have written there
 * when its buffer is flushed), as Darshan's STDIO module records them; the
 * kernel's writes of the buffer are glibc's internal calls.  A short count
 * with the stream's error set is a failed call; a short fread at the end
 * of the file is not. */
static uint64_t
pti_px_stream_start (FILE *f, uint64_t got)
{
  off_t at = ftello (f);
  return at >= 0 && got <= (uint64_t) at ? (uint64_t) at - got : 0;
}

#define PTI_PX_STDIO_BODY(code, call) \
  int fd = pti_px_fileno (f); \
  PtiCall c; \
  if (PTI_CAP_LIKELY (!pti_px_tracked (fd)) || !pti_px_begin (&c, code)) \
    return call; \
  size_t items = call; \
  int err = errno; \
  uint64_t got = (uint64_t) items * size; \
  bool failed = items < n && ferror (f); \
  pti_px_access (&c, fd, pti_px_stream_start (f, got), (uint64_t) n * size, \
                 failed ? -1 : (int64_t) got, err); \
  errno = err; \
  return items;

PTI_CAP_EXPORT size_t
fwrite (const void *buf, size_t size, size_t n, FILE *f)
{
  PTI_PX_STDIO_BODY (PTI_C_posix_write, PTI_PX_REAL (fwrite) (buf, size, n, f))
}

PTI_CAP_EXPORT size_t
fread (void *buf, size_t size, size_t n, FILE *f)
{
  PTI_PX_STDIO_BODY (PTI_C_posix_read, PTI_PX_REAL (fread) (buf, size, n, f))
}

PTI_CAP_EXPORT size_t
__fread_chk (void *buf, size_t buflen, size_t size, size_t n, FILE *f)
{
  PTI_PX_STDIO_BODY (PTI_C_posix_read, PTI_PX_REAL (__fread_chk) (buf, buflen, size, n, f))
}
