/* sg-compare: the SimGrid side of pti's net-contention validation
 * (tests/simgrid/compare.sh, README.md beside this file).
 *
 * One program defines every comparison case, as a list of point-to-point
 * operations per rank, and either
 *   - prints it as a pti workload file (--workload), or
 *   - runs it through SimGrid (S4U) on a platform file, one actor per rank,
 *     and prints the time each rank ends and the largest of them,
 * so that pti and SimGrid always run the same pattern.
 *
 *   sg-compare CASE [OPTIONS] --workload > case.xml
 *   sg-compare CASE [OPTIONS] PLATFORM.xml [--cfg=...]... [--routes]
 *
 * Cases (n = --bytes, P = --hosts):
 *   shared-link   ranks 0 and 1 send n bytes to rank 2: one shared link
 *   disjoint      0<->1 and 2<->3 exchange n bytes: disjoint routes
 *   incast        ranks 1..F send n bytes to rank 0 (F = --fan)
 *   transpose     P = m*m hosts, rank m*a+b sends n bytes to rank m*b+a (a != b),
 *                 m = --leaf: on a fat tree with m hosts per leaf switch
 *                 every flow of one leaf goes to the same destination residue
 *   down-cable    fat tree: six flows from three leaves to two hosts of leaf 1
 *                 (see build_case)
 *   alltoall      every rank sends n bytes to every other rank
 *   shift         torus --dims=X,Y,..: every rank sends n bytes to the rank at
 *                 its coordinates + --shift=a,b,.. (modulo the dimensions)
 *   pingpong      rank 0 and rank P-1 exchange n bytes --rounds times
 *
 * Every receive is posted before (or when) its message is sent; each
 * mailbox also has its receiver declared as permanent receiver, so a message
 * starts flowing as soon as it is sent (pti's eager protocol).
 *
 * Latency.  SimGrid's CM02 shares a link between flows in proportion to the
 * inverse of each flow's route latency (its "RTT unfairness", penalty =
 * latency when network/weight-S is 0), whereas pti's net-contention shares
 * max-min with equal weights.  The platform's links are therefore given no
 * latency, which makes CM02 plain max-min, and the latency pti charges after
 * a message's bandwidth phase,
 *     hops x link_latency + switches x switch_latency,
 * is added here: hops is the number of links of SimGrid's own route, plus
 * on a torus the two host-to-router links pti has and SimGrid's TorusZone
 * has not (its hosts are the routers), and switches is hops - 1 (the
 * switches or routers between links).  A receive ends when the last of its
 * messages has arrived; a send ends at once (pti with zero overheads).
 *
 * Because SimGrid's torus has no host links, a torus case must not make a
 * host send (or receive) two messages at once: pti would share its host
 * link, SimGrid would not.  */

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

enum class OpKind { SEND, RECV, IRECV, WAITALL };

struct Op {
  OpKind kind;
  int peer = -1;
  unsigned long long bytes = 0;
};

struct Options {
  std::string kase;
  std::string platform;
  std::string topology = "crossbar"; // crossbar, fat_tree, torus: the latency rule
  int hosts = 16;
  unsigned long long bytes = 16ULL << 20;
  int fan = 8;
  int leaf = 4;
  int rounds = 10;
  std::vector<int> dims{4, 4, 4};
  std::vector<int> shift{1, 0, 0};
  double link_lat = 0;   // s
  double switch_lat = 0; // s
  bool workload = false;
  bool routes = false;
};

std::vector<int> parse_list(const std::string& s)
{
  std::vector<int> v;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    v.push_back(std::stoi(item));
  return v;
}

/* The case as operations per rank. */
std::vector<std::vector<Op>> build_case(const Options& o)
{
  const int P = o.hosts;
  std::vector<std::vector<Op>> ops(P);
  const auto n = o.bytes;
  auto need = [&](int k) {
    if (P < k)
      throw std::invalid_argument(o.kase + " needs at least " + std::to_string(k) + " hosts");
  };
  auto send = [&](int s, int d) { ops[s].push_back({OpKind::SEND, d, n}); };
  auto irecv = [&](int d, int s) { ops[d].push_back({OpKind::IRECV, s, n}); };
  auto recv = [&](int d, int s) { ops[d].push_back({OpKind::RECV, s, n}); };
  auto waitall = [&](int r) { ops[r].push_back({OpKind::WAITALL, -1, 0}); };

  if (o.kase == "shared-link") {
    need(3);
    irecv(2, 0);
    irecv(2, 1);
    waitall(2);
    send(0, 2);
    send(1, 2);
  } else if (o.kase == "disjoint") {
    need(4);
    for (int a : {0, 2}) {
      irecv(a, a + 1);
      irecv(a + 1, a);
      send(a, a + 1);
      send(a + 1, a);
      waitall(a);
      waitall(a + 1);
    }
  } else if (o.kase == "incast") {
    need(o.fan + 1);
    for (int s = 1; s <= o.fan; s++)
      irecv(0, s);
    waitall(0);
    for (int s = 1; s <= o.fan; s++)
      send(s, 0);
  } else if (o.kase == "transpose") {
    const int m = o.leaf;
    if (m * m != P)
      throw std::invalid_argument("transpose needs --hosts = --leaf squared");
    for (int s = 0; s < P; s++) {
      int a = s / m, b = s % m;
      int d = m * b + a;
      if (d == s)
        continue;
      irecv(d, s);
      send(s, d);
    }
    for (int r = 0; r < P; r++)
      if (r / m != r % m)
        waitall(r);
  } else if (o.kase == "down-cable") {
    /* fat tree with m hosts per leaf (m = --leaf >= 3, >= 4 leaves): the
     * even hosts of leaves 0, 2 and 3 send to hosts m and m+2 of leaf 1,
     * alternately.  Both destinations are reached through the same spine
     * (d-mod-k); which parallel cable down from it each flow takes decides
     * whether six flows or three share one */
    const int m = o.leaf;
    if (m < 3 || P < 4 * m)
      throw std::invalid_argument("down-cable needs --leaf >= 3 and --hosts >= 4 * --leaf");
    int i = 0;
    for (int leaf : {0, 2, 3})
      for (int s = leaf * m; s < leaf * m + m && s < leaf * m + 4; s += 2) {
        int d = m + 2 * (i++ % 2);
        irecv(d, s);
        send(s, d);
      }
    waitall(m);
    waitall(m + 2);
  } else if (o.kase == "alltoall") {
    need(2);
    for (int r = 0; r < P; r++)
      for (int i = 1; i < P; i++)
        irecv(r, (r - i + P) % P);
    for (int r = 0; r < P; r++)
      for (int i = 1; i < P; i++)
        send(r, (r + i) % P);
    for (int r = 0; r < P; r++)
      waitall(r);
  } else if (o.kase == "shift") {
    if (o.dims.size() != o.shift.size())
      throw std::invalid_argument("--shift needs one value per dimension of --dims");
    int total = 1;
    for (int d : o.dims)
      total *= d;
    if (total != P)
      throw std::invalid_argument("shift needs --hosts = the product of --dims");
    for (int s = 0; s < P; s++) {
      /* coordinate i of rank r is (r / (d0*...*d(i-1))) % di, x first */
      int d = 0, stride = 1, rest = s;
      for (size_t i = 0; i < o.dims.size(); i++) {
        int c = rest % o.dims[i];
        rest /= o.dims[i];
        d += ((c + o.shift[i]) % o.dims[i] + o.dims[i]) % o.dims[i] * stride;
        stride *= o.dims[i];
      }
      if (d == s)
        continue;
      irecv(d, s);
      send(s, d);
    }
    for (int r = 0; r < P; r++)
      if (std::any_of(ops[r].begin(), ops[r].end(), [](const Op& x) { return x.kind == OpKind::IRECV; }))
        waitall(r);
  } else if (o.kase == "pingpong") {
    need(2);
    const int a = 0, b = P - 1;
    for (int i = 0; i < o.rounds; i++) {
      send(a, b);
      recv(b, a);
      send(b, a);
      recv(a, b);
    }
  } else {
    throw std::invalid_argument("unknown case '" + o.kase + "'");
  }
  /* every rank's irecvs must come before its sends: reorder stably so that a
   * rank posts all its receives first (pti and SimGrid alike) */
  for (auto& v : ops)
    if (std::any_of(v.begin(), v.end(), [](const Op& x) { return x.kind == OpKind::WAITALL; }))
      std::stable_partition(v.begin(), v.end(), [](const Op& x) { return x.kind == OpKind::IRECV; });
  return ops;
}

void print_workload(const Options& o, const std::vector<std::vector<Op>>& ops)
{
  std::printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<!-- Generated by tests/simgrid/sg-compare %s: do not edit. -->\n"
              "<workload name=\"sg-%s\">\n"
              "  <processes count=\"%d\"/>\n"
              "  <program>\n",
              o.kase.c_str(), o.kase.c_str(), o.hosts);
  for (size_t r = 0; r < ops.size(); r++) {
    if (ops[r].empty())
      continue;
    std::printf("    <if test=\"rank == %zu\">\n", r);
    for (const Op& x : ops[r]) {
      switch (x.kind) {
        case OpKind::SEND:
          std::printf("      <send to=\"%d\" bytes=\"%llu\"/>\n", x.peer, x.bytes);
          break;
        case OpKind::RECV:
          std::printf("      <recv from=\"%d\" bytes=\"%llu\"/>\n", x.peer, x.bytes);
          break;
        case OpKind::IRECV:
          std::printf("      <irecv from=\"%d\" bytes=\"%llu\"/>\n", x.peer, x.bytes);
          break;
        case OpKind::WAITALL:
          std::printf("      <waitall/>\n");
          break;
      }
    }
    std::printf("    </if>\n");
  }
  std::printf("  </program>\n</workload>\n");
}

/* ---- SimGrid side ------------------------------------------------------ */

int payload; // what messages carry: nothing but their size matters

struct Sim {
  Options o;
  std::vector<sg4::Host*> hosts;
  std::vector<double> end;                 // per rank
  std::map<std::pair<int, int>, double> lat; // route latency per (src, dst)

  sg4::Mailbox* box(int s, int d) { return sg4::Mailbox::by_name("m" + std::to_string(s) + "-" + std::to_string(d)); }

  /* switches (or routers) crossed by a route of @hops links (pti's count) */
  static int switches(int hops) { return hops > 0 ? hops - 1 : 0; }

  double route_latency(int s, int d)
  {
    auto key = std::make_pair(s, d);
    auto it  = lat.find(key);
    if (it != lat.end())
      return it->second;
    std::vector<sg4::Link*> links;
    double l = 0;
    hosts[s]->route_to(hosts[d], links, &l);
    int h = static_cast<int>(links.size());
    /* SimGrid's TorusZone links routers directly (a host is its router);
     * pti's torus also has each host's link to its router, crossed at both
     * ends: two more links, and the routers of both ends */
    if (o.topology == "torus" && h > 0)
      h += 2;
    double v = h * o.link_lat + switches(h) * o.switch_lat;
    lat[key] = v;
    return v;
  }

  void rank_main(int r, const std::vector<Op>& ops)
  {
    struct Pending {
      sg4::CommPtr comm;
      int src;
    };
    std::vector<Pending> posted;
    for (const Op& x : ops) {
      switch (x.kind) {
        case OpKind::SEND:
          box(r, x.peer)->put_init(&payload, x.bytes)->detach();
          break;
        case OpKind::IRECV: {
          void* data = nullptr;
          posted.push_back({box(x.peer, r)->get_async<void>(reinterpret_cast<void**>(&data)), x.peer});
          break;
        }
        case OpKind::RECV: {
          void* data   = nullptr;
          auto c       = box(x.peer, r)->get_async<void>(reinterpret_cast<void**>(&data));
          c->wait();
          double arrive = c->get_finish_time() + route_latency(x.peer, r);
          if (arrive > sg4::Engine::get_clock())
            sg4::this_actor::sleep_until(arrive);
          break;
        }
        case OpKind::WAITALL: {
          double arrive = sg4::Engine::get_clock();
          for (auto& p : posted) {
            p.comm->wait();
            arrive = std::max(arrive, p.comm->get_finish_time() + route_latency(p.src, r));
          }
          posted.clear();
          if (arrive > sg4::Engine::get_clock())
            sg4::this_actor::sleep_until(arrive);
          break;
        }
      }
    }
    end[r] = sg4::Engine::get_clock();
  }
};

void usage(const char* msg)
{
  std::fprintf(stderr,
               "sg-compare: %s\n"
               "usage: sg-compare CASE [--hosts=P] [--bytes=N] [--fan=F] [--leaf=M] [--rounds=R]\n"
               "                  [--dims=X,Y,Z] [--shift=A,B,C] [--topology=crossbar|fat_tree|torus]\n"
               "                  [--link-lat=S] [--switch-lat=S] (--workload | PLATFORM.xml [--routes] [--cfg=...])\n"
               "cases: shared-link disjoint incast transpose down-cable alltoall shift pingpong\n",
               msg);
  std::exit(2);
}

} // namespace

int main(int argc, char** argv)
{
  /* --workload needs no SimGrid: look for it before the engine eats argv */
  bool workload_only = false;
  for (int i = 1; i < argc; i++)
    if (std::strcmp(argv[i], "--workload") == 0)
      workload_only = true;

  std::unique_ptr<sg4::Engine> engine;
  if (!workload_only)
    engine = std::make_unique<sg4::Engine>(&argc, argv); // consumes --cfg=... and --log=...

  Options o;
  o.workload = workload_only;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto val      = [&](const char* name) -> const char* {
      size_t len = std::strlen(name);
      if (a.compare(0, len, name) == 0 && a.size() > len && a[len] == '=')
        return argv[i] + len + 1;
      return nullptr;
    };
    const char* v;
    try {
      if (a == "--workload")
        continue;
      else if (a == "--routes")
        o.routes = true;
      else if ((v = val("--hosts")))
        o.hosts = std::stoi(v);
      else if ((v = val("--bytes")))
        o.bytes = std::stoull(v);
      else if ((v = val("--fan")))
        o.fan = std::stoi(v);
      else if ((v = val("--leaf")))
        o.leaf = std::stoi(v);
      else if ((v = val("--rounds")))
        o.rounds = std::stoi(v);
      else if ((v = val("--dims")))
        o.dims = parse_list(v);
      else if ((v = val("--shift")))
        o.shift = parse_list(v);
      else if ((v = val("--topology")))
        o.topology = v;
      else if ((v = val("--link-lat")))
        o.link_lat = std::stod(v);
      else if ((v = val("--switch-lat")))
        o.switch_lat = std::stod(v);
      else if (a.compare(0, 2, "--") == 0)
        usage(("unknown option " + a).c_str());
      else if (o.kase.empty())
        o.kase = a;
      else if (o.platform.empty())
        o.platform = a;
      else
        usage(("unexpected argument " + a).c_str());
    } catch (const std::exception&) {
      usage(("bad value in " + a).c_str());
    }
  }
  if (o.kase.empty())
    usage("no case given");
  if (o.topology != "crossbar" && o.topology != "fat_tree" && o.topology != "torus")
    usage("--topology must be crossbar, fat_tree or torus");

  std::vector<std::vector<Op>> ops;
  try {
    ops = build_case(o);
  } catch (const std::exception& e) {
    usage(e.what());
  }
  if (o.workload) {
    print_workload(o, ops);
    return 0;
  }
  if (o.platform.empty())
    usage("no platform file given (or --workload)");

  engine->load_platform(o.platform);
  Sim sim;
  sim.o = o;
  for (int r = 0; r < o.hosts; r++) {
    sg4::Host* h = sg4::Host::by_name_or_null("h" + std::to_string(r));
    if (h == nullptr)
      usage(("the platform has no host h" + std::to_string(r)).c_str());
    sim.hosts.push_back(h);
  }
  sim.end.assign(o.hosts, 0.0);

  std::vector<sg4::ActorPtr> actors(o.hosts);
  for (int r = 0; r < o.hosts; r++)
    actors[r] = sg4::Actor::create("rank" + std::to_string(r), sim.hosts[r],
                                   [&sim, r, &ops]() { sim.rank_main(r, ops[r]); });
  /* permanent receivers: messages flow as soon as they are sent (eager) */
  for (int r = 0; r < o.hosts; r++)
    for (const Op& x : ops[r])
      if (x.kind == OpKind::RECV || x.kind == OpKind::IRECV)
        sim.box(x.peer, r)->set_receiver(actors[r]);

  if (o.routes) {
    for (int s = 0; s < o.hosts; s++)
      for (const Op& x : ops[s])
        if (x.kind == OpKind::SEND) {
          std::vector<sg4::Link*> links;
          double l = 0;
          sim.hosts[s]->route_to(sim.hosts[x.peer], links, &l);
          std::printf("route %d -> %d (%zu links):", s, x.peer, links.size());
          for (auto* k : links)
            std::printf(" %s", k->get_cname());
          std::printf("\n");
        }
  }

  engine->run();

  double t = 0;
  for (int r = 0; r < o.hosts; r++) {
    std::printf("rank %d %.9g\n", r, sim.end[r]);
    t = std::max(t, sim.end[r]);
  }
  std::printf("time %.9g\n", t);
  return 0;
}
