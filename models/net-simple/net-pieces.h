/* The latency/bandwidth form of net-simple with its size pieces: read once
 * here for the two models that price a lone message this way, net-simple
 * and net-node (models/net-simple/README.md, models/net-node/README.md).
 * Internal to the built-in models' library (hidden symbols). */
#pragma once

#include <pti/hmi.h>

/* The schemas' limit: a few pieces in practice, so a linear scan per message. */
#define PTI_NET_MAX_PIECES 64

typedef struct {
  guint64 up_to;          /* bytes, inclusive */
  double latency;         /* s */
  double bandwidth;       /* bytes/s */
  double share;           /* net-node: the node's copy capacity a lone message uses; 0 if none */
} PtiNetPiece;

typedef struct {
  double latency;         /* s, L above the last piece */
  double bandwidth;       /* bytes/s, B above the last piece */
  double share;           /* net-node's share above the last piece; 0 if none */
  double send_overhead;   /* s, o_s */
  double recv_overhead;   /* s, o_r */
  guint64 eager_limit;    /* bytes */
  guint n_pieces;
  PtiNetPiece pieces[PTI_NET_MAX_PIECES]; /* by increasing up_to */
} PtiNetPieces;

/* Reads latency, bandwidth, send_overhead, recv_overhead, the <piece>
 * elements (each with its latency, bandwidth and, where given, share),
 * share and eager_limit from @config, an element its model's schema has
 * validated.  A piece without a share takes the top-level one.  FALSE with
 * @error naming file, line and element when a piece is out of order or a
 * share is not in (0, 1]. */
G_GNUC_INTERNAL gboolean pti_net_pieces_read (const xmlNode *config, PtiNetPieces *out,
                                              GError **error);

/* Reads eager_limit (default 65536 bytes) into @out->eager_limit. */
G_GNUC_INTERNAL gboolean pti_net_pieces_read_eager_limit (const xmlNode *config,
                                                          PtiNetPieces *out, GError **error);

/* The piece that prices a message of @bytes: the first whose up_to is at
 * least @bytes, or NULL for the top-level latency and bandwidth. */
static inline const PtiNetPiece *
pti_net_pieces_find (const PtiNetPieces *p, guint64 bytes)
{
  for (guint i = 0; i < p->n_pieces; i++)
    if (bytes <= p->pieces[i].up_to)
      return &p->pieces[i];
  return NULL;
}
