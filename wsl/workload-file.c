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
#include "coll-private.h"
#include "expr-private.h"

#include <math.h>
#include <string.h>

/* schemas/workload.xsd without its documentation, generated at build time:
 * the reader and the schema it validates against come from one build. */
extern const char pti_workload_xsd[];

/* The largest trip count of one <for>: more is surely a mistake. */
#define MAX_TRIPS 1e9
/* Whole numbers above this are not exact in a double. */
#define MAX_EXACT 9007199254740992.0

typedef enum {
  ST_LET, ST_FOR, ST_IF, ST_USE, ST_SEND, ST_RECV, ST_BARRIER, ST_BCAST, ST_ALLREDUCE,
  ST_ISEND, ST_IRECV, ST_WAIT, ST_WAITALL, ST_WAITANY, ST_REPEAT, ST_EVALUATE,
  ST_REDUCE, ST_GATHER, ST_SCATTER, ST_ALLGATHER, ST_ALLTOALL, ST_ALLTOALLV, ST_PHASE,
  ST_USE_TIME, ST_USE_FLOPS, ST_SSEND, ST_ISSEND, ST_PROBE, ST_SENDRECV,
  ST_SCAN, ST_EXSCAN, ST_REDUCE_SCATTER, ST_REDUCE_SCATTER_BLOCK, ST_GATHERV, ST_SCATTERV,
  ST_ALLGATHERV, ST_IO_OPEN, ST_IO_CLOSE, ST_IO_WRITE, ST_IO_READ,
} StmtKind;

typedef struct {
  const char *attr;             /* static: the attribute it came from */
  PtiExpr *expr;
  gboolean constant;            /* the expression folded to a number: value */
  gboolean name;                /* the expression is a bare name: slot */
  double value;
  guint slot;
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
  gboolean simple;              /* run by run_stmt alone (no block, no repetition) */
  gboolean any_source;          /* receives: from="any" */
  gboolean any_tag;             /* receives: tag="any" */
  gboolean null_to, null_from;  /* to="null", from="null": PTI_PROC_NULL */
  gboolean nonblocking;         /* collectives: <iallreduce> and the like */
  gboolean has_req;             /* ... with request="name": its variable */
  gboolean world_p2p;           /* send, recv, isend, irecv on the world, with a peer
                                 * and a tag given (no any, no null): run_p2p_plain */
  gboolean bytes_whole;         /* world_p2p: its length is a constant, whole and in
                                 * range: bytes_value */
  guint64 bytes_value;
  guint req_slot;
  Arg arg[6];                   /* by kind: see compile_stmt */
  PtiRud *rud;                  /* ST_USE (a reference) */
  PtiModelChoice model;         /* ST_USE: model="...", resolved at load time */
  PtiComm *comm;                /* messages and collectives: comm="...", NULL for the world */
  char *phase;                  /* ST_PHASE: its name; ST_IO_*: the file's name */
  gboolean collective;          /* ST_IO_*: collective="yes" (MPI-IO's *_all, MPI_File_open) */
  Block body;                   /* ST_FOR, ST_REPEAT, ST_PHASE; ST_IF when true */
  Block orelse;                 /* ST_IF when false */
};

typedef struct {
  PtiContext *ctx;
  PtiSymbols *symbols;
  char *file;                   /* as given, for messages */
  GHashTable *ruds;             /* name -> PtiRud (owned) */
  GHashTable *constants;        /* parameter and derived names (owned) */
  GHashTable *fixed;            /* slots of the names fixed for good: parameters,
                                 * derived values, nprocs (folded into expressions) */
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
      g_free (st->phase);
      block_clear (&st->body);
      block_clear (&st->orelse);
    }
  g_free (b->items);
  b->items = NULL;
  b->n = 0;
}

static gboolean
is_fixed (guint slot, gpointer data)
{
  const Loader *ld = data;
  return g_hash_table_contains (ld->fixed, GUINT_TO_POINTER (slot));
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
  a->constant = FALSE;
  g_autofree char *text = pti_xml_attr (node, attr);
  if (text == NULL)
    {
      if (required)
        return pti_node_error (error, node, "the %s attribute is required", attr);
      return TRUE;
    }
  a->expr = pti_expr_compile_folded (text, ld->symbols, is_fixed, ld, error);
  if (a->expr != NULL)
    {
      a->constant = pti_expr_is_constant (a->expr, &a->value) && isfinite (a->value);
      a->name = pti_expr_is_name (a->expr, &a->slot);
    }
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

/* The collectives with a non-blocking form: <iNAME> is NAME's, plus an
 * optional request="variable"; its statement kind, and the collective. */
static const struct {
  const char *element;          /* "iallreduce" */
  StmtKind kind;
  CollKind coll;
} nb_collectives[] = {
  { "ibarrier", ST_BARRIER, COLL_BARRIER }, { "ibcast", ST_BCAST, COLL_BCAST },
  { "ireduce", ST_REDUCE, COLL_REDUCE }, { "iallreduce", ST_ALLREDUCE, COLL_ALLREDUCE },
  { "igather", ST_GATHER, COLL_GATHER }, { "iscatter", ST_SCATTER, COLL_SCATTER },
  { "iallgather", ST_ALLGATHER, COLL_ALLGATHER }, { "ialltoall", ST_ALLTOALL, COLL_ALLTOALL },
  { "ialltoallv", ST_ALLTOALLV, COLL_ALLTOALLV }, { "iscan", ST_SCAN, COLL_SCAN },
  { "iexscan", ST_EXSCAN, COLL_EXSCAN },
  { "ireduce_scatter", ST_REDUCE_SCATTER, COLL_REDUCE_SCATTER },
  { "ireduce_scatter_block", ST_REDUCE_SCATTER_BLOCK, COLL_REDUCE_SCATTER_BLOCK },
  { "igatherv", ST_GATHERV, COLL_GATHERV }, { "iscatterv", ST_SCATTERV, COLL_SCATTERV },
  { "iallgatherv", ST_ALLGATHERV, COLL_ALLGATHERV },
};

static gboolean compile_stmt_as (Loader *ld, xmlNode *node, const char *name, Stmt *st,
                                 GError **error);

static gboolean
compile_stmt (Loader *ld, xmlNode *node, Stmt *st, GError **error)
{
  const char *name = (const char *) node->name;
  for (guint i = 0; i < G_N_ELEMENTS (nb_collectives); i++)
    if (strcmp (name, nb_collectives[i].element) == 0)
      {
        if (!compile_stmt_as (ld, node, name + 1, st, error))
          return FALSE;
        st->nonblocking = TRUE;
        st->element = nb_collectives[i].element;
        if (!xmlHasProp (node, (const xmlChar *) "request"))
          return TRUE;
        st->has_req = TRUE;
        return variable_slot (ld, node, "request", &st->req_slot, error);
      }
  return compile_stmt_as (ld, node, name, st, error);
}

static gboolean
compile_stmt_as (Loader *ld, xmlNode *node, const char *name, Stmt *st, GError **error)
{
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
      g_autofree char *model = pti_xml_attr (node, "model");
      st->model = PTI_MODEL_DEFAULT;
      if (model != NULL
          && (st->model = pti_context_model_choice (ld->ctx, model, error))
               == PTI_MODEL_CHOICE_INVALID)
        {
          prefix_location (error, ld, st->line, st->element);
          return FALSE;
        }
      return TRUE;
    }
  if (strcmp (name, "use_time") == 0 || strcmp (name, "use_flops") == 0)
    {
      gboolean flops = name[4] == 'f';
      st->kind = flops ? ST_USE_FLOPS : ST_USE_TIME;
      st->element = flops ? "use_flops" : "use_time";
      return compile_attr (ld, node, flops ? "flops" : "seconds", TRUE, &st->arg[0], error);
    }
  if (strcmp (name, "send") == 0 || strcmp (name, "recv") == 0
      || strcmp (name, "isend") == 0 || strcmp (name, "irecv") == 0
      || strcmp (name, "ssend") == 0 || strcmp (name, "issend") == 0
      || strcmp (name, "probe") == 0)
    {
      static const struct { const char *name; StmtKind kind; } kinds[] = {
        { "send", ST_SEND }, { "recv", ST_RECV }, { "isend", ST_ISEND }, { "irecv", ST_IRECV },
        { "ssend", ST_SSEND }, { "issend", ST_ISSEND }, { "probe", ST_PROBE },
      };
      for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
        if (strcmp (name, kinds[i].name) == 0)
          {
            st->kind = kinds[i].kind;
            st->element = kinds[i].name;
          }
      gboolean send = st->kind == ST_SEND || st->kind == ST_ISEND || st->kind == ST_SSEND
                      || st->kind == ST_ISSEND;
      gboolean nonblocking = st->kind == ST_ISEND || st->kind == ST_IRECV || st->kind == ST_ISSEND;
      /* "any" and "null" are not names: MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_PROC_NULL */
      g_autofree char *peer = pti_xml_attr (node, send ? "to" : "from");
      g_autofree char *tag = pti_xml_attr (node, "tag");
      st->any_source = !send && g_strcmp0 (peer, "any") == 0;
      st->any_tag = !send && g_strcmp0 (tag, "any") == 0;
      *(send ? &st->null_to : &st->null_from) = g_strcmp0 (peer, "null") == 0;
      if (nonblocking && xmlHasProp (node, (const xmlChar *) "request"))
        {
          st->has_slot = TRUE;
          if (!variable_slot (ld, node, "request", &st->slot, error))
            return FALSE;
        }
      return (st->any_source || st->null_to || st->null_from
              || compile_attr (ld, node, send ? "to" : "from", TRUE, &st->arg[0], error))
             && (st->kind == ST_PROBE || compile_attr (ld, node, "bytes", TRUE, &st->arg[1], error))
             && (st->any_tag || compile_attr (ld, node, "tag", FALSE, &st->arg[2], error));
    }
  if (strcmp (name, "sendrecv") == 0)
    {
      /* arguments: to, bytes, tag, from, recv_bytes (default bytes), recv_tag (default tag) */
      st->kind = ST_SENDRECV;
      st->element = "sendrecv";
      g_autofree char *to = pti_xml_attr (node, "to");
      g_autofree char *from = pti_xml_attr (node, "from");
      g_autofree char *recv_tag = pti_xml_attr (node, "recv_tag");
      st->null_to = g_strcmp0 (to, "null") == 0;
      st->null_from = g_strcmp0 (from, "null") == 0;
      st->any_source = g_strcmp0 (from, "any") == 0;
      st->any_tag = g_strcmp0 (recv_tag, "any") == 0;
      return (st->null_to || compile_attr (ld, node, "to", TRUE, &st->arg[0], error))
             && compile_attr (ld, node, "bytes", TRUE, &st->arg[1], error)
             && compile_attr (ld, node, "tag", FALSE, &st->arg[2], error)
             && (st->null_from || st->any_source
                 || compile_attr (ld, node, "from", TRUE, &st->arg[3], error))
             && compile_attr (ld, node, "recv_bytes", FALSE, &st->arg[4], error)
             && (st->any_tag || compile_attr (ld, node, "recv_tag", FALSE, &st->arg[5], error));
    }
  if (g_str_has_prefix (name, "io_"))
    {
      /* <io_open file collective stripe_size stripe_count/>, <io_close file/>,
       * <io_write file offset bytes collective/>, <io_read .../> */
      static const struct { const char *name; StmtKind kind; } kinds[] = {
        { "io_open", ST_IO_OPEN }, { "io_close", ST_IO_CLOSE },
        { "io_write", ST_IO_WRITE }, { "io_read", ST_IO_READ },
      };
      guint i = 0;
      while (i < G_N_ELEMENTS (kinds) && strcmp (name, kinds[i].name) != 0)
        i++;
      if (i == G_N_ELEMENTS (kinds))
        return pti_node_error (error, node, "unknown statement");
      st->kind = kinds[i].kind;
      st->element = kinds[i].name;
      st->phase = pti_xml_attr (node, "file");
      if (st->phase == NULL)
        return pti_node_error (error, node, "the file attribute is required");
      g_autofree char *collective = pti_xml_attr (node, "collective");
      st->collective = g_strcmp0 (collective, "yes") == 0;
      if (st->kind == ST_IO_OPEN)
        return compile_attr (ld, node, "stripe_size", FALSE, &st->arg[0], error)
               && compile_attr (ld, node, "stripe_count", FALSE, &st->arg[1], error);
      if (st->kind == ST_IO_CLOSE)
        return TRUE;
      return compile_attr (ld, node, "offset", TRUE, &st->arg[0], error)
             && compile_attr (ld, node, "bytes", TRUE, &st->arg[1], error);
    }
  if (strcmp (name, "repeat") == 0)
    {
      st->kind = ST_REPEAT;
      st->element = "repeat";
      return compile_attr (ld, node, "count", TRUE, &st->arg[0], error)
             && compile_block (ld, pti_xml_first_element (node), &st->body, error);
    }
  if (strcmp (name, "phase") == 0)
    {
      st->kind = ST_PHASE;
      st->element = "phase";
      st->phase = pti_xml_attr (node, "name");
      if (st->phase == NULL)
        return pti_node_error (error, node, "the name attribute is required");
      return compile_block (ld, pti_xml_first_element (node), &st->body, error);
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
  if (strcmp (name, "scan") == 0 || strcmp (name, "exscan") == 0
      || strcmp (name, "reduce_scatter_block") == 0)
    {
      st->kind = name[0] == 's' ? ST_SCAN : name[0] == 'e' ? ST_EXSCAN : ST_REDUCE_SCATTER_BLOCK;
      st->element = name[0] == 's' ? "scan" : name[0] == 'e' ? "exscan" : "reduce_scatter_block";
      return compile_attr (ld, node, "bytes", TRUE, &st->arg[0], error);
    }
  if (strcmp (name, "reduce_scatter") == 0 || strcmp (name, "allgatherv") == 0)
    {
      /* arg[1]: the receive size of rank var */
      st->kind = name[0] == 'r' ? ST_REDUCE_SCATTER : ST_ALLGATHERV;
      st->element = name[0] == 'r' ? "reduce_scatter" : "allgatherv";
      return variable_slot (ld, node, "var", &st->slot, error)
             && compile_attr (ld, node, "recv", TRUE, &st->arg[1], error);
    }
  if (strcmp (name, "gatherv") == 0 || strcmp (name, "scatterv") == 0)
    {
      /* arg[0]: root; gatherv: send (this rank's block), recv (of rank var,
       * at the root); scatterv: send (to rank var, at the root), recv */
      st->kind = name[0] == 'g' ? ST_GATHERV : ST_SCATTERV;
      st->element = name[0] == 'g' ? "gatherv" : "scatterv";
      return variable_slot (ld, node, "var", &st->slot, error)
             && compile_attr (ld, node, "root", TRUE, &st->arg[0], error)
             && compile_attr (ld, node, "send", TRUE, &st->arg[1], error)
             && compile_attr (ld, node, "recv", TRUE, &st->arg[2], error);
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
      st->simple = st->kind != ST_FOR && st->kind != ST_IF && st->kind != ST_REPEAT
                   && st->kind != ST_PHASE
                   && st->kind != ST_EVALUATE;
      st->world_p2p = (st->kind == ST_SEND || st->kind == ST_RECV || st->kind == ST_ISEND
                       || st->kind == ST_IRECV)
                      && st->comm == NULL && !st->any_source && !st->any_tag && !st->null_to
                      && !st->null_from && st->arg[0].expr != NULL && st->arg[1].expr != NULL;
      st->bytes_whole = st->world_p2p && st->arg[1].constant && st->arg[1].value >= 0
                        && st->arg[1].value <= MAX_EXACT
                        && (double) (guint64) st->arg[1].value == st->arg[1].value;
      st->bytes_value = st->bytes_whole ? (guint64) st->arg[1].value : 0;
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

/* eval_arg's slow path: a value that is not a finite number, named. */
static G_GNUC_NO_INLINE gboolean
eval_arg_failed (Loader *ld, const Stmt *st, const Arg *a, double *out, GError **error)
{
  g_autoptr (GError) e = NULL;
  double v = NAN;
  if (pti_expr_check (a->expr, ld->symbols, &v, &e))
    {
      *out = v;
      return TRUE;
    }
  stmt_error (error, ld, st, a, "%s", e->message);
  pti_wsl_hint_unbound (ld->ctx, unbound_slot (ld, a->expr), TRUE, error);
  return FALSE;
}

/* Evaluates @a; NaN (an unbound name) and infinities are errors. */
static inline __attribute__ ((always_inline)) gboolean
eval_arg (Loader *ld, const Stmt *st, const Arg *a, double *out, GError **error)
{
  if (a->constant)
    {
      *out = a->value;
      return TRUE;
    }
  double v = pti_expr_eval_inline (a->expr, ld->symbols);
  *out = v;
  if (G_LIKELY (isfinite (v)))
    return TRUE;
  return eval_arg_failed (ld, st, a, out, error);
}

/* Evaluates @a to a whole number in [@lo, @hi]. */
static inline __attribute__ ((always_inline)) gboolean
eval_whole (Loader *ld, const Stmt *st, const Arg *a, double lo, double hi, const char *what,
            double *out, GError **error)
{
  if (!eval_arg (ld, st, a, out, error))
    return FALSE;
  /* Within +-2^53 a double is whole when converting it to an integer and
   * back gives it again (no call to floor). */
  if (G_UNLIKELY (!(*out >= lo && *out <= hi) || (double) (gint64) *out != *out))
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
  if (G_UNLIKELY (!(v >= 0 && v <= G_MAXUINT) || (double) (gint64) v != v))
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
                    || st->kind == ST_SCATTER || st->kind == ST_GATHERV || st->kind == ST_SCATTERV;
  gboolean sized = st->kind != ST_BARRIER && st->kind != ST_ALLTOALLV
                   && st->kind != ST_REDUCE_SCATTER && st->kind != ST_ALLGATHERV;
  if (st->kind == ST_GATHERV || st->kind == ST_SCATTERV)
    *args = eval_rank (ld, st, &st->arg[0], "root", &root, error);   /* sizes below */
  else if (rooted)
    *args = eval_rank (ld, st, &st->arg[0], "root", &root, error)
            && eval_bytes (ld, st, &st->arg[1], &bytes, error);
  else if (sized)
    *args = eval_bytes (ld, st, &st->arg[0], &bytes, error);
  if (!*args)
    return FALSE;
  const guint64 *sendv = NULL, *recvv = NULL;
  if (st->kind == ST_ALLTOALLV || st->kind == ST_REDUCE_SCATTER || st->kind == ST_ALLGATHERV
      || st->kind == ST_GATHERV || st->kind == ST_SCATTERV)
    {
      /* var = 0 .. size - 1 of this rank's communicator (none: the WSL says
       * so); gatherv and scatterv evaluate the vector at the root only, and
       * this rank's own size once */
      guint n = pti_comm_size (st->comm ? st->comm : pti_comm_world (ctx), rank);
      gint me = pti_comm_rank (st->comm ? st->comm : pti_comm_world (ctx), rank);
      g_array_set_size (ld->sizes, 2 * (gsize) n);
      guint64 *v = (guint64 *) ld->sizes->data;
      gboolean at_root = me >= 0 && (guint) me == root;
      const Arg *send = NULL, *recv = NULL;   /* the vectors' expressions, of var */
      switch (st->kind)
        {
        case ST_ALLTOALLV: send = &st->arg[0]; recv = &st->arg[1]; break;
        case ST_SCATTERV: send = at_root ? &st->arg[1] : NULL; break;
        case ST_GATHERV: recv = at_root ? &st->arg[2] : NULL; break;
        default: recv = &st->arg[1]; break;
        }
      for (guint j = 0; j < n && *args; j++)
        {
          pti_symbols_set (ld->symbols, st->slot, j);
          *args = (send == NULL || eval_bytes (ld, st, send, &v[j], error))
                  && (recv == NULL || eval_bytes (ld, st, recv, &v[n + j], error));
        }
      if (*args && st->kind == ST_GATHERV)
        *args = eval_bytes (ld, st, &st->arg[1], &bytes, error);
      if (*args && st->kind == ST_SCATTERV)
        *args = eval_bytes (ld, st, &st->arg[2], &bytes, error);
      if (!*args)
        return FALSE;
      sendv = send ? v : NULL;
      recvv = recv ? v + n : NULL;
    }
  pti_coll_set_site (ctx, ld->file, (guint) st->line);
  if (st->nonblocking)
    {
      CollKind coll = COLL_BARRIER;
      for (guint i = 0; i < G_N_ELEMENTS (nb_collectives); i++)
        if (nb_collectives[i].kind == st->kind)
          coll = nb_collectives[i].coll;
      PtiRequest req = PTI_REQUEST_NULL;
      if (!pti_coll_istart (ctx, st->comm, coll, rank, root, bytes, sendv, recvv, &req, error))
        return FALSE;
      g_array_append_val (ld->outstanding, req);
      if (st->has_req)
        pti_symbols_set (ld->symbols, st->req_slot, req);
      return TRUE;
    }
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
    case ST_SCAN: return pti_mpi_scan_comm (ctx, st->comm, rank, bytes, error);
    case ST_EXSCAN: return pti_mpi_exscan_comm (ctx, st->comm, rank, bytes, error);
    case ST_REDUCE_SCATTER:
      return pti_mpi_reduce_scatter_comm (ctx, st->comm, rank, recvv, error);
    case ST_REDUCE_SCATTER_BLOCK:
      return pti_mpi_reduce_scatter_block_comm (ctx, st->comm, rank, bytes, error);
    case ST_GATHERV:
      return pti_mpi_gatherv_comm (ctx, st->comm, rank, root, bytes, recvv, error);
    case ST_SCATTERV:
      return pti_mpi_scatterv_comm (ctx, st->comm, rank, root, sendv, bytes, error);
    case ST_ALLGATHERV: return pti_mpi_allgatherv_comm (ctx, st->comm, rank, recvv, error);
    default: return pti_mpi_alltoallv_comm (ctx, st->comm, rank, sendv, recvv, error);
    }
}

/* @a's value, NaN if it has none (not finite values are caught by the
 * range checks of the caller, which then takes the long way). */
static inline __attribute__ ((always_inline)) double
arg_value (const Loader *ld, const Arg *a)
{
  return a->constant ? a->value : pti_expr_eval_inline (a->expr, ld->symbols);
}

/* A world_p2p statement whose arguments are in range and whose rank may
 * append: straight onto the one message path (pti_wsl_message), with the
 * checks eval_rank, eval_bytes, eval_tag and pti_mpi_*_comm would make, as
 * compares.  *@done is FALSE if any check fails: the caller then runs the
 * statement the long way, which evaluates the arguments again and names
 * the mistake.  Sends and receives are most of a workload's statements. */
static inline __attribute__ ((always_inline)) gboolean
run_p2p_plain (Loader *ld, const Stmt *st, gboolean *done, GError **error)
{
  static const PtiOpKind ops[] = {
    [ST_SEND] = PTI_OP_SEND, [ST_RECV] = PTI_OP_RECV, [ST_ISEND] = PTI_OP_ISEND,
    [ST_IRECV] = PTI_OP_IRECV,
  };
  PtiContext *ctx = ld->ctx;
  *done = FALSE;
  /* Whole numbers in range: converting to an integer and back gives them
   * again (NaN fails every compare). */
  double peer = arg_value (ld, &st->arg[0]);
  if (G_UNLIKELY (!(peer >= 0 && peer < ctx->n_procs && (double) (guint) peer == peer)))
    return FALSE;
  guint64 bytes = st->bytes_value;
  if (!st->bytes_whole)
    {
      double b = arg_value (ld, &st->arg[1]);
      if (G_UNLIKELY (!(b >= 0 && b <= MAX_EXACT && (double) (guint64) b == b)))
        return FALSE;
      bytes = (guint64) b;
    }
  double tag = st->arg[2].expr != NULL ? arg_value (ld, &st->arg[2]) : 0;
  if (G_UNLIKELY (!(tag >= 0 && tag <= G_MAXINT && (double) (gint) tag == tag)
                  || !pti_wsl_check_rank (ctx, st->element, ld->rank, NULL)))
    return FALSE;
  *done = TRUE;
  PtiRequest req = 0;
  if (!pti_wsl_message (ctx, ops[st->kind], ld->rank, (guint) peer, bytes, (gint) tag,
                        PTI_COMM_WORLD, &req, error))
    return FALSE;
  if (st->kind == ST_ISEND || st->kind == ST_IRECV)
    {
      g_array_append_val (ld->outstanding, req);
      if (st->has_slot)
        pti_symbols_set (ld->symbols, st->slot, req);
    }
  return TRUE;
}

/* Locates the error of statement @st, which failed in the library; @unbound:
 * the parameter its price needed and lacked, or G_MAXUINT. */
static void
stmt_failed (Loader *ld, const Stmt *st, guint unbound, GError **error)
{
  prefix_location (error, ld, st->line, st->element);
  pti_wsl_hint_unbound (ld->ctx, unbound, TRUE, error);
}

static gboolean
run_stmt (Loader *ld, const Stmt *st, GError **error)
{
  PtiContext *ctx = ld->ctx;
  guint rank = ld->rank;
  double v = 0;
  gboolean ok;

  switch (st->kind)
    {
    case ST_USE_TIME:
    case ST_USE_FLOPS:
      if (!eval_arg (ld, st, &st->arg[0], &v, error))
        return FALSE;
      ok = st->kind == ST_USE_TIME ? pti_use_time (ctx, rank, v, error)
                                   : pti_use_flops (ctx, rank, v, error);
      break;

    case ST_SEND:
    case ST_RECV:
    case ST_ISEND:
    case ST_IRECV:
    case ST_SSEND:
    case ST_ISSEND:
    case ST_PROBE:
      {
        gboolean send = st->kind == ST_SEND || st->kind == ST_ISEND || st->kind == ST_SSEND
                        || st->kind == ST_ISSEND;
        guint peer = st->null_to || st->null_from ? PTI_PROC_NULL : PTI_ANY_SOURCE;
        guint64 bytes = 0;
        gint tag = 0;
        if ((st->arg[0].expr != NULL
             && !eval_rank (ld, st, &st->arg[0], send ? "destination" : "source", &peer, error))
            || (st->arg[1].expr != NULL && !eval_bytes (ld, st, &st->arg[1], &bytes, error))
            || !eval_tag (ld, st, &st->arg[2], &tag, error))
          return FALSE;
        PtiRequest req = 0;
        switch (st->kind)
          {
          case ST_SEND: ok = pti_mpi_send_comm (ctx, st->comm, rank, peer, bytes, tag, error); break;
          case ST_RECV: ok = pti_mpi_recv_comm (ctx, st->comm, rank, peer, bytes, tag, error); break;
          case ST_SSEND: ok = pti_mpi_ssend_comm (ctx, st->comm, rank, peer, bytes, tag, error); break;
          case ST_PROBE: ok = pti_mpi_probe_comm (ctx, st->comm, rank, peer, tag, error); break;
          case ST_ISEND:
            ok = pti_mpi_isend_comm (ctx, st->comm, rank, peer, bytes, tag, &req, error);
            break;
          case ST_ISSEND:
            ok = pti_mpi_issend_comm (ctx, st->comm, rank, peer, bytes, tag, &req, error);
            break;
          default:
            ok = pti_mpi_irecv_comm (ctx, st->comm, rank, peer, bytes, tag, &req, error);
            break;
          }
        if (ok && (st->kind == ST_ISEND || st->kind == ST_IRECV || st->kind == ST_ISSEND))
          {
            g_array_append_val (ld->outstanding, req);
            if (st->has_slot)
              pti_symbols_set (ld->symbols, st->slot, req);
          }
        break;
      }

    case ST_IO_OPEN:
    case ST_IO_CLOSE:
    case ST_IO_WRITE:
    case ST_IO_READ:
      {
        PtiFile file = 0;
        if (st->kind == ST_IO_OPEN)
          {
            double count = 0;
            guint64 size = 0;
            if ((st->arg[0].expr != NULL && !eval_bytes (ld, st, &st->arg[0], &size, error))
                || (st->arg[1].expr != NULL
                    && !eval_whole (ld, st, &st->arg[1], 0, 65536, "a stripe count", &count,
                                    error)))
              return FALSE;
            PtiIoHints hints = { .stripe_size = size, .stripe_count = (guint) count };
            ok = st->collective
                   ? pti_io_open_all (ctx, st->comm, rank, st->phase, &hints, &file, error)
                   : pti_io_open (ctx, rank, st->phase, &hints, &file, error);
            break;
          }
        if (!pti_wsl_io_lookup (ctx, rank, st->element, st->phase, &file, error))
          {
            prefix_location (error, ld, st->line, st->element);
            return FALSE;
          }
        if (st->kind == ST_IO_CLOSE)
          {
            ok = pti_io_close (ctx, rank, file, error);
            break;
          }
        guint64 offset = 0, bytes = 0;
        if (!eval_bytes (ld, st, &st->arg[0], &offset, error)
            || !eval_bytes (ld, st, &st->arg[1], &bytes, error))
          return FALSE;
        if (st->kind == ST_IO_WRITE)
          ok = st->collective ? pti_io_write_at_all (ctx, rank, file, offset, bytes, error)
                              : pti_io_write_at (ctx, rank, file, offset, bytes, error);
        else
          ok = st->collective ? pti_io_read_at_all (ctx, rank, file, offset, bytes, error)
                              : pti_io_read_at (ctx, rank, file, offset, bytes, error);
        break;
      }

    case ST_SENDRECV:
      {
        guint dst = PTI_PROC_NULL, src = st->any_source ? PTI_ANY_SOURCE : PTI_PROC_NULL;
        guint64 bytes = 0, recv_bytes = 0;
        double tag = 0, recv_tag = 0;
        if ((!st->null_to && !eval_rank (ld, st, &st->arg[0], "destination", &dst, error))
            || !eval_bytes (ld, st, &st->arg[1], &bytes, error)
            || (st->arg[2].expr != NULL
                && !eval_whole (ld, st, &st->arg[2], 0, G_MAXINT, "a tag", &tag, error))
            || (st->arg[3].expr != NULL && !eval_rank (ld, st, &st->arg[3], "source", &src, error)))
          return FALSE;
        recv_bytes = bytes;
        recv_tag = st->any_tag ? PTI_ANY_TAG : tag;
        if ((st->arg[4].expr != NULL && !eval_bytes (ld, st, &st->arg[4], &recv_bytes, error))
            || (st->arg[5].expr != NULL
                && !eval_whole (ld, st, &st->arg[5], 0, G_MAXINT, "a tag", &recv_tag, error)))
          return FALSE;
        ok = pti_mpi_sendrecv_comm (ctx, st->comm, rank, dst, bytes, (gint) tag, src, recv_bytes,
                                    (gint) recv_tag, error);
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
    case ST_SCAN:
    case ST_EXSCAN:
    case ST_REDUCE_SCATTER:
    case ST_REDUCE_SCATTER_BLOCK:
    case ST_GATHERV:
    case ST_SCATTERV:
    case ST_ALLGATHERV:
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
    stmt_failed (ld, st, G_MAXUINT, error);
  return ok;
}

/* A simple statement: a <let> and a <use> here (their only place; a <use>,
 * a quarter of a wavefront's events, spared run_stmt's frame), a world send
 * or receive by run_p2p_plain when its values allow, the others by run_stmt. */
static inline __attribute__ ((always_inline)) gboolean
run_simple (Loader *ld, const Stmt *st, GError **error)
{
  if (st->kind == ST_USE)
    {
      guint unbound = G_MAXUINT;
      if (G_LIKELY (pti_wsl_use_on (ld->ctx, ld->rank, st->rud, st->model, &unbound, error)))
        return TRUE;
      stmt_failed (ld, st, unbound, error);
      return FALSE;
    }
  if (st->kind == ST_LET)
    {
      double v = 0;
      if (!eval_arg (ld, st, &st->arg[0], &v, error))
        return FALSE;
      pti_symbols_set_inline (ld->symbols, st->slot, v);
      return TRUE;
    }
  if (st->world_p2p)
    {
      gboolean done = FALSE;
      gboolean ok = run_p2p_plain (ld, st, &done, error);
      if (G_LIKELY (done))
        {
          if (G_UNLIKELY (!ok))
            prefix_location (error, ld, st->line, st->element);
          return ok;
        }
    }
  return run_stmt (ld, st, error);
}

/* A rank's program is run by a small machine with an explicit stack of
 * blocks, rather than by recursion, so that it can stop after a batch of
 * device uses and resume when the evaluation asks for that rank's next
 * ones (the pull form: pti_context_set_source).  Between batches a rank
 * keeps only its stack, its variables and its requests no wait has named,
 * so a workload file of any length is held in a few hundred bytes per rank.
 *
 * <repeat count="N"> is regenerated: each repetition runs the body again
 * from the variables it began the block with, marked for the engine, which
 * may tell the source to skip repetitions it derived (skip_repetitions). */
typedef struct {
  const Block *block;
  const Stmt *owner;            /* the <for> or <repeat> this block belongs to, or NULL */
  gint64 trip, trips;           /* <for>, <repeat>: iterations begun, and in all */
  double from, step;            /* <for> */
  guint next;                   /* index of the next statement */
} Frame;

typedef struct {
  Frame *frames;
  guint n_frames, cap_frames;
  double *vars;                 /* values of the program variables while suspended */
  double *repeat_vars;          /* the variables when the open <repeat> began, or NULL */
  guint repeat_outstanding;     /* requests no wait had named when it began */
  GArray *outstanding;          /* its requests no wait has named (NULL: none yet) */
} RankRun;

/* Device uses a rank's program appends per pull, at least. */
#define PULL_BATCH 16

static void
push (RankRun *rr, const Block *block, const Stmt *owner)
{
  if (rr->n_frames == rr->cap_frames)
    {
      rr->cap_frames = MAX (4, 2 * rr->cap_frames);
      rr->frames = g_renew (Frame, rr->frames, rr->cap_frames);
    }
  rr->frames[rr->n_frames++] = (Frame) { .block = block, .owner = owner };
}

static void
rank_run_clear (RankRun *rr)
{
  g_clear_pointer (&rr->frames, g_free);
  g_clear_pointer (&rr->vars, g_free);
  g_clear_pointer (&rr->repeat_vars, g_free);
  g_clear_pointer (&rr->outstanding, g_array_unref);
  rr->n_frames = rr->cap_frames = 0;
}

static void
save_vars (const Loader *ld, double *into)
{
  pti_symbols_gather (ld->symbols, ld->var_slots->len, (const guint *) ld->var_slots->data, into);
}

static void
load_vars (const Loader *ld, const double *from)
{
  pti_symbols_scatter (ld->symbols, ld->var_slots->len, (const guint *) ld->var_slots->data, from);
}

/* At the end of a repetition: its requests must all be waited for within
 * it, or the next repetition would not be the same. */
static gboolean
repetition_closed (Loader *ld, RankRun *rr, const Stmt *st, GError **error)
{
  guint now = rr->outstanding ? rr->outstanding->len : 0;
  if (now == rr->repeat_outstanding)
    return TRUE;
  return stmt_error (error, ld, st, NULL, "a repetition of the block leaves %u request%s of its "
                     "own that no wait names (every repetition must be the same: wait for "
                     "what the block posts within it)", now - rr->repeat_outstanding,
                     now - rr->repeat_outstanding == 1 ? "" : "s");
}

/* Runs @rr (the rank ld->rank, its variables bound) until it has appended
 * at least PULL_BATCH device uses or is done. */
static gboolean
run_rank (Loader *ld, RankRun *rr, gboolean *done, GError **error)
{
  PtiEngine *engine = pti_session_engine (pti_wsl_session (ld->ctx));
  const guint64 *appended = pti_engine_rank_appended_counter (engine, ld->rank);
  guint64 budget = *appended + PULL_BATCH;
  while (rr->n_frames > 0)
    {
      Frame *f = &rr->frames[rr->n_frames - 1];
      if (f->next == f->block->n)
        {
          const Stmt *owner = f->owner;
          if (owner != NULL && owner->kind == ST_FOR && ++f->trip < f->trips)
            {
              pti_symbols_set_inline (ld->symbols, owner->slot, f->from + (double) f->trip * f->step);
              f->next = 0;
              continue;
            }
          if (owner != NULL && owner->kind == ST_REPEAT)
            {
              if (!repetition_closed (ld, rr, owner, error))
                return FALSE;
              if (++f->trip < f->trips)
                {
                  load_vars (ld, rr->repeat_vars);
                  pti_engine_repeat_next (engine, ld->rank);
                  f->next = 0;
                  continue;
                }
              g_clear_pointer (&rr->repeat_vars, g_free);
              if (!pti_repeat_end (ld->ctx, ld->rank, error))
                {
                  prefix_location (error, ld, owner->line, owner->element);
                  return FALSE;
                }
            }
          if (owner != NULL && owner->kind == ST_PHASE
              && !pti_phase_end (ld->ctx, ld->rank, owner->phase, error))
            {
              prefix_location (error, ld, owner->line, owner->element);
              return FALSE;
            }
          rr->n_frames--;
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
              return FALSE;
            if (loop.trips > 0)
              {
                pti_symbols_set_inline (ld->symbols, st->slot, loop.from);
                push (rr, &st->body, st);
                rr->frames[rr->n_frames - 1] = loop;
              }
            break;
          }
        case ST_IF:
          {
            if (!eval_arg (ld, st, &st->arg[0], &v, error))
              return FALSE;
            const Block *b = v != 0 ? &st->body : &st->orelse;
            /* A branch of one device use (the common guarded send or
             * receive) runs at once, without a frame. */
            if (b->n == 1 && b->items[0].simple)
              {
                if (!run_simple (ld, &b->items[0], error))
                  return FALSE;
                if (*appended >= budget)
                  return TRUE;
              }
            else if (b->n > 0)
              push (rr, b, NULL);
            break;
          }
        case ST_REPEAT:
          if (!eval_whole (ld, st, &st->arg[0], 1, MAX_EXACT, "a repetition count", &v, error))
            return FALSE;
          if (!pti_repeat_begin (ld->ctx, ld->rank, (guint64) v, error))
            {
              prefix_location (error, ld, st->line, st->element);
              return FALSE;
            }
          rr->repeat_vars = g_new (double, MAX (ld->var_slots->len, 1));
          save_vars (ld, rr->repeat_vars);
          rr->repeat_outstanding = rr->outstanding ? rr->outstanding->len : 0;
          push (rr, &st->body, st);
          rr->frames[rr->n_frames - 1].trips = (gint64) v;
          break;
        case ST_PHASE:
          if (!pti_phase_begin (ld->ctx, ld->rank, st->phase, error))
            {
              prefix_location (error, ld, st->line, st->element);
              return FALSE;
            }
          push (rr, &st->body, st);
          break;
        case ST_EVALUATE:
          /* The evaluation pulls what it needs: memory is bounded already. */
          break;
        default:
          if (!run_simple (ld, st, error))
            return FALSE;
          /* Only device uses append: a batch is complete after one. */
          if (*appended >= budget)
            return TRUE;
          break;
        }
    }
  *done = TRUE;
  return TRUE;
}

/* The source: per rank, its machine. */
typedef struct {
  Loader ld;
  Block program;
  RankRun *runs;
  guint n;
} Source;

static gboolean
pull_rank (PtiContext *ctx, guint rank, gpointer data, gboolean *done, GError **error)
{
  Source *src = data;
  Loader *ld = &src->ld;
  RankRun *rr = &src->runs[rank];
  guint nv = ld->var_slots->len;
  if (rr->vars == NULL)
    {
      push (rr, &src->program, NULL);
      rr->vars = g_new (double, MAX (nv, 1));
      for (guint i = 0; i < nv; i++)
        rr->vars[i] = NAN;        /* unbound until the program sets them */
    }
  ld->rank = rank;
  if (rr->outstanding == NULL)
    rr->outstanding = g_array_new (FALSE, FALSE, sizeof (PtiRequest));
  ld->outstanding = rr->outstanding;
  pti_symbols_set (ld->symbols, ld->slot_rank, rank);
  bind_comms (ld, rank);
  load_vars (ld, rr->vars);
  gboolean ok = run_rank (ld, rr, done, error);
  save_vars (ld, rr->vars);
  ld->outstanding = NULL;
  if (ok && *done)
    rank_run_clear (rr);
  return ok;
}

static void
skip_repetitions (PtiContext *ctx, guint rank, gpointer data, guint64 n)
{
  Source *src = data;
  RankRun *rr = &src->runs[rank];
  for (guint i = rr->n_frames; i > 0; i--)
    if (rr->frames[i - 1].owner != NULL && rr->frames[i - 1].owner->kind == ST_REPEAT)
      {
        rr->frames[i - 1].trip += (gint64) n;
        return;
      }
}

static void
source_free (gpointer data)
{
  Source *src = data;
  for (guint r = 0; r < src->n; r++)
    rank_run_clear (&src->runs[r]);
  g_free (src->runs);
  block_clear (&src->program);
  g_hash_table_unref (src->ld.constants);
  g_hash_table_unref (src->ld.fixed);
  g_array_unref (src->ld.var_slots);
  g_hash_table_unref (src->ld.comms);
  g_array_unref (src->ld.comm_slots);
  g_array_unref (src->ld.sizes);
  g_free (src->ld.file);
  g_free (src);
}

/* ---- the document -------------------------------------------------------- */

/* Compiles and evaluates the expression of @attr: load-time only. */
static gboolean
eval_load_attr (Loader *ld, const xmlNode *node, const char *attr, double *value, GError **error)
{
  Arg a;
  if (!compile_attr (ld, node, attr, TRUE, &a, error))
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

/* `value` of a <param> or <derive>, and of a <param>, `min` and `max` if
 * it is a range (*@ranged). */
static gboolean
eval_binding (Loader *ld, const xmlNode *node, char **name, double *value, gboolean *ranged,
              double *low, double *high, GError **error)
{
  *name = pti_xml_attr (node, "name");
  if (*name == NULL)
    return pti_node_error (error, node, "the name attribute is required");
  if (strcmp (*name, "rank") == 0 || strcmp (*name, "nprocs") == 0)
    return pti_node_error (error, node, "'%s' is set by pti and cannot be a parameter", *name);
  gboolean has_min = xmlHasProp (node, (const xmlChar *) "min") != NULL;
  gboolean has_max = xmlHasProp (node, (const xmlChar *) "max") != NULL;
  *ranged = has_min || has_max;
  if (*ranged && strcmp ((const char *) node->name, "param") != 0)
    return pti_node_error (error, node, "a derived value takes a single value, not a range "
                           "(min, max): give the range to the parameters it derives from");
  if (*ranged && !(has_min && has_max))
    return pti_node_error (error, node, "a range needs both min and max (found only %s)",
                           has_min ? "min" : "max");
  return eval_load_attr (ld, node, "value", value, error)
         && (!*ranged || (eval_load_attr (ld, node, "min", low, error)
                          && eval_load_attr (ld, node, "max", high, error)));
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

/* The name and parent of a <split>, <dup> or <create>: a new name whose
 * NAME_rank and NAME_size are free, and a parent defined before (NULL: the
 * world). */
static gboolean
comm_names (Loader *ld, const xmlNode *node, char **name_out, PtiComm **parent, GError **error)
{
  const char *el = (const char *) node->name;
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
    return pti_node_error (error, node, "%s '%s' binds %s and %s, but one of them is already "
                           "a parameter or derived value", el, name, rank_name, size_name);
  *parent = NULL;
  if (parent_name != NULL && strcmp (parent_name, "world") != 0)
    {
      *parent = g_hash_table_lookup (ld->comms, parent_name);
      if (*parent == NULL)
        return pti_node_error (error, node, "unknown parent communicator '%s' (a parent is "
                               "\"world\" or an earlier <split>, <dup> or <create>)",
                               parent_name);
    }
  if (pti_context_get_processes (ld->ctx) == 0)
    return pti_node_error (error, node, "<processes> must come before <%s>", el);
  *name_out = g_steal_pointer (&name);
  return TRUE;
}

/* Makes NAME_rank and NAME_size of communicator @comm known to the program. */
/* A communicator's model="..." (pti_comm_set_model). */
static gboolean
comm_model (Loader *ld, const xmlNode *node, PtiComm *comm, GError **error)
{
  g_autofree char *model = pti_xml_attr (node, "model");
  if (model == NULL)
    return TRUE;
  PtiModelChoice k = pti_context_model_choice (ld->ctx, model, error);
  if (k != PTI_MODEL_CHOICE_INVALID && pti_comm_set_model (ld->ctx, comm, k, error))
    return TRUE;
  prefix_location (error, ld, xmlGetLineNo (node), (const char *) node->name);
  return FALSE;
}

static void
register_comm (Loader *ld, const char *name, PtiComm *comm)
{
  char *rank_name = g_strdup_printf ("%s_rank", name);
  char *size_name = g_strdup_printf ("%s_size", name);
  CommSlots slots = {
    comm, pti_symbols_intern (ld->symbols, rank_name), pti_symbols_intern (ld->symbols, size_name),
  };
  g_array_append_val (ld->comm_slots, slots);
  g_hash_table_insert (ld->comms, g_strdup (name), comm);
  g_hash_table_add (ld->constants, rank_name);
  g_hash_table_add (ld->constants, size_name);
}

/* <split name colour key parent/>: evaluated now, for every rank. */
static gboolean
load_split (Loader *ld, const xmlNode *node, GError **error)
{
  g_autofree char *name = NULL;
  PtiComm *parent = NULL;
  if (!comm_names (ld, node, &name, &parent, error))
    return FALSE;
  guint n = pti_context_get_processes (ld->ctx);
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
  register_comm (ld, name, comm);
  return comm_model (ld, node, comm, error);
}

/* <dup name parent/> and <create name parent count member/>: MPI_Comm_dup,
 * and MPI_Comm_create of the group whose member i (0 .. count - 1) is the
 * world rank `member` gives with `i` bound to i. */
static gboolean
load_dup_create (Loader *ld, const xmlNode *node, GError **error)
{
  const char *el = (const char *) node->name;
  g_autofree char *name = NULL;
  PtiComm *parent = NULL;
  if (!comm_names (ld, node, &name, &parent, error))
    return FALSE;
  PtiComm *comm = NULL;
  if (el[0] == 'd')
    comm = pti_comm_dup (ld->ctx, parent, name, error);
  else
    {
      Arg count = { 0 }, member = { 0 };
      gboolean ok = compile_attr (ld, node, "count", TRUE, &count, error)
                    && compile_attr (ld, node, "member", TRUE, &member, error);
      guint slot_i = pti_symbols_intern (ld->symbols, "i");
      double n = 0;
      if (ok && (!pti_expr_check (count.expr, ld->symbols, &n, error)
                 || n != floor (n) || n < 1 || n > pti_context_get_processes (ld->ctx)))
        {
          if (error != NULL && *error == NULL)
            g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "the count must be a whole number "
                         "from 1 to the number of processes (%u), not %.17g",
                         pti_context_get_processes (ld->ctx), n);
          prefix_expr (error, ld, xmlGetLineNo (node), el, &count);
          ok = FALSE;
        }
      g_autofree guint *members = g_new0 (guint, ok ? (gsize) n : 1);
      for (guint i = 0; ok && i < (guint) n; i++)
        {
          double v = 0;
          pti_symbols_set (ld->symbols, slot_i, i);
          ok = pti_expr_check (member.expr, ld->symbols, &v, error);
          if (ok && (v != floor (v) || v < 0 || v >= pti_context_get_processes (ld->ctx)))
            {
              g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "member %u is %.17g, not a rank "
                           "(%u processes)", i, v, pti_context_get_processes (ld->ctx));
              ok = FALSE;
            }
          if (!ok)
            prefix_expr (error, ld, xmlGetLineNo (node), el, &member);
          else
            members[i] = (guint) v;
        }
      pti_symbols_set (ld->symbols, slot_i, NAN);
      if (ok)
        comm = pti_comm_create (ld->ctx, parent, name, (guint) n, members, error);
      pti_expr_free (count.expr);
      pti_expr_free (member.expr);
      if (!ok)
        return FALSE;
    }
  if (comm == NULL)
    {
      prefix_location (error, ld, xmlGetLineNo (node), el);
      return FALSE;
    }
  register_comm (ld, name, comm);
  return comm_model (ld, node, comm, error);
}

/* <assert name test/>: checked after the evaluation (pti_assert). */
static gboolean
load_assert (Loader *ld, const xmlNode *node, GError **error)
{
  g_autofree char *name = pti_xml_attr (node, "name");
  g_autofree char *test = pti_xml_attr (node, "test");
  if (name == NULL || test == NULL)
    return pti_node_error (error, node, "the name and test attributes are required");
  g_autofree char *origin = g_strdup_printf ("%s:%ld", ld->file, xmlGetLineNo (node));
  return pti_wsl_assert_at (ld->ctx, name, test, origin, error);
}

/* <term phase name value bound/>: a modelling assertion (ptivalidate). */
static gboolean
load_term (Loader *ld, const xmlNode *node, GError **error)
{
  g_autofree char *phase = pti_xml_attr (node, "phase");
  g_autofree char *name = pti_xml_attr (node, "name");
  g_autofree char *value = pti_xml_attr (node, "value");
  g_autofree char *bound = pti_xml_attr (node, "bound");
  if (phase == NULL || name == NULL || value == NULL)
    return pti_node_error (error, node, "the phase, name and value attributes are required");
  double b = NAN;
  if (bound != NULL) {
    char *end;
    b = g_ascii_strtod (bound, &end);
    if (*bound == '\0' || *end != '\0' || !(b >= 0) || isinf (b))
      return pti_node_error (error, node, "bound=\"%s\": expected a relative error >= 0 (0.05 is 5%%)",
                             bound);
  }
  g_autofree char *origin = g_strdup_printf ("%s:%ld", ld->file, xmlGetLineNo (node));
  return pti_wsl_term_add (ld->ctx, phase, name, value, b, origin, error);
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
          double value, low = 0, high = 0;
          gboolean ranged = FALSE;
          if (!eval_binding (ld, c, &name, &value, &ranged, &low, &high, error))
            return FALSE;
          g_autofree char *origin = ranged
            ? g_strdup_printf ("%s:%ld: <param name=\"%s\">", ld->file, xmlGetLineNo (c), name)
            : NULL;
          gboolean ok = el[0] != 'p' ? pti_context_set_param (ld->ctx, name, value, error)
            : ranged ? pti_context_declare_param_range_at (ld->ctx, name, low, value, high,
                                                           origin, error)
            : pti_context_declare_param (ld->ctx, name, value, error);
          if (!ok)
            {
              prefix_location (error, ld, xmlGetLineNo (c), el);
              return FALSE;
            }
          g_hash_table_add (ld->fixed,
                            GUINT_TO_POINTER (pti_symbols_intern (ld->symbols, name)));
          g_hash_table_add (ld->constants, g_steal_pointer (&name));
        }
      else if (strcmp (el, "processes") == 0)
        {
          if (!load_processes (ld, c, error))
            return FALSE;
          g_hash_table_add (ld->fixed,
                            GUINT_TO_POINTER (pti_symbols_intern (ld->symbols, "nprocs")));
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
      else if (strcmp (el, "dup") == 0 || strcmp (el, "create") == 0)
        {
          if (!load_dup_create (ld, c, error))
            return FALSE;
        }
      else if (strcmp (el, "assert") == 0)
        {
          if (!load_assert (ld, c, error))
            return FALSE;
        }
      else if (strcmp (el, "term") == 0)
        {
          if (!load_term (ld, c, error))
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

xmlDoc *
pti_workload_file_read (const char *path, GError **error)
{
  xmlSchema *schema = pti_xml_schema_from_memory (pti_workload_xsd, "workload.xsd", error);
  if (schema == NULL)
    return NULL;
  g_autoptr (xmlDoc) doc = pti_xml_read_file (path, error);
  if (doc == NULL)
    return NULL;
  xmlNode *root = xmlDocGetRootElement (doc);
  if (strcmp ((const char *) root->name, "system") == 0) {
    pti_node_error (error, root, "this is a system (HMC) file, not a workload file: the "
                    "workload comes second (ptieval SYSTEM.xml WORKLOAD.xml)");
    return NULL;
  }
  if (strcmp ((const char *) root->name, "workload") != 0 || root->ns != NULL) {
    pti_node_error (error, root, "not a workload file: its root element must be "
                    "<workload> without a namespace (schemas/workload.xsd)");
    return NULL;
  }
  if (!pti_xml_validate_doc (schema, doc, "workload.xsd", error))
    return NULL;
  return g_steal_pointer (&doc);
}

gboolean
pti_workload_file_build (PtiContext *ctx, const char *path, GError **error)
{
  g_return_val_if_fail (ctx != NULL && path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  g_autoptr (xmlDoc) doc = pti_workload_file_read (path, error);
  if (doc == NULL)
    return FALSE;

  Source *src = g_new0 (Source, 1);
  Loader *ld = &src->ld;
  *ld = (Loader) {
    .ctx = ctx,
    .symbols = pti_context_get_symbols (ctx),
    .file = g_strdup (path),
    .ruds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                   (GDestroyNotify) pti_rud_unref),
    .constants = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
    .fixed = g_hash_table_new (g_direct_hash, g_direct_equal),
    .var_slots = g_array_new (FALSE, FALSE, sizeof (guint)),
    .comms = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
    .comm_slots = g_array_new (FALSE, FALSE, sizeof (CommSlots)),
    .sizes = g_array_new (FALSE, FALSE, sizeof (guint64)),
  };
  ld->slot_rank = pti_symbols_intern (ld->symbols, "rank");

  gboolean ok = build (ld, xmlDocGetRootElement (doc), &src->program, error);
  g_clear_pointer (&doc, xmlFreeDoc);
  g_clear_pointer (&ld->ruds, g_hash_table_unref);   /* statements hold their own references */
  if (!ok)
    {
      source_free (src);
      return FALSE;
    }
  /* The program runs rank by rank as the evaluation pulls it. */
  src->n = pti_context_get_processes (ctx);
  src->runs = g_new0 (RankRun, src->n);
  if (!pti_wsl_set_source (ctx, pull_rank, skip_repetitions, src, source_free, error))
    {
      source_free (src);
      return FALSE;
    }
  ctx->regenerating = TRUE;
  return TRUE;
}
