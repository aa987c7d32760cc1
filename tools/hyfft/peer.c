/* The table of peer libraries. */
#include <string.h>

#include "peer.h"

static const cli_peer *const cli_peers[] = {
    &cli_peer_fftw,
    &cli_peer_cufft,
    &cli_peer_copy,
    &cli_peer_cufft_host,
    &cli_peer_bus,
    &cli_peer_vkfft,
    NULL,
};

const cli_peer *cli_peer_find(const char *name) {
  for (int i = 0; cli_peers[i]; i++)
    if (strcmp(cli_peers[i]->name, name) == 0) return cli_peers[i];
  return NULL;
}

const char *cli_peer_names(void) { return "fftw, cufft, copy, cufft-host, bus, vkfft"; }
