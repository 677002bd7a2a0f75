/* Stand-in when Bullet is not installed: the benchmark reports the peer as
 * absent instead of timing it. */
#include <string.h>

#include "peer.h"

int drape_peer_bullet_available(void) { return 0; }

int drape_peer_bullet_run(const drape_peer_case *c, drape_peer_result *r) {
  (void)c;
  memset(r, 0, sizeof *r);
  return 1;
}
