/* The PTI paper's Sweep3D case written against SimGrid's S4U: the peer of
 * pti's wsl/examples/sweep3d.xml in tests/bench/engine.sh, to compare
 * events per second on one machine in one run.
 *
 *   sweep3d-s4u PLATFORM.xml [ITERATIONS]
 *
 * 16 actors on a 4 x 4 grid (npe_i = npe_j = 4), ITERATIONS (12) of the
 * wavefront over 8 octants x 2 angle blocks x 20 k-blocks: receive from the
 * upstream neighbours, compute the block, send to the downstream ones.
 * Sends are S4U puts, which complete once the receiver has taken the
 * message (rendezvous).  A block computes 2.25 MFlop,
 * 5 ms at the platform's 450 MFlop/s (the paper's CPU).  Prints the
 * simulated time and the number of events (receives, computations and
 * sends), like ptieval's count of the same operations. */
#include <simgrid/s4u.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

const int npe_i = 4, npe_j = 4, kb = 20, mmo = 2;
const double block_flops = 2.25e6;
const long msg_bytes = 12000;
int iterations = 12;
long events = 0;
int payload;

sg4::Mailbox* box(int src, int dst, int dir)
{
  return sg4::Mailbox::by_name(std::to_string(src) + "-" + std::to_string(dst) + "-" +
                               std::to_string(dir));
}

void rank_main(int r)
{
  int mi = r % npe_i, mj = r / npe_i;
  int east = mi < npe_i - 1 ? r + 1 : -1, west = mi > 0 ? r - 1 : -1;
  int north = mj < npe_j - 1 ? r + npe_i : -1, south = mj > 0 ? r - npe_i : -1;
  long n = 0;
  for (int it = 0; it < iterations; it++)
    for (int iq = 1; iq <= 8; iq++) {
      int i2 = iq >= 5 ? 1 : -1, j2 = ((iq - 1) / 2) % 2 == 1 ? 1 : -1;
      int up_ew = i2 > 0 ? west : east, dn_ew = i2 > 0 ? east : west;
      int up_ns = j2 > 0 ? south : north, dn_ns = j2 > 0 ? north : south;
      for (int mo = 0; mo < mmo; mo++)
        for (int kk = 0; kk < kb; kk++) {
          if (up_ew >= 0) { box(up_ew, r, 0)->get<int>(); n++; }
          if (up_ns >= 0) { box(up_ns, r, 1)->get<int>(); n++; }
          sg4::this_actor::execute(block_flops);
          n++;
          if (dn_ew >= 0) { box(r, dn_ew, 0)->put(&payload, msg_bytes); n++; }
          if (dn_ns >= 0) { box(r, dn_ns, 1)->put(&payload, msg_bytes); n++; }
        }
    }
  events += n;
}

} // namespace

int main(int argc, char** argv)
{
  sg4::Engine e(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PLATFORM.xml [ITERATIONS]\n", argv[0]);
    return 2;
  }
  if (argc > 2)
    iterations = std::atoi(argv[2]);
  e.load_platform(argv[1]);
  std::vector<sg4::Host*> hosts = e.get_all_hosts();
  if (hosts.size() < static_cast<size_t>(npe_i * npe_j)) {
    std::fprintf(stderr, "%s: the platform needs %d hosts\n", argv[0], npe_i * npe_j);
    return 2;
  }
  for (int r = 0; r < npe_i * npe_j; r++)
    sg4::Actor::create("rank" + std::to_string(r), hosts[r], rank_main, r);
  e.run();
  std::printf("simulated %.9f s, %ld events\n", sg4::Engine::get_clock(), events);
  return 0;
}
