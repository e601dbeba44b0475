/* Rank programs: a C workload written as one function per rank, run as a
 * coroutine that the evaluation resumes whenever it needs that rank's next
 * device uses (pti_context_set_rank_program), as SimGrid runs its actors.
 * The workload is then never held whole: each rank has a small stack and
 * the few operations it has appended ahead of the evaluation.
 *
 * A coroutine yields after each batch of device uses (in pti_wsl_appended,
 * so possibly in the middle of a collective's expansion: its own stack keeps
 * its place).  The symbol table is shared by all ranks, so a rank's values
 * (its neighbours bound with pti_context_set_param or pti_symbols_set, say)
 * are saved when it yields and restored when it resumes: each rank sees its
 * own, as it would if it ran alone.
 *
 * Coroutines are ucontext's (POSIX, in glibc), their stacks mmap'ed with a
 * guard page, so a rank that overflows its stack faults instead of writing
 * over another's; AddressSanitizer is told of every switch. */
#include "pti-config.h"
#include "wsl-private.h"

#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define FIBER_START(save, bottom, size) __sanitizer_start_switch_fiber (save, bottom, size)
#define FIBER_FINISH(save, bottom, size) __sanitizer_finish_switch_fiber (save, bottom, size)
#else
#define FIBER_START(save, bottom, size) ((void) 0)
#define FIBER_FINISH(save, bottom, size) ((void) 0)
#endif

/* Device uses a rank appends before it yields. */
#define BATCH 48
#define DEFAULT_STACK (256 * 1024)

typedef struct Programs Programs;

typedef struct {
  Programs *owner;
  guint rank;
  ucontext_t context;
  char *stack;              /* mmap'ed: a guard page, then the stack */
  gsize stack_size;
  double *saved;            /* the symbol values it had when it yielded */
  guint n_saved;
  gboolean started, finished;
} Rank;

struct Programs {
  PtiContext *ctx;
  PtiRankFunc func;
  gpointer data;
  GDestroyNotify destroy;
  gsize stack_size;
  Rank *ranks;
  guint n;
  Rank *running;            /* the coroutine running now, or NULL */
  ucontext_t caller;        /* where a yield returns to */
  guint64 budget;           /* yield once the running rank has appended this many */
  GError *error;            /* what the running rank's function failed with */
  void *fake_stack;         /* AddressSanitizer's bookkeeping across switches */
  const void *caller_bottom;
  gsize caller_size;
};

static void
save_symbols (Rank *rk, PtiSymbols *symbols)
{
  guint n = pti_symbols_count (symbols);
  if (rk->n_saved < n) {
    rk->saved = g_renew (double, rk->saved, n);
    rk->n_saved = n;
  }
  memcpy (rk->saved, pti_symbols_values (symbols), n * sizeof (double));
}

static void
restore_symbols (const Rank *rk, PtiSymbols *symbols)
{
  guint n = MIN (rk->n_saved, pti_symbols_count (symbols));
  for (guint i = 0; i < n; i++)
    pti_symbols_set (symbols, i, rk->saved[i]);
}

static void
release_stack (Rank *rk)
{
  if (rk->stack != NULL) {
    munmap (rk->stack, rk->stack_size);
    rk->stack = NULL;
  }
}

/* The coroutine's body.  makecontext passes int arguments: the pointer in
 * two halves. */
static void
trampoline (unsigned int hi, unsigned int lo)
{
  Rank *rk = (Rank *) (((guintptr) hi << 32) | (guintptr) lo);
  Programs *pg = rk->owner;
  FIBER_FINISH (NULL, &pg->caller_bottom, &pg->caller_size);
  GError *local = NULL;
  if (!pg->func (pg->ctx, rk->rank, pg->data, &local)) {
    if (local == NULL)
      g_set_error (&local, PTI_ERROR, PTI_ERROR_FAILED,
                   "rank %u: the rank program failed without saying why", rk->rank);
    pg->error = local;
  }
  rk->finished = TRUE;
  /* Back to the evaluation for good: the stack is freed from there. */
  FIBER_START (NULL, pg->caller_bottom, pg->caller_size);
  setcontext (&pg->caller);
}

static gboolean
start (Programs *pg, Rank *rk, GError **error)
{
  long page = sysconf (_SC_PAGESIZE);
  gsize size = (pg->stack_size + page - 1) / page * page + page;
  void *mem = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                    -1, 0);
  if (mem == MAP_FAILED) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED,
                 "rank %u: cannot map a %zu-byte stack for its program", rk->rank, size);
    return FALSE;
  }
  mprotect (mem, page, PROT_NONE);   /* the guard page: stacks grow down */
  rk->stack = mem;
  rk->stack_size = size;
  getcontext (&rk->context);
  rk->context.uc_stack.ss_sp = (char *) mem + page;
  rk->context.uc_stack.ss_size = size - page;
  rk->context.uc_link = NULL;
  guintptr p = (guintptr) rk;
  makecontext (&rk->context, (void (*) (void)) trampoline, 2, (unsigned int) (p >> 32),
               (unsigned int) (p & 0xffffffffu));
  rk->started = TRUE;
  return TRUE;
}

/* The evaluation asks for @rank's next device uses: resume its coroutine
 * until it has appended a batch or returned. */
static gboolean
pull (PtiContext *ctx, guint rank, gpointer data, gboolean *done, GError **error)
{
  Programs *pg = data;
  Rank *rk = &pg->ranks[rank];
  if (rk->finished) {
    *done = TRUE;
    return TRUE;
  }
  if (!rk->started && !start (pg, rk, error))
    return FALSE;
  PtiSymbols *symbols = pti_context_get_symbols (ctx);
  if (rk->saved != NULL)
    restore_symbols (rk, symbols);
  pg->running = rk;
  pg->budget = pti_engine_rank_appended (pti_session_engine (pti_wsl_session (ctx)), rank) + BATCH;
  FIBER_START (&pg->fake_stack, rk->context.uc_stack.ss_sp, rk->context.uc_stack.ss_size);
  swapcontext (&pg->caller, &rk->context);
  FIBER_FINISH (pg->fake_stack, NULL, NULL);
  pg->running = NULL;
  if (rk->finished) {
    release_stack (rk);
    g_clear_pointer (&rk->saved, g_free);
    *done = TRUE;
    if (pg->error != NULL) {
      g_propagate_error (error, g_steal_pointer (&pg->error));
      return FALSE;
    }
    return TRUE;
  }
  save_symbols (rk, symbols);
  return TRUE;
}

void
pti_wsl_rank_yield (PtiContext *ctx)
{
  Programs *pg = ctx->programs;
  Rank *rk = pg->running;
  if (pti_engine_rank_appended (pti_session_engine (pti_wsl_session (ctx)), rk->rank) < pg->budget)
    return;
  FIBER_START (&pg->fake_stack, pg->caller_bottom, pg->caller_size);
  swapcontext (&rk->context, &pg->caller);
  FIBER_FINISH (pg->fake_stack, &pg->caller_bottom, &pg->caller_size);
}

static void
programs_free (gpointer data)
{
  Programs *pg = data;
  for (guint r = 0; r < pg->n; r++) {
    release_stack (&pg->ranks[r]);
    g_free (pg->ranks[r].saved);
  }
  g_free (pg->ranks);
  g_clear_error (&pg->error);
  if (pg->destroy != NULL)
    pg->destroy (pg->data);
  pg->ctx->programs = NULL;
  g_free (pg);
}

gboolean
pti_context_set_rank_program (PtiContext *ctx, PtiRankFunc func, gpointer data,
                              GDestroyNotify destroy, GError **error)
{
  g_return_val_if_fail (ctx != NULL && func != NULL, FALSE);
  guint n = pti_context_get_processes (ctx);
  Programs *pg = g_new0 (Programs, 1);
  *pg = (Programs) { .ctx = ctx, .func = func, .data = data, .destroy = destroy,
                     .stack_size = DEFAULT_STACK, .n = n };
  const char *env = g_getenv ("PTI_RANK_STACK");
  if (env != NULL) {
    guint64 kib = g_ascii_strtoull (env, NULL, 10);
    if (kib >= 16 && kib <= 1 << 20)
      pg->stack_size = kib * 1024;
  }
  pg->ranks = g_new0 (Rank, MAX (n, 1));
  for (guint r = 0; r < n; r++)
    pg->ranks[r] = (Rank) { .owner = pg, .rank = r };
  if (!pti_wsl_set_source (ctx, pull, NULL, pg, programs_free, error)) {
    pg->destroy = NULL;   /* not ours to free if refused */
    g_free (pg->ranks);
    g_free (pg);
    return FALSE;
  }
  ctx->programs = pg;
  return TRUE;
}
