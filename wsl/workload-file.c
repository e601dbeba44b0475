/* Workload files (schemas/workload.xsd): read, validate, compile, run.
 *
 * Loading parses the file once, validates it, declares its parameters,
 * evaluates the derived values, sets the processes, compiles each <rud> once
 * and compiles the <program> into a tree of statements whose expressions are
 * compiled against the context's symbol table.  The XML document is freed
 * before the program runs: running it for each rank walks the statement tree
 * only, evaluating compiled expressions and calling the WSL.
 *
 * Errors name the file and line, the element, and for expressions the
 * attribute and its text:
 *   sweep3d.xml:42: <send to="east">: unbound parameter 'east' in expression 'east' (rank 3)
 */
#include "pti-config.h"
#include "wsl-private.h"

#include "xml.h"

#include <math.h>
#include <string.h>

/* The largest trip count of one <for>: more is surely a mistake. */
#define MAX_TRIPS 1e9
/* Whole numbers above this are not exact in a double. */
#define MAX_EXACT 9007199254740992.0

typedef enum {
  ST_LET, ST_FOR, ST_IF, ST_USE, ST_SEND, ST_RECV, ST_BARRIER, ST_BCAST, ST_ALLREDUCE,
  ST_ISEND, ST_IRECV, ST_WAIT, ST_WAITALL, ST_WAITANY, ST_REPEAT, ST_EVALUATE,
  ST_REDUCE, ST_GATHER, ST_SCATTER, ST_ALLGATHER, ST_ALLTOALL, ST_ALLTOALLV,
} StmtKind;

typedef struct {
  const char *attr;             /* static: the attribute it came from */
  PtiExpr *expr;
} Arg;

typedef struct Stmt Stmt;

typedef struct {
  Stmt  *items;
  guint  n;
} Block;

struct Stmt {
  StmtKind kind;
  const char *element;          /* static: "send", "let", ... */
  long line;
  guint slot;                   /* ST_LET, ST_FOR: the variable; ST_ISEND, ST_IRECV:
                                 * the request variable if has_slot */
  gboolean has_slot;
  gboolean any_source;          /* receives: from="any" */
  gboolean any_tag;             /* receives: tag="any" */
  Arg arg[3];                   /* by kind: see compile_stmt */
  PtiRud *rud;                  /* ST_USE (a reference) */
  PtiComm *comm;                /* messages and collectives: comm="...", NULL for the world */
  Block body;                   /* ST_FOR, ST_REPEAT; ST_IF when true */
  Block orelse;                 /* ST_IF when false */
};

typedef struct {
  PtiContext *ctx;
  PtiSymbols *symbols;
  const char *file;             /* as given, for messages */
  GHashTable *ruds;             /* name -> PtiRud (owned) */
  GHashTable *constants;        /* parameter and derived names (owned) */
  GArray     *var_slots;        /* slots of program variables, unique */
  guint slot_rank;
  guint rank;                   /* while running */
  GArray *outstanding;          /* requests of the running rank no wait has named */
  GHashTable *comms;            /* <split> name -> PtiComm (owned by the context) */
  GArray *comm_slots;           /* CommSlots of the splits, in order */
  GArray *sizes;                /* guint64 scratch for <alltoallv> */
} Loader;

/* A <split>'s communicators and the names that give a rank its place there. */
typedef struct {
  PtiComm *comm;
  guint slot_rank;              /* NAME_rank */
  guint slot_size;              /* NAME_size */
} CommSlots;

/* Binds every split's NAME_rank and NAME_size for world rank @r. */
static void
bind_comms (Loader *ld, guint r)
{
  for (guint i = 0; i < ld->comm_slots->len; i++)
    {
      const CommSlots *c = &g_array_index (ld->comm_slots, CommSlots, i);
      pti_symbols_set (ld->symbols, c->slot_rank, pti_comm_rank (c->comm, r));
      pti_symbols_set (ld->symbols, c->slot_size, pti_comm_size (c->comm, r));
    }
}

/* ---- errors ----------------------------------------------------------- */

/* Prefixes an error from elsewhere with `FILE:LINE: <element>: `. */
static void
prefix_location (GError **error, const Loader *ld, long line, const char *element)
{
  if (error == NULL || *error == NULL)
    return;
  /* Errors that already say where they come from (pti_node_error) keep theirs. */
  if (g_str_has_prefix ((*error)->message, ld->file)
      && (*error)->message[strlen (ld->file)] == ':')
    return;
  g_prefix_error (error, "%s:%ld: <%s>: ", ld->file, line, element);
}

/* Prefixes an expression error with the file, line, element and attribute. */
static void
prefix_expr (GError **error, const Loader *ld, long line, const char *element, const Arg *a)
{
  if (error == NULL || *error == NULL)
    return;
  g_prefix_error (error, "%s:%ld: <%s %s=\"%s\">: ", ld->file, line, element, a->attr,
                  pti_expr_text (a->expr));
}

G_GNUC_PRINTF (5, 6) static gboolean
stmt_error (GError **error, const Loader *ld, const Stmt *st, const Arg *a, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (a != NULL)
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s:%ld: <%s %s=\"%s\">: %s (rank %u)",
                 ld->file, st->line, st->element, a->attr, pti_expr_text (a->expr), msg,
                 ld->rank);
  else
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s:%ld: <%s>: %s (rank %u)",
                 ld->file, st->line, st->element, msg, ld->rank);
  return FALSE;
}

/* ---- statements ------------------------------------------------------- */

static void
block_clear (Block *b)
{
  for (guint i = 0; i < b->n; i++)
    {
      Stmt *st = &b->items[i];
      for (guint j = 0; j < G_N_ELEMENTS (st->arg); j++)
        pti_expr_free (st->arg[j].expr);
      pti_rud_unref (st->rud);
      block_clear (&st->body);
      block_clear (&st->orelse);
    }
  g_free (b->items);
  b->items = NULL;
  b->n = 0;
}

/* Compiles attribute @attr of @node into @a.  A missing optional attribute
 * leaves @a->expr NULL; a missing required one cannot pass the schema, but
 * is reported anyway. */
static gboolean
compile_attr (Loader *ld, const xmlNode *node, const char *attr, gboolean required, Arg *a,
              GError **error)
{
  a->attr = attr;
  a->expr = NULL;
  g_autofree char *text = pti_xml_attr (node, attr);
  if (text == NULL)
    {
      if (required)
        return pti_node_error (error, node, "the %s attribute is required", attr);
      return TRUE;
    }
  a->expr = pti_expr_compile (text, ld->symbols, error);
  if (a->expr == NULL)
    {
      g_prefix_error (error, "%s:%ld: <%s %s=\"%s\">: ", ld->file, xmlGetLineNo (node),
                      (const char *) node->name, attr, text);
      return FALSE;
    }
  return TRUE;
}

/* A variable the program assigns: not a parameter, not rank or nprocs. */
static gboolean
variable_slot (Loader *ld, const xmlNode *node, const char *attr, guint *slot, GError **error)
{
  g_autofree char *name = pti_xml_attr (node, attr);
  if (name == NULL)
    return pti_node_error (error, node, "the %s attribute is required", attr);
  if (strcmp (name, "rank") == 0 || strcmp (name, "nprocs") == 0)
    return pti_node_error (error, node, "'%s' is set by pti and cannot be assigned", name);
  if (g_hash_table_contains (ld->constants, name))
    return pti_node_error (error, node,
                           "'%s' is a parameter or derived value of the workload and cannot be "
                           "assigned; use another name for the variable", name);
  *slot = pti_symbols_intern (ld->symbols, name);
  for (guint i = 0; i < ld->var_slots->len; i++)
    if (g_array_index (ld->var_slots, guint, i) == *slot)
      return TRUE;
  g_array_append_val (ld->var_slots, *slot);
  return TRUE;
}

static gboolean compile_block (Loader *ld, xmlNode *first, Block *out, GError **error);

static gboolean
compile_stmt (Loader *ld, xmlNode *node, Stmt *st, GError **error)
{
  const char *name = (const char *) node->name;
  st->line = xmlGetLineNo (node);

  if (strcmp (name, "let") == 0 || strcmp (name, "set") == 0)
    {
      st->kind = ST_LET;
      st->element = strcmp (name, "let") == 0 ? "let" : "set";
      return variable_slot (ld, node, "name", &st->slot, error)
             && compile_attr (ld, node, "value", TRUE, &st->arg[0], error);
    }
  if (strcmp (name, "for") == 0)
    {
      st->kind = ST_FOR;
      st->element = "for";
      return variable_slot (ld, node, "var", &st->slot, error)
             && compile_attr (ld, node, "from", TRUE, &st->arg[0], error)
             && compile_attr (ld, node, "to", TRUE, &st->arg[1], error)
             && compile_attr (ld, node, "step", FALSE, &st->arg[2], error)
             && compile_block (ld, pti_xml_first_element (node), &st->body, error);
    }
  if (strcmp (name, "if") == 0)
    {
      st->kind = ST_IF;
      st->element = "if";
      if (!compile_attr (ld, node, "test", TRUE, &st->arg[0], error))
        return FALSE;
      xmlNode *first = pti_xml_first_element (node);
      if (first != NULL && strcmp ((const char *) first->name, "then") == 0)
        {
          xmlNode *other = pti_xml_next_element (first);
          if (!compile_block (ld, pti_xml_first_element (first), &st->body, error))
            return FALSE;
          if (other != NULL && strcmp ((const char *) other->name, "else") == 0)
            return compile_block (ld, pti_xml_first_element (other), &st->orelse, error);
          if (other != NULL)
            return pti_node_error (error, other, "only <else> may follow <then>");
          return TRUE;
        }
      return compile_block (ld, first, &st->body, error);
    }
  if (strcmp (name, "use") == 0)
    {
      st->kind = ST_USE;
      st->element = "use";
      g_autofree char *rud = pti_xml_attr (node, "rud");
      PtiRud *r = rud ? g_hash_table_lookup (ld->ruds, rud) : NULL;
      if (r == NULL)
        {
          GList *names = g_list_sort (g_hash_table_get_keys (ld->ruds), (GCompareFunc) g_strcmp0);
          g_autoptr (GString) known = g_string_new (NULL);
          for (GList *l = names; l != NULL; l = l->next)
            g_string_append_printf (known, "%s%s", known->len ? ", " : "", (const char *) l->data);
          g_list_free (names);
          return pti_node_error (error, node, "unknown rud '%s' (defined: %s)",
                                 rud ? rud : "", known->len ? known->str : "none");
        }
      st->rud = pti_rud_ref (r);
      return TRUE;
    }
  if (strcmp (name, "send") == 0 || strcmp (name, "recv") == 0
      || strcmp (name, "isend") == 0 || strcmp (name, "irecv") == 0)
    {
      gboolean nonblocking = name[0] == 'i';
      gboolean send = name[nonblocking] == 's';
      st->kind = nonblocking ? (send ? ST_ISEND : ST_IRECV) : (send ? ST_SEND : ST_RECV);
      st->element = nonblocking ? (send ? "isend" : "irecv") : (send ? "send" : "recv");
      if (!send)
        {
          /* "any" is a wildcard, not a name: MPI_ANY_SOURCE, MPI_ANY_TAG */
          g_autofree char *from = pti_xml_attr (node, "from");
          g_autofree char *tag = pti_xml_attr (node, "tag");
          st->any_source = g_strcmp0 (from, "any") == 0;
          st->any_tag = g_strcmp0 (tag, "any") == 0;
        }
      if (nonblocking && xmlHasProp (node, (const xmlChar *) "request"))
        {
          st->has_slot = TRUE;
          if (!variable_slot (ld, node, "request", &st->slot, error))
            return FALSE;
        }
      return (st->any_source || compile_attr (ld, node, send ? "to" : "from", TRUE, &st->arg[0], error))
             && compile_attr (ld, node, "bytes", TRUE, &st->arg[1], error)
             && (st->any_tag || compile_attr (ld, node, "tag", FALSE, &st->arg[2], error));
    }
  if (strcmp (name, "repeat") == 0)
    {
      st->kind = ST_REPEAT;
      st->element = "repeat";
      return compile_attr (ld, node, "count", TRUE, &st->arg[0], error)
             && compile_block (ld, pti_xml_first_element (node), &st->body, error);
    }
  if (strcmp (name, "evaluate") == 0)
    {
      st->kind = ST_EVALUATE;
      st->element = "evaluate";
      return TRUE;
    }
  if (strcmp (name, "wait") == 0)
    {
      st->kind = ST_WAIT;
      st->element = "wait";
      return compile_attr (ld, node, "request", TRUE, &st->arg[0], error);
    }
  if (strcmp (name, "waitall") == 0 || strcmp (name, "waitany") == 0)
    {
      st->kind = name[4] == 'a' && name[5] == 'l' ? ST_WAITALL : ST_WAITANY;
      st->element = st->kind == ST_WAITALL ? "waitall" : "waitany";
      return TRUE;
    }
  if (strcmp (name, "barrier") == 0)
    {
      st->kind = ST_BARRIER;
      st->element = "barrier";
      return TRUE;
    }
  if (strcmp (name, "bcast") == 0)
    {
      st->kind = ST_BCAST;
      st->element = "bcast";
      return compile_attr (ld, node, "root", TRUE, &st->arg[0], error)
             && compile_attr (ld, node, "bytes", TRUE, &st->arg[1], error);
    }
  if (strcmp (name, "allreduce") == 0)
    {
      st->kind = ST_ALLREDUCE;
      st->element = "allreduce";
      return compile_attr (ld, node, "bytes", TRUE, &st->arg[0], error);
    }
  if (strcmp (name, "reduce") == 0 || strcmp (name, "gather") == 0
      || strcmp (name, "scatter") == 0)
    {
      st->kind = name[0] == 'r' ? ST_REDUCE : name[0] == 'g' ? ST_GATHER : ST_SCATTER;
      st->element = name[0] == 'r' ? "reduce" : name[0] == 'g' ? "gather" : "scatter";
      return compile_attr (ld, node, "root", TRUE, &st->arg[0], error)
             && compile_attr (ld, node, "bytes", TRUE, &st->arg[1], error);
    }
  if (strcmp (name, "allgather") == 0 || strcmp (name, "alltoall") == 0)
    {
      st->kind = name[3] == 'g' ? ST_ALLGATHER : ST_ALLTOALL;
      st->element = name[3] == 'g' ? "allgather" : "alltoall";
      return compile_attr (ld, node, "bytes", TRUE, &st->arg[0], error);
    }
  if (strcmp (name, "alltoallv") == 0)
    {
      st->kind = ST_ALLTOALLV;
      st->element = "alltoallv";
      return variable_slot (ld, node, "var", &st->slot, error)
             && compile_attr (ld, node, "send", TRUE, &st->arg[0], error)
             && compile_attr (ld, node, "recv", TRUE, &st->arg[1], error);
    }
  return pti_node_error (error, node, "unknown statement");
}

/* comm="NAME": a <split> defined before the program, or "world". */
static gboolean
compile_comm (Loader *ld, xmlNode *node, Stmt *st, GError **error)
{
  g_autofree char *name = pti_xml_attr (node, "comm");
  st->comm = NULL;
  if (name == NULL || strcmp (name, "world") == 0)
    return TRUE;
  st->comm = g_hash_table_lookup (ld->comms, name);
  if (st->comm != NULL)
    return TRUE;
  g_autoptr (GString) known = g_string_new ("world");
  for (guint i = 0; i < ld->comm_slots->len; i++)
    g_string_append_printf (known, ", %s",
                            pti_comm_get_name (g_array_index (ld->comm_slots, CommSlots, i).comm));
  return pti_node_error (error, node, "unknown communicator '%s' (defined by <split>: %s)", name,
                         known->str);
}

static gboolean
compile_block (Loader *ld, xmlNode *first, Block *out, GError **error)
{
  guint n = 0;
  for (xmlNode *c = first; c != NULL; c = pti_xml_next_element (c))
    n++;
  out->items = g_new0 (Stmt, n);
  out->n = 0;
  for (xmlNode *c = first; c != NULL; c = pti_xml_next_element (c))
    {
      /* count it first, so block_clear frees a half-compiled statement */
      Stmt *st = &out->items[out->n++];
      if (!compile_stmt (ld, c, st, error) || !compile_comm (ld, c, st, error))
        return FALSE;
    }
  return TRUE;
}

/* ---- running ---------------------------------------------------------- */

/* The first slot @expr reads that is unbound, or G_MAXUINT. */
static guint
unbound_slot (const Loader *ld, const PtiExpr *expr)
{
  guint n = 0;
  const guint *slots = pti_expr_slots (expr, &n);
  for (guint i = 0; i < n; i++)
    if (isnan (pti_symbols_get (ld->symbols, slots[i])))
      return slots[i];
  return G_MAXUINT;
}

/* Evaluates @a; NaN (an unbound name) and infinities are errors. */
static inline gboolean
eval_arg (Loader *ld, const Stmt *st, const Arg *a, double *out, GError **error)
{
  double v = pti_expr_eval (a->expr, ld->symbols);
  *out = v;
  if (G_LIKELY (isfinite (v)))
    {
      *out = v;
      return TRUE;
    }
  g_autoptr (GError) e = NULL;
  if (pti_expr_check (a->expr, ld->symbols, &v, &e))
    {
      *out = v;
      return TRUE;
    }
  stmt_error (error, ld, st, a, "%s", e->message);
  pti_wsl_hint_unbound (ld->ctx, unbound_slot (ld, a->expr), TRUE, error);
  return FALSE;
}

/* Evaluates @a to a whole number in [@lo, @hi]. */
static inline gboolean
eval_whole (Loader *ld, const Stmt *st, const Arg *a, double lo, double hi, const char *what,
            double *out, GError **error)
{
  if (!eval_arg (ld, st, a, out, error))
    return FALSE;
  if (G_UNLIKELY (*out != floor (*out) || *out < lo || *out > hi))
    return stmt_error (error, ld, st, a, "%s must be a whole number from %.17g to %.17g, not %.17g",
                       what, lo, hi, *out);
  return TRUE;
}

static inline gboolean
eval_rank (Loader *ld, const Stmt *st, const Arg *a, const char *what, guint *out, GError **error)
{
  double v = 0;
  if (!eval_arg (ld, st, a, &v, error))
    return FALSE;
  guint n = pti_context_get_processes (ld->ctx);
  /* Out-of-range whole numbers go to the WSL, which says so in its words. */
  if (G_UNLIKELY (v != floor (v) || v < 0 || v > G_MAXUINT))
    return stmt_error (error, ld, st, a, "%s %.17g is not a rank (%u processes: ranks 0 to %u)",
                       what, v, n, n - 1);
  *out = (guint) v;
  return TRUE;
}

static inline gboolean
eval_bytes (Loader *ld, const Stmt *st, const Arg *a, guint64 *out, GError **error)
{
  double v = 0;
  if (!eval_whole (ld, st, a, 0, MAX_EXACT, "a message length", &v, error))
    return FALSE;
  *out = (guint64) v;
  return TRUE;
}

static inline gboolean
eval_tag (Loader *ld, const Stmt *st, const Arg *a, gint *out, GError **error)
{
  if (st->any_tag)
    {
      *out = PTI_ANY_TAG;
      return TRUE;
    }
  if (a->expr == NULL)
    {
      *out = 0;
      return TRUE;
    }
  double v = 0;
  if (!eval_whole (ld, st, a, 0, G_MAXINT, "a tag", &v, error))
    return FALSE;
  *out = (gint) v;
  return TRUE;
}

/* Evaluates a <for>'s bounds: FALSE on error, else its trip count (0 or more). */
static gboolean
for_bounds (Loader *ld, const Stmt *st, double *from, double *step, gint64 *trips, GError **error)
{
  double to = 0;
  *from = 0;
  *step = 1;
  if (!eval_whole (ld, st, &st->arg[0], -MAX_EXACT, MAX_EXACT, "a loop bound", from, error)
      || !eval_whole (ld, st, &st->arg[1], -MAX_EXACT, MAX_EXACT, "a loop bound", &to, error))
    return FALSE;
  if (st->arg[2].expr != NULL)
    {
      if (!eval_whole (ld, st, &st->arg[2], -MAX_EXACT, MAX_EXACT, "a loop step", step, error))
        return FALSE;
      if (*step == 0)
        return stmt_error (error, ld, st, &st->arg[2], "the loop step must not be 0");
    }
  double n = floor ((to - *from) / *step) + 1;
  if (n > MAX_TRIPS)
    return stmt_error (error, ld, st, NULL,
                       "a loop from %.17g to %.17g step %.17g would run %.17g times "
                       "(at most %.0f allowed)", *from, to, *step, n, MAX_TRIPS);
  *trips = n > 0 ? (gint64) n : 0;
  return TRUE;
}

/* A collective statement.  *@args is FALSE if an argument could not be
 * evaluated (the error then names the attribute already). */
static gboolean
run_collective (Loader *ld, const Stmt *st, gboolean *args, GError **error)
{
  PtiContext *ctx = ld->ctx;
  guint rank = ld->rank, root = 0;
  guint64 bytes = 0;
  gboolean rooted = st->kind == ST_BCAST || st->kind == ST_REDUCE || st->kind == ST_GATHER
                    || st->kind == ST_SCATTER;
  if (rooted)
    *args = eval_rank (ld, st, &st->arg[0], "root", &root, error)
            && eval_bytes (ld, st, &st->arg[1], &bytes, error);
  else if (st->kind != ST_BARRIER && st->kind != ST_ALLTOALLV)
    *args = eval_bytes (ld, st, &st->arg[0], &bytes, error);
  if (!*args)
    return FALSE;
  const guint64 *sendv = NULL, *recvv = NULL;
  if (st->kind == ST_ALLTOALLV)
    {
      /* var = 0 .. size - 1 of this rank's communicator (none: the WSL says so) */
      guint n = pti_comm_size (st->comm ? st->comm : pti_comm_world (ctx), rank);
      g_array_set_size (ld->sizes, 2 * (gsize) n);
      guint64 *v = (guint64 *) ld->sizes->data;
      for (guint j = 0; j < n && *args; j++)
        {
          pti_symbols_set (ld->symbols, st->slot, j);
          *args = eval_bytes (ld, st, &st->arg[0], &v[j], error)
                  && eval_bytes (ld, st, &st->arg[1], &v[n + j], error);
        }
      if (!*args)
        return FALSE;
      sendv = v;
      recvv = v + n;
    }
  pti_coll_set_site (ctx, ld->file, (guint) st->line);
  switch (st->kind)
    {
    case ST_BARRIER: return pti_mpi_barrier_comm (ctx, st->comm, rank, error);
    case ST_BCAST: return pti_mpi_bcast_comm (ctx, st->comm, rank, root, bytes, error);
    case ST_REDUCE: return pti_mpi_reduce_comm (ctx, st->comm, rank, root, bytes, error);
    case ST_GATHER: return pti_mpi_gather_comm (ctx, st->comm, rank, root, bytes, error);
    case ST_SCATTER: return pti_mpi_scatter_comm (ctx, st->comm, rank, root, bytes, error);
    case ST_ALLREDUCE: return pti_mpi_allreduce_comm (ctx, st->comm, rank, bytes, error);
    case ST_ALLGATHER: return pti_mpi_allgather_comm (ctx, st->comm, rank, bytes, error);
    case ST_ALLTOALL: return pti_mpi_alltoall_comm (ctx, st->comm, rank, bytes, error);
    default: return pti_mpi_alltoallv_comm (ctx, st->comm, rank, sendv, recvv, error);
    }
}

static gboolean
run_stmt (Loader *ld, const Stmt *st, GError **error)
{
  PtiContext *ctx = ld->ctx;
  guint rank = ld->rank;
  double v = 0;
  guint unbound = G_MAXUINT;
  gboolean ok;

  switch (st->kind)
    {
    case ST_LET:
      if (!eval_arg (ld, st, &st->arg[0], &v, error))
        return FALSE;
      pti_symbols_set (ld->symbols, st->slot, v);
      return TRUE;

    case ST_USE:
      unbound = G_MAXUINT;
      ok = pti_wsl_use (ctx, rank, st->rud, &unbound, error);
      break;

    case ST_SEND:
    case ST_RECV:
    case ST_ISEND:
    case ST_IRECV:
      {
        gboolean send = st->kind == ST_SEND || st->kind == ST_ISEND;
        guint peer = PTI_ANY_SOURCE;
        guint64 bytes = 0;
        gint tag = 0;
        if ((!st->any_source
             && !eval_rank (ld, st, &st->arg[0], send ? "destination" : "source", &peer, error))
            || !eval_bytes (ld, st, &st->arg[1], &bytes, error)
            || !eval_tag (ld, st, &st->arg[2], &tag, error))
          return FALSE;
        PtiRequest req = 0;
        switch (st->kind)
          {
          case ST_SEND: ok = pti_mpi_send_comm (ctx, st->comm, rank, peer, bytes, tag, error); break;
          case ST_RECV: ok = pti_mpi_recv_comm (ctx, st->comm, rank, peer, bytes, tag, error); break;
          case ST_ISEND:
            ok = pti_mpi_isend_comm (ctx, st->comm, rank, peer, bytes, tag, &req, error);
            break;
          default:
            ok = pti_mpi_irecv_comm (ctx, st->comm, rank, peer, bytes, tag, &req, error);
            break;
          }
        if (ok && (st->kind == ST_ISEND || st->kind == ST_IRECV))
          {
            g_array_append_val (ld->outstanding, req);
            if (st->has_slot)
              pti_symbols_set (ld->symbols, st->slot, req);
          }
        break;
      }

    case ST_WAIT:
      {
        double h = 0;
        if (!eval_whole (ld, st, &st->arg[0], 0, G_MAXUINT32, "a request", &h, error))
          return FALSE;
        PtiRequest req = (PtiRequest) h;
        ok = pti_mpi_wait (ctx, rank, req, error);
        for (guint i = 0; ok && i < ld->outstanding->len; i++)
          if (g_array_index (ld->outstanding, PtiRequest, i) == req)
            {
              g_array_remove_index (ld->outstanding, i);
              break;
            }
        break;
      }

    case ST_WAITALL:
    case ST_WAITANY:
      {
        /* over every request of this rank that no wait has named yet */
        GArray *o = ld->outstanding;
        if (st->kind == ST_WAITALL)
          {
            ok = pti_mpi_waitall (ctx, rank, o->len, (PtiRequest *) o->data, error);
            g_array_set_size (o, 0);
          }
        else
          ok = pti_mpi_waitany (ctx, rank, o->len, (PtiRequest *) o->data, error);
        break;
      }

    case ST_BARRIER:
    case ST_BCAST:
    case ST_ALLREDUCE:
    case ST_REDUCE:
    case ST_GATHER:
    case ST_SCATTER:
    case ST_ALLGATHER:
    case ST_ALLTOALL:
    case ST_ALLTOALLV:
      {
        gboolean evaluated = TRUE;
        ok = run_collective (ld, st, &evaluated, error);
        if (!evaluated)
          return FALSE;   /* an argument's error: already located */
        break;
      }

    default:
      g_assert_not_reached ();
    }

  if (G_UNLIKELY (!ok))
    {
      prefix_location (error, ld, st->line, st->element);
      pti_wsl_hint_unbound (ctx, unbound, TRUE, error);
    }
  return ok;
}

/* A rank's program is run by a small machine with an explicit stack of
 * blocks, rather than by recursion, so that it can stop at an <evaluate/>
 * and resume after the other ranks have caught up: the ranks then advance
 * in step, and a partial evaluation there can free what they have built. */
typedef struct {
  const Block *block;
  guint next;                   /* index of the next statement */
  const Stmt *owner;            /* the <for> or <repeat> this block belongs to, or NULL */
  gint64 trip, trips;           /* <for>: iterations done, and in all */
  double from, step;
} Frame;

typedef struct {
  GArray *frames;               /* Frame */
  double *vars;                 /* values of the program variables while suspended */
  GArray *outstanding;          /* its requests no wait has named */
  gboolean done;
} RankRun;

typedef enum { RUN_ERROR, RUN_DONE, RUN_SUSPENDED } RunResult;

static void
push (GArray *frames, const Block *block, const Stmt *owner)
{
  Frame f = { .block = block, .owner = owner };
  g_array_append_val (frames, f);
}

static RunResult
run_rank (Loader *ld, RankRun *rr, GError **error)
{
  GArray *frames = rr->frames;
  while (frames->len > 0)
    {
      Frame *f = &g_array_index (frames, Frame, frames->len - 1);
      if (f->next == f->block->n)
        {
          const Stmt *owner = f->owner;
          if (owner != NULL && owner->kind == ST_FOR && ++f->trip < f->trips)
            {
              pti_symbols_set (ld->symbols, owner->slot, f->from + (double) f->trip * f->step);
              f->next = 0;
              continue;
            }
          g_array_set_size (frames, frames->len - 1);
          if (owner != NULL && owner->kind == ST_REPEAT
              && !pti_repeat_end (ld->ctx, ld->rank, error))
            {
              prefix_location (error, ld, owner->line, owner->element);
              return RUN_ERROR;
            }
          continue;
        }
      const Stmt *st = &f->block->items[f->next++];
      double v = 0;
      switch (st->kind)
        {
        case ST_FOR:
          {
            Frame loop = { .block = &st->body, .owner = st };
            if (!for_bounds (ld, st, &loop.from, &loop.step, &loop.trips, error))
              return RUN_ERROR;
            if (loop.trips > 0)
              {
                pti_symbols_set (ld->symbols, st->slot, loop.from);
                g_array_append_val (frames, loop);
              }
            break;
          }
        case ST_IF:
          if (!eval_arg (ld, st, &st->arg[0], &v, error))
            return RUN_ERROR;
          push (frames, v != 0 ? &st->body : &st->orelse, NULL);
          break;
        case ST_REPEAT:
          if (!eval_whole (ld, st, &st->arg[0], 1, MAX_EXACT, "a repetition count", &v, error))
            return RUN_ERROR;
          if (!pti_repeat_begin (ld->ctx, ld->rank, (guint64) v, error))
            {
              prefix_location (error, ld, st->line, st->element);
              return RUN_ERROR;
            }
          push (frames, &st->body, st);
          break;
        case ST_EVALUATE:
          return RUN_SUSPENDED;
        default:
          if (!run_stmt (ld, st, error))
            return RUN_ERROR;
          break;
        }
    }
  return RUN_DONE;
}

/* Run every rank's program: each as far as its next <evaluate/> (or its
 * end) in turn, then a partial evaluation, and again, until all are done.
 * Without <evaluate/> each rank simply runs to its end in turn. */
static gboolean
run_program (Loader *ld, const Block *program, GError **error)
{
  guint n = pti_context_get_processes (ld->ctx);
  guint nv = ld->var_slots->len;
  RankRun *runs = g_new0 (RankRun, n);
  for (guint r = 0; r < n; r++)
    {
      runs[r].frames = g_array_new (FALSE, FALSE, sizeof (Frame));
      push (runs[r].frames, program, NULL);
      runs[r].vars = g_new (double, MAX (nv, 1));
      for (guint i = 0; i < nv; i++)
        runs[r].vars[i] = NAN;        /* unbound until the program sets them */
      runs[r].outstanding = g_array_new (FALSE, FALSE, sizeof (PtiRequest));
    }
  GArray *own_outstanding = ld->outstanding;
  gboolean ok = TRUE, suspended = TRUE;
  while (ok && suspended)
    {
      suspended = FALSE;
      for (guint r = 0; r < n && ok; r++)
        {
          RankRun *rr = &runs[r];
          if (rr->done)
            continue;
          ld->rank = r;
          ld->outstanding = rr->outstanding;
          pti_symbols_set (ld->symbols, ld->slot_rank, r);
          bind_comms (ld, r);
          for (guint i = 0; i < nv; i++)
            pti_symbols_set (ld->symbols, g_array_index (ld->var_slots, guint, i), rr->vars[i]);
          RunResult res = run_rank (ld, rr, error);
          for (guint i = 0; i < nv; i++)
            rr->vars[i] = pti_symbols_get (ld->symbols, g_array_index (ld->var_slots, guint, i));
          ok = res != RUN_ERROR;
          rr->done = res == RUN_DONE;
          suspended = suspended || res == RUN_SUSPENDED;
        }
      if (ok && suspended && !pti_evaluate_partial (ld->ctx, error))
        {
          g_prefix_error (error, "%s: <evaluate/>: ", ld->file);
          ok = FALSE;
        }
    }
  ld->outstanding = own_outstanding;
  for (guint r = 0; r < n; r++)
    {
      g_array_unref (runs[r].frames);
      g_free (runs[r].vars);
      g_array_unref (runs[r].outstanding);
    }
  g_free (runs);
  return ok;
}

/* ---- the document -------------------------------------------------------- */

/* Compiles and evaluates `value` of a <param> or <derive>: load-time only. */
static gboolean
eval_binding (Loader *ld, const xmlNode *node, char **name, double *value, GError **error)
{
  *name = pti_xml_attr (node, "name");
  if (*name == NULL)
    return pti_node_error (error, node, "the name attribute is required");
  if (strcmp (*name, "rank") == 0 || strcmp (*name, "nprocs") == 0)
    return pti_node_error (error, node, "'%s' is set by pti and cannot be a parameter", *name);
  Arg a;
  if (!compile_attr (ld, node, "value", TRUE, &a, error))
    return FALSE;
  gboolean ok = pti_expr_check (a.expr, ld->symbols, value, error);
  if (!ok)
    {
      prefix_expr (error, ld, xmlGetLineNo (node), (const char *) node->name, &a);
      pti_wsl_hint_unbound (ld->ctx, unbound_slot (ld, a.expr), TRUE, error);
    }
  pti_expr_free (a.expr);
  return ok;
}

/* <processes placement="block|cyclic"> or map="expression of rank": the
 * processor of each rank. */
static gboolean
set_placement (Loader *ld, const xmlNode *node, guint n, GError **error)
{
  g_autofree char *kind = pti_xml_attr (node, "placement");
  if (kind != NULL && !pti_context_set_placement (ld->ctx, strcmp (kind, "cyclic") == 0
                                                  ? PTI_PLACEMENT_CYCLIC : PTI_PLACEMENT_BLOCK,
                                                  error))
    return FALSE;
  if (!xmlHasProp (node, (const xmlChar *) "map"))
    return TRUE;
  Arg a;
  if (!compile_attr (ld, node, "map", TRUE, &a, error))
    return FALSE;
  g_autofree guint *map = g_new (guint, n);
  gboolean ok = TRUE;
  for (guint r = 0; r < n && ok; r++)
    {
      double v;
      pti_symbols_set (ld->symbols, ld->slot_rank, r);
      ok = pti_expr_check (a.expr, ld->symbols, &v, error);
      if (ok && (v != floor (v) || v < 0 || v > G_MAXUINT))
        {
          g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                       "map gives rank %u the processor %.17g, not a processor number", r, v);
          ok = FALSE;
        }
      if (ok)
        map[r] = (guint) v;
    }
  pti_symbols_set (ld->symbols, ld->slot_rank, NAN);
  if (ok)
    ok = pti_context_set_placement_map (ld->ctx, n, map, error);
  if (!ok)
    g_prefix_error (error, "map=\"%s\": ", pti_expr_text (a.expr));
  pti_expr_free (a.expr);
  return ok;
}

static gboolean
load_processes (Loader *ld, const xmlNode *node, GError **error)
{
  Arg a;
  if (!compile_attr (ld, node, "count", TRUE, &a, error))
    return FALSE;
  double n;
  gboolean ok = pti_expr_check (a.expr, ld->symbols, &n, error);
  if (!ok)
    prefix_expr (error, ld, xmlGetLineNo (node), "processes", &a);
  else if (n != floor (n) || n < 1 || n > G_MAXUINT)
    {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "%s:%ld: <processes count=\"%s\">: the number of processes must be a whole "
                   "number of at least 1, not %.17g", ld->file, xmlGetLineNo (node),
                   pti_expr_text (a.expr), n);
      ok = FALSE;
    }
  else if (!set_placement (ld, node, (guint) n, error)
           || !pti_context_set_processes (ld->ctx, (guint) n, error))
    {
      prefix_location (error, ld, xmlGetLineNo (node), "processes");
      ok = FALSE;
    }
  pti_expr_free (a.expr);
  return ok;
}

static gboolean
load_rud (Loader *ld, const xmlNode *node, GError **error)
{
  g_autofree char *name = pti_xml_attr (node, "name");
  if (name == NULL)
    return pti_node_error (error, node, "the name attribute is required");
  if (g_hash_table_contains (ld->ruds, name))
    return pti_node_error (error, node, "rud '%s' is defined twice", name);
  PtiRud *rud = pti_rud_new_from_node (ld->ctx, name, node, error);
  if (rud == NULL)
    {
      prefix_location (error, ld, xmlGetLineNo (node), "rud");
      return FALSE;
    }
  g_hash_table_insert (ld->ruds, g_steal_pointer (&name), rud);
  return TRUE;
}

/* <mpi><allreduce algorithm="ring"/>...</mpi>: the workload's algorithms. */
static gboolean
load_mpi (Loader *ld, xmlNode *node, GError **error)
{
  for (xmlNode *c = pti_xml_first_element (node); c != NULL; c = pti_xml_next_element (c))
    {
      g_autofree char *alg = pti_xml_attr (c, "algorithm");
      if (alg != NULL)
        g_strstrip (alg);
      if (!pti_context_set_collective_algorithm (ld->ctx, (const char *) c->name, alg, error))
        {
          g_prefix_error (error, "%s:%ld: <%s algorithm=\"%s\">: ", ld->file, xmlGetLineNo (c),
                          (const char *) c->name, alg ? alg : "");
          return FALSE;
        }
    }
  return TRUE;
}

/* Evaluates @a (colour or key of a <split>) for world rank @r: a whole number. */
static gboolean
eval_split_arg (Loader *ld, const xmlNode *node, const Arg *a, guint r, gint *out, GError **error)
{
  double v = 0;
  if (!pti_expr_check (a->expr, ld->symbols, &v, error))
    {
      prefix_expr (error, ld, xmlGetLineNo (node), "split", a);
      if (error != NULL && *error != NULL)
        {
          char *m = g_strdup_printf ("%s (rank %u)", (*error)->message, r);
          g_free ((*error)->message);
          (*error)->message = m;
        }
      pti_wsl_hint_unbound (ld->ctx, unbound_slot (ld, a->expr), TRUE, error);
      return FALSE;
    }
  if (v != floor (v) || v < G_MININT || v > G_MAXINT)
    {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "%s:%ld: <split %s=\"%s\">: %s must be a whole number from %d to %d, not "
                   "%.17g (rank %u)", ld->file, xmlGetLineNo (node), a->attr,
                   pti_expr_text (a->expr), a->attr, G_MININT, G_MAXINT, v, r);
      return FALSE;
    }
  *out = (gint) v;
  return TRUE;
}

/* <split name colour key parent/>: evaluated now, for every rank. */
static gboolean
load_split (Loader *ld, const xmlNode *node, GError **error)
{
  g_autofree char *name = pti_xml_attr (node, "name");
  g_autofree char *parent_name = pti_xml_attr (node, "parent");
  if (name == NULL)
    return pti_node_error (error, node, "the name attribute is required");
  if (strcmp (name, "world") == 0 || g_hash_table_contains (ld->comms, name))
    return pti_node_error (error, node, "communicator '%s' is already defined", name);
  g_autofree char *rank_name = g_strdup_printf ("%s_rank", name);
  g_autofree char *size_name = g_strdup_printf ("%s_size", name);
  if (g_hash_table_contains (ld->constants, rank_name)
      || g_hash_table_contains (ld->constants, size_name))
    return pti_node_error (error, node, "split '%s' binds %s and %s, but one of them is already "
                           "a parameter or derived value", name, rank_name, size_name);
  PtiComm *parent = NULL;
  if (parent_name != NULL && strcmp (parent_name, "world") != 0)
    {
      parent = g_hash_table_lookup (ld->comms, parent_name);
      if (parent == NULL)
        return pti_node_error (error, node, "unknown parent communicator '%s' (a parent is "
                               "\"world\" or an earlier <split>)", parent_name);
    }
  guint n = pti_context_get_processes (ld->ctx);
  if (n == 0)
    return pti_node_error (error, node, "<processes> must come before <split>");
  Arg colour = { 0 }, key = { 0 };
  gboolean ok = compile_attr (ld, node, "colour", TRUE, &colour, error)
                && compile_attr (ld, node, "key", FALSE, &key, error);
  g_autofree gint *colours = g_new (gint, n);
  g_autofree gint *keys = g_new0 (gint, n);
  for (guint r = 0; r < n && ok; r++)
    {
      pti_symbols_set (ld->symbols, ld->slot_rank, r);
      bind_comms (ld, r);
      ok = eval_split_arg (ld, node, &colour, r, &colours[r], error)
           && (key.expr == NULL || eval_split_arg (ld, node, &key, r, &keys[r], error));
    }
  pti_symbols_set (ld->symbols, ld->slot_rank, NAN);
  pti_expr_free (colour.expr);
  pti_expr_free (key.expr);
  if (!ok)
    return FALSE;
  PtiComm *comm = pti_comm_split (ld->ctx, parent, name, colours, keys, error);
  if (comm == NULL)
    {
      prefix_location (error, ld, xmlGetLineNo (node), "split");
      return FALSE;
    }
  CommSlots slots = {
    comm, pti_symbols_intern (ld->symbols, rank_name), pti_symbols_intern (ld->symbols, size_name),
  };
  g_array_append_val (ld->comm_slots, slots);
  g_hash_table_insert (ld->comms, g_strdup (name), comm);
  g_hash_table_add (ld->constants, g_steal_pointer (&rank_name));
  g_hash_table_add (ld->constants, g_steal_pointer (&size_name));
  return TRUE;
}

static gboolean
build (Loader *ld, xmlNode *root, Block *program, GError **error)
{
  g_autofree char *wname = pti_xml_attr (root, "name");
  pti_context_set_workload (ld->ctx, wname ? wname : "workload", ld->file);

  xmlNode *prog = NULL;
  for (xmlNode *c = pti_xml_first_element (root); c != NULL; c = pti_xml_next_element (c))
    {
      const char *el = (const char *) c->name;
      if (strcmp (el, "param") == 0 || strcmp (el, "derive") == 0)
        {
          g_autofree char *name = NULL;
          double value;
          if (!eval_binding (ld, c, &name, &value, error))
            return FALSE;
          gboolean ok = el[0] == 'p'
            ? pti_context_declare_param (ld->ctx, name, value, error)
            : pti_context_set_param (ld->ctx, name, value, error);
          if (!ok)
            {
              prefix_location (error, ld, xmlGetLineNo (c), el);
              return FALSE;
            }
          g_hash_table_add (ld->constants, g_steal_pointer (&name));
        }
      else if (strcmp (el, "processes") == 0)
        {
          if (!load_processes (ld, c, error))
            return FALSE;
        }
      else if (strcmp (el, "rud") == 0)
        {
          if (!load_rud (ld, c, error))
            return FALSE;
        }
      else if (strcmp (el, "mpi") == 0)
        {
          if (!load_mpi (ld, c, error))
            return FALSE;
        }
      else if (strcmp (el, "split") == 0)
        {
          if (!load_split (ld, c, error))
            return FALSE;
        }
      else if (strcmp (el, "program") == 0)
        prog = c;
      /* <description> and anything else the schema allows: nothing to do */
    }
  if (pti_context_get_processes (ld->ctx) == 0)
    return pti_node_error (error, root, "<processes count=\"...\"/> is required");
  if (prog == NULL)
    return pti_node_error (error, root, "<program> is required");
  return compile_block (ld, pti_xml_first_element (prog), program, error);
}

gboolean
pti_workload_file_build (PtiContext *ctx, const char *path, GError **error)
{
  g_return_val_if_fail (ctx != NULL && path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  g_autofree char *xsd = pti_xml_find_schema ("workload.xsd", error);
  if (xsd == NULL)
    return FALSE;
  g_autoptr (xmlSchema) schema = pti_xml_schema_from_file (xsd, error);
  if (schema == NULL)
    return FALSE;
  g_autoptr (xmlDoc) doc = pti_xml_read_file (path, error);
  if (doc == NULL)
    return FALSE;
  if (!pti_xml_validate_doc (schema, doc, "workload.xsd", error))
    return FALSE;

  Loader ld = {
    .ctx = ctx,
    .symbols = pti_context_get_symbols (ctx),
    .file = path,
    .ruds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                   (GDestroyNotify) pti_rud_unref),
    .constants = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
    .var_slots = g_array_new (FALSE, FALSE, sizeof (guint)),
    .outstanding = g_array_new (FALSE, FALSE, sizeof (PtiRequest)),
    .comms = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
    .comm_slots = g_array_new (FALSE, FALSE, sizeof (CommSlots)),
    .sizes = g_array_new (FALSE, FALSE, sizeof (guint64)),
  };
  ld.slot_rank = pti_symbols_intern (ld.symbols, "rank");
  Block program = { 0 };

  gboolean ok = build (&ld, xmlDocGetRootElement (doc), &program, error);
  g_clear_pointer (&doc, xmlFreeDoc);
  g_clear_pointer (&ld.ruds, g_hash_table_unref);   /* statements hold their own references */

  ok = ok && run_program (&ld, &program, error);

  block_clear (&program);
  g_hash_table_unref (ld.constants);
  g_array_unref (ld.var_slots);
  g_array_unref (ld.outstanding);
  g_hash_table_unref (ld.comms);
  g_array_unref (ld.comm_slots);
  g_array_unref (ld.sizes);
  return ok;
}
