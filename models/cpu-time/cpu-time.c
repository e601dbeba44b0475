/* cpu-time: computations given as a measured time or as flops.
 *
 * Replayed traces say how much a computation is in the terms they were
 * recorded in: a captured run or a Dimemas trace as the time a burst took
 * on the host that ran it, a SimGrid time-independent trace as a number of
 * floating-point operations.  This model prices both on the target CPU
 * (README.md has the equations):
 *
 *   time burst of t s (measured):   t / speed_ratio     (Dimemas' CPU ratio)
 *   f flops:                        f / flop_rate       (SimGrid's host speed)
 *
 * It prices no RUD: its ops table has neither rud_compile nor cost (HMI CPU
 * ops version 2, a model of bursts only).  A reduction's arithmetic inside
 * a collective is then priced as one flop per element (wsl/COLLECTIVES.md).
 * Both prices are one division: the hot path allocates only to report that
 * the configuration lacks what a use needs. */
#include <pti/hmi.h>

#include <math.h>

extern const char pti_cpu_time_xsd[];

typedef struct {
  double speed_ratio;     /* target speed / measuring host's speed; 0: not configured */
  double flop_rate;       /* flops per s; 0: not configured */
} CpuTime;

static gboolean
cpu_time_configure (gpointer instance, const xmlNode *config, GError **error)
{
  CpuTime *self = instance;
  if (pti_config_child (config, "speed_ratio") != NULL) {
    if (!pti_config_get_number (config, "speed_ratio", PTI_RANGE_SENSE_FASTER_WHEN_HIGHER,
                                &self->speed_ratio, error))
      return FALSE;
    if (!(isfinite (self->speed_ratio) && self->speed_ratio > 0))
      return pti_node_error (error, pti_config_child (config, "speed_ratio"),
                             "speed_ratio must be a positive number, not %g", self->speed_ratio);
  }
  if (pti_config_child (config, "flop_rate") != NULL
      && !pti_config_get_flop_rate (config, "flop_rate", &self->flop_rate, error))
    return FALSE;
  if (self->speed_ratio <= 0 && self->flop_rate <= 0)
    return pti_node_error (error, config,
                           "give <speed_ratio> (for computations given as a time), <flop_rate "
                           "unit=\"GFlop/s\"> (for computations given as flops), or both");
  return TRUE;
}

static gboolean
cpu_time_time_cost (gconstpointer instance, double measured, double *seconds, GError **error)
{
  const CpuTime *self = instance;
  if (G_UNLIKELY (self->speed_ratio <= 0)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "its <cpu_time> has no <speed_ratio>, so a computation given as a measured "
                 "time cannot be priced: add <speed_ratio> (this CPU's speed relative to the "
                 "host that measured it; 1 for the same host)");
    return FALSE;
  }
  *seconds = measured / self->speed_ratio;
  return TRUE;
}

static gboolean
cpu_time_flops_cost (gconstpointer instance, double flops, double *seconds, GError **error)
{
  const CpuTime *self = instance;
  if (G_UNLIKELY (self->flop_rate <= 0)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "its <cpu_time> has no <flop_rate>, so a computation given as flops cannot "
                 "be priced: add <flop_rate unit=\"GFlop/s\">");
    return FALSE;
  }
  *seconds = flops / self->flop_rate;
  return TRUE;
}

static const PtiCpuOps cpu_time_ops = {
  .version = PTI_CPU_OPS_VERSION,
  .time_cost = cpu_time_time_cost,
  .flops_cost = cpu_time_flops_cost,
};

static const PtiModelParam cpu_time_params[] = {
  { "speed_ratio", "ratio (no unit)", "none: computations given as a time are refused",
    "this CPU's speed relative to the host where computations given as a time were measured "
    "(Dimemas' CPU ratio): t s there take t / speed_ratio s here; 1 replays on the same host" },
  { "flop_rate", "flop rate (unit attribute: Flop/s, KFlop/s, MFlop/s, GFlop/s, TFlop/s)",
    "none: computations given as flops are refused",
    "floating-point operations per second (SimGrid's host speed): f flops take "
    "f / flop_rate s" },
  { NULL },
};

const PtiModelDesc pti_model_cpu_time = {
  .abi_version = PTI_HMI_ABI_VERSION,
  .struct_size = sizeof (PtiModelDesc),
  .name = "cpu-time",
  .kind = "cpu",
  .config_element = "cpu_time",
  .summary = "computations given as a measured time (scaled by a speed ratio) or as flops",
  .description =
    "cpu-time prices the computations of replayed traces, which give each burst\n"
    "either as the time it took on the host where it was measured (pti captures,\n"
    "Dimemas .dim traces: pti_use_time) or as a number of floating-point\n"
    "operations (SimGrid time-independent traces: pti_use_flops):\n"
    "\n"
    "  time(burst measured at t s) = t / speed_ratio\n"
    "  time(f flops)               = f / flop_rate\n"
    "\n"
    "speed_ratio is this CPU's speed relative to the measuring host (Dimemas'\n"
    "CPU ratio; 2 means twice as fast, 1 the same host); flop_rate is in the\n"
    "required unit of its unit attribute (Flop/s ... TFlop/s, decimal), as\n"
    "SimGrid's host speed.  Configure one or both: a computation of a kind the\n"
    "configuration cannot price is an error naming what to add.  It prices no\n"
    "RUD (use cpu-clc for C-operation counts); the arithmetic of a reduction\n"
    "inside a collective is priced as one flop per 8-byte element.  Like\n"
    "Dimemas and SimGrid, it scales every burst alike: no memory hierarchy,\n"
    "no contention for the CPU between processes of one node.",
  .config_schema = pti_cpu_time_xsd,
  .params = cpu_time_params,
  .instance_size = sizeof (CpuTime),
  .configure = cpu_time_configure,
  .cpu = &cpu_time_ops,
  /* A burst divided by a speed ratio: it scales with the speed. */
  .changes = pti_cpu_timing_changes,
};
